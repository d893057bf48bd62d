/* atom_rows.cuh - per-atom neighbour rows served by groups of t_p lanes, templated on the index
 * width (gpu-onchip keeps 16-bit rows on chip; the component tests also run 32-bit ones):
 *   RowCells    cell bins of M^3 cells of edge L / M >= r_n, `cap` slots of Idx each (cell_bin)
 *   rows_build  atom i's row by n2 (every j, index order) or over the 27 cells around i's
 *   rows_force  atom i's forces from its row (pair_loop), summed over the group
 * A group is t_p lanes of one warp (t_p a power of 2 up to 32): lane `sub` takes candidates or
 * entries sub, sub + t_p, ... Atom i's entries are list_i[m], m < count; a build that finds more
 * than cap stores cap and returns the true count, so the caller grows the capacity (or replays)
 * and never uses a truncated row. The same for a cell: the bin returns its occupancy. */
#ifndef NBR_ATOM_ROWS_CUH
#define NBR_ATOM_ROWS_CUH

#include "leapfrog.cuh"
#include "pair_force.cuh"

#include <stdint.h>

/* log2 t_p. Callers form t_p as 1 << it, so that divisions by t_p compile to shifts (the force
 * loop's trip count cost ~20 instructions per atom and step as a division). */
__device__ __forceinline__ int lanes_log2(int tp) { return __ffs(tp) - 1; }

/* The lanes of this thread's group within its warp, as a ballot mask. */
__device__ __forceinline__ unsigned group_mask(int tp)
{
    const int lane = threadIdx.x & 31;
    return tp == 32 ? 0xffffffffu : ((1u << tp) - 1u) << (lane & ~(tp - 1));
}

/* m = 0: no cells (the n2 build). The program takes M with a margin (1e-5) so that the rounding
 * of (x + L/2) M / L never puts two atoms within r_n two cells apart. */
template <typename Idx>
struct RowCells {
    int m, cap;
    real inv_h;   /* M / L */
    int *count;   /* M^3 occupancies, zero before a bin */
    Idx *slot;    /* cell c's atoms at slot[c * cap + k], k < min(count[c], cap) */
};

/* Wrapped: x already in [-L/2, L/2) (the host path bins unwrapped positions). */
template <bool Wrapped, typename Idx>
__device__ __forceinline__ int row_cell_axis(real x, real L, const RowCells<Idx> &g)
{
    return cell_coord(Wrapped ? x : pbc_wrap(x, L), L, g.inv_h, g.m);
}

/* Atom i into its cell (one thread per atom): the cell's occupancy with it, over g.cap on overflow. */
template <bool Wrapped = false, typename Idx>
__device__ __forceinline__ int rows_bin(int i, const real4 &ri, real L, const RowCells<Idx> &g)
{
    const int c = cell_index(row_cell_axis<Wrapped>(ri.x, L, g), row_cell_axis<Wrapped>(ri.y, L, g),
                             row_cell_axis<Wrapped>(ri.z, L, g), g.m);
    return cell_bin(i, c, g.count, g.slot, g.cap);
}

/* A rebuild's wrap of atom i in r (one thread per atom), then with cells its bin: the occupancy
 * it saw (0 for n2). */
template <typename Idx>
__device__ __forceinline__ int rows_wrap_bin(int i, real4 *r, real L, const RowCells<Idx> &g)
{
    const real4 ri = wrap_atom(r, i, L);
    return g.m ? rows_bin<true>(i, ri, L, g) : 0;
}

/* A candidate j of atom i by lane `sub` (hit: within r_n), placed by the group's ballot: the
 * whole warp calls, its groups in step. */
template <typename Idx>
__device__ __forceinline__ void row_place(bool hit, int j, unsigned gmask, int &m, Idx *list_i, int cap)
{
    const unsigned b = __ballot_sync(0xffffffffu, hit) & gmask;
    if (hit) {
        const int pos = m + __popc(b & ((1u << (threadIdx.x & 31)) - 1u));
        if (pos < cap) list_i[pos] = (Idx)j;
    }
    m += __popc(b);
}

