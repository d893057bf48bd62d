/* cpu-pairlist - the paper's base CPU method: linked-list cells -> unordered pair list.
 *
 * Why this shape: on a single CPU thread with caches, the cheapest force loop is one pass
 * over the pairs (t'_m, t''_m) with r < r_n, each pair once, updating both f_i and f_j
 * (Newton's third law halves the arithmetic; the unordered updates of f are absorbed by the
 * caches). The list is built from linked-list cells of width >= r_n, scanning the cell
 * itself and 13 of its neighbours. As in the paper, the periodic image of each pair (27
 * possibilities) is packed into the 6 high-order bits of the first index, so the force loop
 * never repeats the boundary tests: it looks the shift up (a 64-entry table, no branch).
 * The price is that indices keep 26 bits: N <= 2^26 (larger runs are refused). The list is
 * the component kernels/cpu/pair_list.h; this file is its force loop.
 * Deviations from the paper, for speed on a current CPU, none changing what is computed:
 *   - the pairs are one array of (t', t'') structs, not two arrays: one 8-byte load a pair;
 *   - the build emits an atom's pairs together (atoms of a cell outside the 14 offsets, the
 *     paper has them inside), so the force loop sums f_i in registers over the run of
 *     pairs sharing i instead of chaining read-modify-writes of one a[i];
 *   - forces go in two passes per chunk of pairs: the arithmetic, branch-free (the cutoff
 *     selects rather than skips) so the compiler vectorises it; then the scattered updates;
 *   - atoms are reordered in cell order every --reorder steps (the paper does this on the
 *     GPU; --reorder 0 gives the paper's CPU chain as described). */
#include "../kernels/cpu/pair_list.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    PairList pl;   /* cells -> pairs, the image code in the first index (kernels/cpu/pair_list.h) */
} Ctx;

/* Its own option (Variant.opts: no other program has a pair list), listed where it stood in
 * the common table, before --check. */
typedef struct {
    long max_pairs;   /* the pair list's capacity; 0 = automatic (grows, from --grow-from if given) */
} PairlistOpts;
static const Option own_rows[] = {
    {"max-pairs", T_LONG, offsetof(PairlistOpts, max_pairs), 0, 4e9, NULL, 0, "max_pairs",
     "pair-list capacity in pairs (0 = automatic, grows on demand)"},
};
static const PairlistOpts own_defaults = {0};
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(PairlistOpts), &own_defaults,
                               NULL, "check"};

static int init(Sim *s)
{
    require_host_reorder(s);
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    pair_list_init(&c->pl, s, ((const PairlistOpts *)s->opts)->max_pairs);
    return 0;
}

static void finish(Sim *s)
{
    Ctx *c = s->ctx;
    pair_list_free(&c->pl);
    free(c);
}

static int reorder(Sim *s) { return lcells_reorder(&((Ctx *)s->ctx)->pl.lc, s); }

static void build(Sim *s)
{
    Ctx *c = s->ctx;
    pair_list_build(&c->pl, s);
    s->stats.bytes = state_bytes(s) + pair_list_bytes(&c->pl, s->n);
}

enum { CHUNK = 256 };

typedef struct {
    real x[CHUNK], y[CHUNK], z[CHUNK], u[CHUNK], w[CHUNK];   /* force on i, u, r.f of each pair */
} PairBuf;

/* The arithmetic of one chunk for one potential kind, a constant at the call, so each kind gets
 * its own vectorised loop (an uncharged kind ignores qq: the charges are not even loaded). */
