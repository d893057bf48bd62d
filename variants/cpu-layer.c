/* cpu-layer - the C twin of the paper's GPU program: layer matrix H(c,l), neighbour matrix
 * W(m,i), no Newton 3.
 *
 * Why this shape: it is the algorithm the GPU runs, on one CPU thread, so the two can be
 * compared stage for stage (the paper's Table 2 CPU column). Linked lists are replaced by
 * arrays a GPU can use: the cell of each atom c_i; its layer l_i, the value of the cell's
 * occupancy counter k_c when the atom was counted (the one step the paper keeps on the host);
 * the cell-layer matrix H(c,l) = atom (-1 = empty), N_l = the largest occupancy; and the
 * neighbour matrix W(m,i), the m-th neighbour of atom i, stored in row order W[m*N + i] so
 * that all m-th neighbours are adjacent (coalesced reads for GPU threads, one per atom), with
 * m_i neighbours of atom i. Each atom scans all 27 cells and lists every neighbour (i'' !=
 * i'); the force loop updates only f_i and u_i (their sum is 2U), never another atom.
 * H is stored cell-major, H[c * cap + l], so one cell's layers are adjacent; a cell's scan
 * stops at its first empty layer (layers fill from 0), as the GPU's does.
 * Reordering (--reorder N_R) scans the most recent H in cell order, as the paper does.
 * On one CPU thread the row order is the wrong one: an atom's column of W is strided by N,
 * so each neighbour index comes from a different cache line (shared only with the next 15
 * atoms). That is the memory cost the paper measures for this step on the CPU; it is kept,
 * as is the one-atom-at-a-time force loop, with the same vectorised pair arithmetic as
 * cpu-full (pair_chunk) so that the comparison isolates the data layout. */
#include "../kernels/cpu/layer_matrix.h"

#include <stdlib.h>

typedef struct {
    LayerMatrix lm;       /* c_i, l_i, k_c, H(c,l), N_l */
    NeighbourMatrix nm;   /* W(m,i) in row order, m_i (kernels/cpu/layer_matrix.h) */
} Ctx;

static int init(Sim *s)
{
    require_host_reorder(s);
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    layer_matrix_init(&c->lm, s);
    neighbour_matrix_init(&c->nm, s);
    return 0;
}

static void finish(Sim *s)
{
    Ctx *c = s->ctx;
    layer_matrix_free(&c->lm);
    neighbour_matrix_free(&c->nm);
    free(c);
}

static void build(Sim *s)
{
    Ctx *c = s->ctx;
    layer_matrix_build(&c->lm, s);
    neighbour_matrix_build(&c->nm, &c->lm, s);
    s->stats.bytes = state_bytes(s) + layer_matrix_bytes(&c->lm, s->n) + neighbour_matrix_bytes(&c->nm, s->n);
}

/* Cell order from the most recent H (built at the last rebuild), as in the paper. */
static int reorder(Sim *s) { return layer_matrix_reorder(&((Ctx *)s->ctx)->lm, s); }

/* One atom at a time, as one GPU thread does, reading its column of W; the column is copied
 * in chunks so that the arithmetic (pair_chunk) is the same vectorised code as cpu-full's. */
static void forces(Sim *s)
{
    const Ctx *c = s->ctx;
    const int *restrict W = c->nm.W, *restrict nnbr = c->nm.count;
    const size_t n = s->n;
    double usum = 0, wsum = 0;
    PairChunk b;
    int col[PAIR_CHUNK];
    for (int i = 0; i < s->n; i++) {
        real fx = 0, fy = 0, fz = 0, ui = 0, wi = 0;
        for (int m0 = 0; m0 < nnbr[i]; m0 += PAIR_CHUNK) {
            const int len = nnbr[i] - m0 < PAIR_CHUNK ? nnbr[i] - m0 : PAIR_CHUNK;
            for (int k = 0; k < len; k++) col[k] = W[(m0 + k) * n + i];
            pair_chunk(s, i, col, len, &b);
            for (int k = 0; k < len; k++) { fx += b.x[k]; fy += b.y[k]; fz += b.z[k]; ui += b.u[k]; wi += b.w[k]; }
        }
        s->a[i] = (vec3){fx, fy, fz};
        s->u[i] = (real)0.5 * ui;
        usum += ui;
        wsum += wi;
    }
    s->props.upot_sum = 0.5 * usum; /* every pair counted from both ends */
    s->props.virial_sum = 0.5 * wsum;
}

static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    const Ctx *c = s->ctx;
    for (int i = 0; i < s->n; i++)
        for (int m = 0; m < c->nm.count[i]; m++) fn(i, c->nm.W[(size_t)m * s->n + i], arg);
}

static const Variant variant = {
    .name = "cpu-layer",
    .summary = "C twin of the GPU program: layer matrix H(c,l), neighbour matrix W(m,i) in row order, 27 cells, no Newton 3",
    .knobs = KNOB_LIST | KNOB_LAYERCAP | KNOB_REORDER,
    .has_u = 1,
    .pair_multiplicity = 2,
    .init = init,
    .finish = finish,
    CPU_COMMON_STAGES,
    .reorder = reorder,
    .build = build,
    .forces = forces,
    .for_each_pair = for_each_pair,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
