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
#include "../kernels/cpu/cpu_lists.h"
#include "../kernels/cpu/layers.h"

#include <stdlib.h>

typedef struct {
    CellGrid g;
    int *cell_of;    /* c_i */
    int *layer_of;   /* l_i */
    int *count;      /* k_c, the occupancy counters */
    int *H;          /* H(c,l) = H[c * lcap.cap + l] */
    int *W;          /* W(m,i) = W[m * n + i], m < wcap.cap */
    int *nnbr;       /* m_i */
    int nl;          /* N_l */
    Capacity lcap;   /* layers, --max-layers */
    Capacity wcap;   /* rows of W = neighbours per atom, --max-nbr */
} Ctx;

static void alloc_H(Ctx *c)
{
    free(c->H);
    c->H = nbr_alloc(sizeof(int) * c->lcap.cap * c->g.ncells, "layer matrix");
}

static void alloc_W(Ctx *c, int n)
{
    free(c->W);
    c->W = nbr_alloc(sizeof(int) * (c->wcap.cap + 1) * n, "neighbour matrix"); /* + spare row */
}

static int init(Sim *s)
{
    require_host_reorder(s);
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    c->g = cells_init(s->L, s->rn, s->n, s->variant->name);
    s->stats.cells_per_axis = c->g.G;
    c->cell_of = nbr_alloc(sizeof(int) * s->n, "atom cells");
    c->layer_of = nbr_alloc(sizeof(int) * s->n, "atom layers");
    c->count = nbr_alloc(sizeof(int) * c->g.ncells, "cell occupancies");
    c->nnbr = nbr_alloc(sizeof(int) * s->n, "neighbour counts");
    capacity_init(&c->lcap, s->variant->name, "layer matrix", "layers", "max-layers",
                  s->p.max_layers, poisson_max(atoms_per_cell(s, &c->g)), 1);
    capacity_init(&c->wcap, s->variant->name, "neighbour matrix", "neighbours per atom",
                  "max-nbr", s->p.max_nbr, nbr_start_estimate(s, poisson_max(neighbours_within(s, s->rn))), 1);
    alloc_H(c);
    alloc_W(c, s->n);
    return 0;
}

static void finish(Sim *s)
{
    Ctx *c = s->ctx;
    free(c->cell_of);
    free(c->layer_of);
    free(c->count);
    free(c->H);
    free(c->W);
    free(c->nnbr);
    free(c);
}

/* c_i, then l_i from the occupancy counters (the paper's host loop, kernels/cpu/layers.c),
 * then H. */
static void assign_layers(Sim *s, Ctx *c)
{
    cells_assign(&c->g, s->r, s->n, c->cell_of);
    c->nl = layers_assign(c->cell_of, s->n, c->g.ncells, c->count, c->layer_of);
    s->stats.layers = c->nl;
    if (capacity_short(s, &c->lcap, (size_t)c->nl)) alloc_H(c);
    const size_t cap = c->lcap.cap;
    for (size_t k = 0; k < cap * c->g.ncells; k++) c->H[k] = -1;
    for (int i = 0; i < s->n; i++) c->H[c->cell_of[i] * cap + c->layer_of[i]] = i;
}

/* Fills W; counts past the capacity without storing. Returns the largest m_i. */
static int fill_neighbours(Sim *s, Ctx *c)
{
    const CellGrid *g = &c->g;
    const vec3 *restrict r = s->r;
    const int *restrict H = c->H;
    int *restrict W = c->W, *restrict nnbr = c->nnbr;
    const size_t n = s->n, lcap = c->lcap.cap;
    const int rows = (int)c->wcap.cap, nl = c->nl;
    const real rn2 = s->rn * s->rn;
    int most = 0;
    for (int i = 0; i < s->n; i++) {
        const int ci = c->cell_of[i];
        const int cx = ci % g->G, cy = ci / g->G % g->G, cz = ci / (g->G * g->G);
        const vec3 ri = r[i];
        int m = 0;
        for (int k = 0; k < FULL_OFFSETS; k++) {
            const CellImage im = cell_image(g, cx, cy, cz, k);
            const int *h = H + im.cell * lcap;
            for (int l = 0; l < nl && h[l] >= 0; l++) {
                const int j = h[l];
                const real dx = ri.x - r[j].x - im.shift.x, dy = ri.y - r[j].y - im.shift.y,
                           dz = ri.z - r[j].z - im.shift.z;
                /* store always (past the capacity into the spare row), advance if a
                 * neighbour: no branch to mispredict */
                W[(m < rows ? m : rows) * n + i] = j;
                m += (dx * dx + dy * dy + dz * dz < rn2) & (j != i);
            }
        }
        nnbr[i] = m;
        if (m > most) most = m;
    }
    return most;
}

static void build(Sim *s)
{
    Ctx *c = s->ctx;
    assign_layers(s, c);
    while (capacity_short(s, &c->wcap, (size_t)fill_neighbours(s, c))) alloc_W(c, s->n);
    double entries = 0;
    for (int i = 0; i < s->n; i++) entries += c->nnbr[i];
    s->stats.nbr_entries = entries;
    s->stats.bytes = state_bytes(s) + sizeof(int) * (3.0 * s->n + c->g.ncells) +
                     sizeof(int) * ((double)c->lcap.cap * c->g.ncells + (c->wcap.cap + 1.0) * s->n);
}

/* Cell order from the most recent H (built at the last rebuild), as in the paper. */
static int reorder(Sim *s)
{
    Ctx *c = s->ctx;
    int *order = nbr_alloc(sizeof(int) * s->n, "reorder permutation");
    const int k = layers_cell_order(c->H, c->count, c->g.ncells, (long)c->lcap.cap, order);
    if (k == s->n) reorder_atoms(s, order);
    free(order);
    return k == s->n;   /* H describes the atoms only after a build */
}

/* One atom at a time, as one GPU thread does, reading its column of W; the column is copied
 * in chunks so that the arithmetic (pair_chunk) is the same vectorised code as cpu-full's. */
static void forces(Sim *s)
{
    const Ctx *c = s->ctx;
    const int *restrict W = c->W, *restrict nnbr = c->nnbr;
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
        for (int m = 0; m < c->nnbr[i]; m++) fn(i, c->W[(size_t)m * s->n + i], arg);
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