/* The n2 build of atom i by its group: each j != i within r_n, in index order. */
template <typename Idx>
__device__ __forceinline__ int rows_build_n2(int i, bool active, int sub, int tp, const real4 *r, int n,
                                             const PbcBox &box, real rn2, Idx *list_i, int cap)
{
    const unsigned gmask = group_mask(tp);
    const real4 ri = active ? r[i] : make_real4(0, 0, 0, 0);
    int m = 0;
    for (int j0 = 0; j0 < n; j0 += tp) {
        const int j = j0 + sub;
        bool hit = false;
        if (active && j < n && j != i) {
            real dx, dy, dz;
            hit = min_image_r2(ri, r[j], box, dx, dy, dz) < rn2;
        }
        NBR_PLANT(14, hit = hit && j != n - 1);
        row_place(hit, j, gmask, m, list_i, cap);
    }
    return m;
}

/* The cell build of atom i by its group: each j != i of the 27 cells around i's within r_n, a
 * candidate three subtractions (walk_cells shifts r_i next to each image). The warp's groups loop
 * to the fullest of their cells, so the ballots take the whole warp (group-masked ballots in
 * diverged groups cost ~3 votes and a branch a round on the H200). */
template <typename Idx>
__device__ __forceinline__ int rows_build_cells(int i, bool active, int sub, int tp, const real4 *r, const PbcBox &box,
                                                real rn2, const RowCells<Idx> &g, Idx *list_i, int cap)
{
    const unsigned gmask = group_mask(tp);
    const real4 ri = active ? r[i] : make_real4(0, 0, 0, 0);
    int m = 0, visited = 0;
    walk_cells<1>(row_cell_axis<false>(ri.x, box.L, g), row_cell_axis<false>(ri.y, box.L, g),
                  row_cell_axis<false>(ri.z, box.L, g), g.m, box.L, ri, [&](int c, const real4 &rs) {
        ++visited;
        NBR_PLANT(15, if (visited == 27) return);
        const int cnt = active ? min(g.count[c], g.cap) : 0;
        const int most = __reduce_max_sync(0xffffffffu, cnt);
        const Idx *sl = g.slot + (size_t)c * g.cap;
        for (int s = sub; s - sub < most; s += tp) {
            int j = 0;
            bool hit = false;
            if (s < cnt && (j = sl[s]) != i) {
                const real4 rj = r[j];
                const real dx = rs.x - rj.x, dy = rs.y - rj.y, dz = rs.z - rj.z;
                hit = dx * dx + dy * dy + dz * dz < rn2;
            }
            row_place(hit, j, gmask, m, list_i, cap);
        }
    });
    return m;
}

/* Atom i's row by the build g says (g.m = 0: n2): the true count in every lane of the group (0
 * for an inactive one); min(count, cap) entries stored. Every lane of the warp calls. */
template <typename Idx>
__device__ __forceinline__ int rows_build(int i, bool active, int sub, int tp, const real4 *r, int n, const PbcBox &box,
                                          real rn2, const RowCells<Idx> &g, Idx *list_i, int cap)
{
    return g.m ? rows_build_cells(i, active, sub, tp, r, box, rn2, g, list_i, cap)
               : rows_build_n2(i, active, sub, tp, r, n, box, rn2, list_i, cap);
}

/* Forces on atom i from its row: the group's sums of f, u and r . f in every lane of the group.
 * !Energy: f only (3 shuffles a level, not 5). Every lane of the warp calls. */
template <int Kind, bool Energy = true, typename Idx>
__device__ __forceinline__ ForceSum rows_force(int i, bool active, int sub, int tp, const real4 *r, const Idx *list_i,
                                               int count, const PbcBox &box, const PairPotential &pot)
{
    ForceSum f = {0, 0, 0, 0, 0};
    if (active)   /* a position is one vector load (a reference would let q_j load apart) */
        pair_loop<Kind, false, Energy, false>(sub, count, tp, r[i], box, pot, [&](int m) { return (int)list_i[m]; },
                                              [&](int j) { return r[j]; }, f);
    group_sum_all<Energy>(f, tp);
    return f;
}