static inline __attribute__((always_inline)) void chunk_arith(const Pair *restrict pc, int len,
                                                              const vec3 *restrict r, const vec3 *restrict half,
                                                              const real *restrict q, PairPotential pot,
                                                              const int kind, PairBuf *restrict b)
{
    pot.kind = kind;
    for (int k = 0; k < len; k++) {
        const uint32_t i = pc[k].a & PAIR_INDEX_MASK, j = pc[k].b, code = pc[k].a >> PAIR_CODE_SHIFT;
        const vec3 h = half[code]; /* (r_i - b/2) - (r_j + b/2), as pbc_delta */
        const real dx = (r[i].x - h.x) - (r[j].x + h.x), dy = (r[i].y - h.y) - (r[j].y + h.y),
                   dz = (r[i].z - h.z) - (r[j].z + h.z);
        const real r2 = dx * dx + dy * dy + dz * dz;
        real f;
        const real u = pair_u(pot, r2, q[i] * q[j], &f), fr = r2 < pot.rc2 ? f : 0;
        b->u[k] = r2 < pot.rc2 ? u : 0;
        b->w[k] = fr * r2;
        b->x[k] = fr * dx; b->y[k] = fr * dy; b->z[k] = fr * dz;
    }
}

/* Two passes per chunk of pairs: the arithmetic, branch-free (the cutoff selects, it does not
 * branch) so the compiler vectorises it with gathers; then the scattered updates of f. */
static void forces(Sim *s)
{
    const Ctx *c = s->ctx;
    const Pair *restrict pairs = c->pl.pairs;
    vec3 *restrict a = s->a;
    double upot = 0, virial = 0;
    PairBuf buf;
    memset(a, 0, sizeof(vec3) * s->n);
    for (size_t m0 = 0; m0 < c->pl.np; m0 += CHUNK) {
        const int len = c->pl.np - m0 < CHUNK ? (int)(c->pl.np - m0) : CHUNK;
        const Pair *restrict pc = pairs + m0;
#define CHUNK_ARITH(K) chunk_arith(pc, len, s->r, c->pl.half, s->q, s->pot, K, &buf)
        NBR_POTENTIAL_DISPATCH(s->pot.kind, CHUNK_ARITH);
#undef CHUNK_ARITH
        const real *bx = buf.x, *by = buf.y, *bz = buf.z, *bu = buf.u, *bw = buf.w;
        /* f_i is summed in registers while i repeats (the build emits an atom's pairs
         * together): read-modify-writes of one a[i] in a row would wait on each other */
        uint32_t cur = pc[0].a & PAIR_INDEX_MASK;
        real fx = 0, fy = 0, fz = 0, uc = 0, wc = 0;
        for (int k = 0; k < len; k++) {
            const uint32_t i = pc[k].a & PAIR_INDEX_MASK, j = pc[k].b;
            if (i != cur) {
                a[cur].x += fx; a[cur].y += fy; a[cur].z += fz;
                fx = fy = fz = 0;
                cur = i;
            }
            fx += bx[k]; fy += by[k]; fz += bz[k];
            a[j].x -= bx[k]; a[j].y -= by[k]; a[j].z -= bz[k];
            uc += bu[k];
            wc += bw[k];
        }
        a[cur].x += fx; a[cur].y += fy; a[cur].z += fz;
        upot += uc;
        virial += wc;
    }
    s->props.upot_sum = upot;
    s->props.virial_sum = virial;
}

static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    const Ctx *c = s->ctx;
    for (size_t m = 0; m < c->pl.np; m++) fn((int)(c->pl.pairs[m].a & PAIR_INDEX_MASK), (int)c->pl.pairs[m].b, arg);
}

static const Variant variant = {
    .name = "cpu-pairlist",
    .summary = "linked-list cells -> unordered pair list (14 cells, Newton 3, image code in 6 high bits)",
    .knobs = KNOB_PAIRCAP | KNOB_REORDER,   /* KNOB_PAIRCAP: --grow-from, which other lists have */
    .opts = &own,
    .pair_multiplicity = 1,
    .max_atoms = (long)PAIR_INDEX_MASK + 1,
    .max_atoms_why = "2^26: the index bits left beside the 6-bit image code",
    .init = init,
    .finish = finish,
    CPU_COMMON_STAGES,
    .reorder = reorder,
    .build = build,
    .forces = forces,
    .for_each_pair = for_each_pair,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
