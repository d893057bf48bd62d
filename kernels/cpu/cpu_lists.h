/* cpu_lists.h - what the CPU neighbour-list variants share.
 *
 * The paper's CPU chain changes one thing at a time: an unordered pair list (cpu-pairlist),
 * the same pairs grouped by atom (cpu-grouped), grouping without Newton's third law
 * (cpu-full), and the layer/neighbour matrices of the GPU program (cpu-layer). The steps that
 * do not change along that chain are written once here, so the variants differ only where the
 * paper's versions do:
 *   - linked-list cells (the paper's q_j) and the largest occupancy (N_l) they imply;
 *   - the walk over the 14 half-shell cells that finds each pair once (pair list build, and
 *     the forces of cpu-cells), with the periodic image of each neighbour cell;
 *   - the grouped (CSR, p_i and t_m) build, with Newton 3 (14 cells, i' < i'' inside a cell)
 *     or without (27 cells, i' != i'');
 *   - the pair arithmetic of the by-atom force loops, branch-free so that it vectorises;
 *   - capacities that grow on demand or, when set by a flag, stop with one line;
 *   - the cell-order permutation used to reorder atoms.
 * Everything is in `real`; totals are accumulated in double by the callers. */
#ifndef NBR_CPU_LISTS_H
#define NBR_CPU_LISTS_H

#include "../capacity.h"
#include "../cells.h"
#include "stages.h"
#include "../../common/pbc.h"

#include <stddef.h>

/* ---- capacities: kernels/capacity.h ------------------------------------------------- */

/* Atoms per cell at the mean density. */
double atoms_per_cell(const Sim *s, const CellGrid *g);

/* Bytes of the state every variant holds: r, v, a, u. */
double state_bytes(const Sim *s);

/* CPU programs reorder on the host: refuses --reorder-at device with one line (exit 2). */
void require_host_reorder(const Sim *s);

/* ---- linked-list cells ----------------------------------------------------------------- */

typedef struct {
    CellGrid g;
    int *head;   /* first atom of each cell, -1 = empty (the paper's q_{N_a + c}) */
    int *next;   /* next atom of the same cell, -1 = last (the paper's q_j) */
} LinkedCells;

/* Grid of cells at least min_width wide (refuses G < 3); sets stats.cells_per_axis. */
void lcells_init(LinkedCells *lc, Sim *s, double min_width);
void lcells_free(LinkedCells *lc);
double lcells_bytes(const LinkedCells *lc, int n);

/* Assigns atoms to cells; sets stats.layers to the largest occupancy (N_l). */
void lcells_assign(LinkedCells *lc, Sim *s);

/* Reorders the atoms in cell order (cells in index order, atoms in index order within a
 * cell), from their current positions: neighbours then sit close together in memory. */
int lcells_reorder(LinkedCells *lc, Sim *s);

/* The neighbour cell of (cx,cy,cz) at cell_offsets[k], its shift b (added to its atoms'
 * positions to bring them next to the first cell) and b's 6-bit code: 2 bits per axis,
 * 0 = no shift, 1 = +L, 2 = -L (the paper's beta). */
typedef struct {
    int cell, code;
    vec3 shift;
} CellImage;

static inline CellImage cell_image(const CellGrid *g, int cx, int cy, int cz, int k)
{
    CellImage im;
    im.cell = cell_neighbor(cx, cy, cz, cell_offsets[k][0], cell_offsets[k][1],
                            cell_offsets[k][2], g->G, g->L, &im.shift);
    const real b[3] = {im.shift.x, im.shift.y, im.shift.z};
    im.code = 0;
    for (int d = 0; d < 3; d++) im.code |= (b[d] > 0 ? 1 : b[d] < 0 ? 2 : 0) << (2 * d);
    return im;
}

/* Half the periodic correction of each code (the inverse of cell_image's packing, halved
 * for pbc_delta's form), for all 64 codes so the force loops look it up, not branch. */
void image_half_shift_table(real L, vec3 table[64]);

/* Visits every candidate pair once, `within` = closer than sqrt(cut2) (the visitor tests it,
 * with a branch or without): the cell itself (pairs i < j in list order) and the 13 other
 * half-shell cells. d = r_i - r_j - b (formed as pbc_delta forms it), b the image shift
 * of j's cell, code its packed form. The loops run cells, then the atoms i of the cell, then the
 * 14 cells, then their atoms j (the paper puts the offsets outside i; with i outside, all of
 * an atom's pairs come out together, so a consumer can keep f_i in registers).
 * static inline with a constant visitor, so the compiler specialises the walk for each caller
 * instead of calling through a pointer per pair. */
typedef void (*HalfPairVisit)(void *ctx, int i, int j, real dx, real dy, real dz, real r2,
                              int code, int within);