/* A group's copy of a row of cap entries (cap x sizeof(Idx) a multiple of 4: as 32-bit words)
 * and, by its lane 0, the row's count: between a chunk's shared memory and the global store. */
template <typename Idx>
__device__ __forceinline__ void rows_copy(const Idx *from, const int *from_count, Idx *to, int *to_count, int cap,
                                          int sub, int tp)
{
    const unsigned *f = (const unsigned *)from;
    unsigned *t = (unsigned *)to;
    int words = cap * (int)sizeof(Idx) / 4;
    NBR_PLANT(19, words--);
    for (int q = sub; q < words; q += tp) t[q] = f[q];
    if (sub == 0) *to_count = *from_count;
}

/* rows_force with u and the virial only where `energy` (uniform: a chunk's last step); both
 * instances inline. */
template <int Kind, typename Idx>
__device__ __forceinline__ ForceSum rows_force_if(bool energy, int i, bool active, int sub, int tp, const real4 *r,
                                                  const Idx *list_i, int count, const PbcBox &box,
                                                  const PairPotential &pot)
{
    return energy ? rows_force<Kind, true>(i, active, sub, tp, r, list_i, count, box, pot)
                  : rows_force<Kind, false>(i, active, sub, tp, r, list_i, count, box, pot);
}

/* ---- the stage kernels of a host-driven step (atom_rows.cu: 16-bit rows) --------------------- */

typedef uint16_t row16;

/* The rows of n atoms and their bins, as the host keeps them. */
struct Rows16 {
    row16 *list;   /* atom i's at list[i * cap + m] */
    int *count;
    int cap;
};

/* The bin (cells only), then the build, each atom by tp lanes, in blocks of `threads`: the cells'
 * largest occupancy into status->layers_needed, the rows' statistics as record_nbr_stats. */
void rows_build_launch(const real4 *r, int n, real L, real rn2, const RowCells<row16> &cells, const Rows16 &rows,
                       int tp, int threads, BuildStatus *status, cudaStream_t stream);
/* Forces, accelerations and per-atom u; the sums of u and of the virial added into upot, virial. */
void rows_force_launch(const real4 *r, int n, real L, const PairPotential &pot, const Rows16 &rows, int tp,
                       int threads, real4 *a, real *u, double *upot, double *virial, cudaStream_t stream);
/* fn(i, j) for each stored entry, from a host copy (--verify-lists, --check's pairs) */
void rows_for_each_pair(const Rows16 &rows, int n, PairFn fn, void *arg, cudaStream_t stream);

/* ---- the rows and cells as a program keeps them (atom_rows_store.cu) ------------------------ */

/* Their capacities follow kernels/capacity.h: a build that finds more than the capacity grows it
 * and builds again (or a hard --max-nbr stops the run with one line). */
struct RowsStore {
    Rows16 rows;
    Capacity capacity;        /* entries per row: cap even (a chunk copies rows as 32-bit words) */
    RowCells<row16> cells;    /* m = 0: n2; counts 2 M^3 (a chunk kernel's two parities), a stage build the first M^3 */
    Capacity cell_capacity;   /* slots per cell */
};
/* The rows at the capacity the density gives, and with M > 0 the cells of M^3. */
void rows_store_init(Sim *s, RowsStore *st, int M);
/* After a build that needed `rows` entries and `cells` slots: 1 if a capacity grew (build again). */
int rows_store_fit(Sim *s, RowsStore *st, int rows, int cells);
/* The bin and build of the host path, grown until they fit; the list's statistics into s->stats. */
void rows_store_build(Sim *s, RowsStore *st, int tp);
/* Forces, accelerations, per-atom u; the sums of u and the virial into GpuSim's first partials. */
void rows_store_forces(Sim *s, RowsStore *st, int tp);
void rows_store_free(RowsStore *st);

#endif