static inline void half_shell_pairs(const LinkedCells *lc, const vec3 *restrict r, real cut2,
                                    HalfPairVisit visit, void *ctx)
{
    const CellGrid *g = &lc->g;
    const int *restrict head = lc->head, *restrict next = lc->next;
    for (int cz = 0; cz < g->G; cz++)
        for (int cy = 0; cy < g->G; cy++)
            for (int cx = 0; cx < g->G; cx++) {
                const int c = cell_index(cx, cy, cz, g->G);
                if (head[c] < 0) continue;
                CellImage im[HALF_OFFSETS];
                for (int k = 0; k < HALF_OFFSETS; k++) im[k] = cell_image(g, cx, cy, cz, k);
                for (int i = head[c]; i >= 0; i = next[i]) {
                    const vec3 ri = r[i];
                    for (int k = 0; k < HALF_OFFSETS; k++) {
                        /* the image formed as pbc_delta does: (r_i - b/2) - (r_j + b/2) */
                        const vec3 h = {(real)0.5 * im[k].shift.x, (real)0.5 * im[k].shift.y,
                                        (real)0.5 * im[k].shift.z};
                        const vec3 rih = {ri.x - h.x, ri.y - h.y, ri.z - h.z};
                        /* in the cell itself only the atoms after i: each pair once */
                        for (int j = k ? head[im[k].cell] : next[i]; j >= 0; j = next[j]) {
                            const real dx = rih.x - (r[j].x + h.x), dy = rih.y - (r[j].y + h.y),
                                       dz = rih.z - (r[j].z + h.z);
                            const real r2 = dx * dx + dy * dy + dz * dz;
                            visit(ctx, i, j, dx, dy, dz, r2, im[k].code, r2 < cut2);
                        }
                    }
                }
            }
}

/* The force loops of the by-atom lists (grouped, full, layer) in two passes per chunk of an
 * atom's neighbours: this one is the arithmetic, written without branches (the cutoff selects
 * instead of skipping) so the compiler vectorises it, gathering the neighbours' positions;
 * the caller then sums f_i and u_i and, with Newton 3, scatters -f into the neighbours. With a
 * branch per pair instead, a CPU mispredicts about half of the cutoff tests. */
enum { PAIR_CHUNK = 64 };

typedef struct {
    real x[PAIR_CHUNK], y[PAIR_CHUNK], z[PAIR_CHUNK]; /* force on i from each neighbour */
    real u[PAIR_CHUNK];                               /* pair energy, 0 beyond r_c */
    real w[PAIR_CHUNK];                               /* pair virial r.f, 0 beyond r_c */
} PairChunk;

/* The loop for one potential kind, a constant where pair_chunk calls it, so each kind gets its
 * own vectorised loop (an uncharged kind's evaluator ignores qq: the charges are not loaded). */
static inline __attribute__((always_inline)) void pair_chunk_kind(vec3 ri, real qi, const int *restrict nbr,
                                                                  int len, const vec3 *restrict r,
                                                                  const real *restrict q, real L,
                                                                  PairPotential pot, const int kind,
                                                                  PairChunk *restrict out)
{
    pot.kind = kind;
    for (int k = 0; k < len; k++) {
        const int j = nbr[k];
        const real dx = pbc_delta(ri.x, r[j].x, L), dy = pbc_delta(ri.y, r[j].y, L),
                   dz = pbc_delta(ri.z, r[j].z, L);
        const real r2 = dx * dx + dy * dy + dz * dz;
        real f;
        const real u = pair_u(pot, r2, qi * q[j], &f), fr = r2 < pot.rc2 ? f : 0;
        out->u[k] = r2 < pot.rc2 ? u : 0;
        out->w[k] = fr * r2;
        out->x[k] = fr * dx; out->y[k] = fr * dy; out->z[k] = fr * dz;
    }
}

static inline void pair_chunk(const Sim *s, int i, const int *restrict nbr, int len, PairChunk *restrict out)
{
#define PAIR_CHUNK_KIND(K) pair_chunk_kind(s->r[i], s->q[i], nbr, len, s->r, s->q, s->L, s->pot, K, out)
    NBR_POTENTIAL_DISPATCH(s->pot.kind, PAIR_CHUNK_KIND);
#undef PAIR_CHUNK_KIND
}

/* ---- neighbours grouped by atom (p_i, t_m) ---------------------------------------------- */

typedef struct {
    int *p;        /* n + 1 offsets: atom i's neighbours are t[p[i]] .. t[p[i+1] - 1] */
    int *t;        /* t_m, capacity cap.cap * n entries */
    Capacity cap;  /* in neighbours per atom (mean), flag --max-nbr */
    int newton;    /* 1: 14 cells, each pair once; 0: 27 cells, each pair twice */
} GroupedList;

void grouped_init(GroupedList *gl, Sim *s, int newton);
void grouped_free(GroupedList *gl);
double grouped_bytes(const GroupedList *gl, int n);

/* Builds the list from the linked cells (already assigned): for each atom i' in turn, the
 * atoms i'' of the neighbour cells with r < r_n. Sets stats.nbr_entries (full-list
 * equivalent); grows or stops on capacity. */
void grouped_build(Sim *s, const LinkedCells *lc, GroupedList *gl);

/* The stages of cpu-grouped and cpu-full, which differ only in their force loops: the
 * context (s->ctx) is a GroupedCtx; cells of width >= r_n. */
typedef struct {
    LinkedCells lc;
    GroupedList list;
} GroupedCtx;

int grouped_stage_init(Sim *s, int newton);
void grouped_stage_finish(Sim *s);
int grouped_stage_reorder(Sim *s);
void grouped_stage_build(Sim *s);
void grouped_stage_pairs(Sim *s, PairFn fn, void *arg); /* every entry as a pair (i, t_m) */

#endif
