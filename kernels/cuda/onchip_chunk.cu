/* onchip_chunk.cu - gpu-onchip's chunk kernel (onchip.cuh): one launch runs every step between
 * two sample points. One step, written once over three tiers, each a sync and reduce policy
 * (chunk_sync.cuh) and a layout of the state (tier_layout):
 *   block    one block of 1024 threads: positions (two buffers: a step reads one and drifts into
 *            the other), velocities, counts and rows in shared memory
 *   grid     a cooperative grid over L2: positions in two buffers, velocities in place, each
 *            block's groups' rows in its shared memory
 *   cluster  C blocks, each holding all N positions (two buffers) and its own atoms' velocities
 *            and rows; new positions stored into every block (ClusterSync)
 * A step: forces from the rows (t_p lanes per atom, no Newton 3), the second half-kick, v^2, the
 * next half-kick and drift; the tier's exchange of the largest v^2; every thread then takes the
 * same rebuild decision (decide.cuh). A rebuild wraps, bins (cells), syncs and builds the rows
 * (atom_rows.cuh); where each block holds every position (cluster, staged grid) it bins into
 * cells of its own, in shared memory. Energies and virial at the chunk's last step only.
 * docs/onchip.md gives the measurements behind each choice. */
#include "onchip.cuh"

namespace {

/* Where a chunk's state lives in this block: each tier's OcSmem offsets in its dynamic shared
 * memory (the grid's positions and velocities in global memory). */
struct ChunkLayout {
    real4 *rb0, *rb1;   /* the two position buffers */
    real4 *vw;          /* the served atoms' velocities, by i - lo */
    int *count;         /* the served atoms' counts and rows, by slot */
    row16 *list;
    RowCells<row16> local;   /* the block's own cells (cluster, staged grid) */
    real4 *spos;             /* the staged grid's copy of the positions */
};

template <class Tier>
__device__ __forceinline__ ChunkLayout tier_layout(const ChunkArgs &A, unsigned char *smem, bool staged, int ncell,
                                                   int slots)
{
    OcSmem o;
    if constexpr (Tier::replicated) o = oc_smem_cluster(A.n, Tier::blocks(), A.rows.cap, ncell, A.cells.cap);
    else if constexpr (Tier::grid) o = oc_smem_grid(A.n, slots, A.rows.cap, staged, ncell, A.cells.cap);
    else o = oc_smem_block(A.n, A.rows.cap);
    ChunkLayout L;
    L.rb0 = L.spos = (real4 *)(smem + o.pos);
    L.rb1 = L.rb0 + A.n;
    L.vw = (real4 *)(smem + o.vel);
    L.count = (int *)(smem + o.count);
    L.list = (row16 *)(smem + o.list);
    L.local = A.cells;
    L.local.count = (int *)(smem + o.cell_count);
    L.local.slot = (row16 *)(smem + o.cell_slot);
    if (Tier::grid) {   /* global memory: LDG, not the generic loads a kernel argument gets */
        L.rb0 = A.rw0; L.rb1 = A.rw1; L.vw = A.v;
        __builtin_assume(__isGlobal(A.rw0) && __isGlobal(A.rw1) && __isGlobal(A.v));
    }
    return L;
}

template <class Tier, int Kind, int MaxThr>
__global__ void __launch_bounds__(MaxThr, 1) chunk_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    const int n = A.n, ltp = lanes_log2(A.tp), tp = 1 << ltp, cap = A.rows.cap;
    const int rank = Tier::rank(), nthr = Tier::size(), tid = threadIdx.x;
    int lo, hi;
    Tier::range(n, lo, hi);
    const int nown = hi - lo;
    const int sub = rank & (tp - 1), group = rank >> ltp, ngroups = nthr >> ltp;
    const int gpb = blockDim.x >> ltp, lg = tid >> ltp, nk = (nown + ngroups - 1) / ngroups;
    auto slot = [&](int k) { return k * gpb + lg; };
    const int ncell = A.cells.m * A.cells.m * A.cells.m;
    const bool staged = Tier::grid && A.stage, local_cells = Tier::replicated || staged;
    const ChunkLayout L = tier_layout<Tier>(A, smem, staged, ncell, nk * gpb);
    real4 *const rb0 = L.rb0, *const rb1 = L.rb1, *const vw = L.vw;
    int *const count = L.count;
    row16 *const list = L.list;
    const RowCells<row16> gs = L.local;
    /* this group's lists between global memory (the host path's and the next chunk's) and shared */
    auto move_lists = [&](bool in) {
        for (int k = 0; k < nk; k++) {
            const int a = k * ngroups + group, i = lo + a;
            if (a >= nown) break;
            row16 *sm = list + (size_t)slot(k) * cap, *gm = A.rows.list + (size_t)i * cap;
            if (in) rows_copy(gm, &A.rows.count[i], sm, &count[slot(k)], cap, sub, tp);
            else rows_copy(sm, &count[slot(k)], gm, &A.rows.count[i], cap, sub, tp);
        }
    };
    RebuildCount c = chunk_count(A.ctrl);

    /* the snapshot of the sample point (of the served atoms), then the first half-kick and drift
     * (the cluster's every block of all N atoms: the same arithmetic everywhere) */
    const int r0 = Tier::replicated ? tid : rank, rs = Tier::replicated ? (int)blockDim.x : nthr;
    for (int i = r0; i < n; i += rs) {
        const bool own = i >= lo && i < hi;
        real4 ri, vi;
        chunk_first_drift(A, i, own, ri, vi);
        rb0[i] = ri;
        if (own) vw[i - lo] = vi;
    }
    if (!Tier::replicated)   /* both (a replay may find them used) */
        for (int k = rank; k < 2 * ncell; k += nthr) A.cells.count[k] = 0;
    if (local_cells)
        for (int q = tid; q < ncell; q += blockDim.x) gs.count[q] = 0;
    if (!c.due) move_lists(true);   /* unless the first step rebuilds anyway */
    if (Tier::leader()) {
        *A.ctrl_snap = *A.ctrl;
        if (Tier::grid) GridSync::clear(A.scratch);
    }
    Tier::begin();
    Tier::sync();   /* the cluster's: every block runs, its barriers ready, before any remote access */

    ChunkSums S = {0, 0, 0, 0, 0, 0, 0};
    double vv_last = 0;
    int built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *const rc = cur ? rb1 : rb0, *const rnext = cur ? rb0 : rb1;   /* selects, not an array: LDG, not LD */
        if (c.due) {
            RowCells<row16> g = A.cells;   /* global cells: this build's count array; the other one zeroed for the next */
            const int par = (int)(c.builds_total & 1);
            g.count += par * ncell;
            if (Tier::replicated) {   /* nobody else writes buffer cur this step: the wrap is local */
                for (int i = tid; i < n; i += blockDim.x)
                    S.cell_max = max(S.cell_max, rows_wrap_bin(i, rc, A.box.L, gs));
                __syncthreads();
            } else if (staged) {
                /* every block copies the wrapped positions and bins them into its own cells: the
                 * build's loads then wait on shared memory, not on L2 (one chain per cell) */
                for (int i = rank; i < n; i += nthr) wrap_atom(rc, i, A.box.L);
                Tier::sync();
                for (int i = tid; i < n; i += blockDim.x) {
                    const real4 ri = rc[i];
                    L.spos[i] = ri;
                    if (gs.m) S.cell_max = max(S.cell_max, rows_bin<true>(i, ri, A.box.L, gs));
                }
                __syncthreads();
            } else {
                for (int q = rank; q < ncell; q += nthr) A.cells.count[(par ^ 1) * ncell + q] = 0;
                for (int i = rank; i < n; i += nthr) S.cell_max = max(S.cell_max, rows_wrap_bin(i, rc, A.box.L, g));
                Tier::sync();
            }
            double tot = 0;
            /* n2 in the block and the cluster: a warp per atom, then a barrier (39 ns) before the
             * t_p-lane groups read the lists; grid, and cells: each atom's own t_p lanes, so that
             * in the grid no grid sync (1 us) follows */
            const int lb = Tier::grid || g.m ? ltp : 5, btp = 1 << lb, bsub = rank & (btp - 1), bgroup = rank >> lb;
            for (int a0 = 0, ka = 0; a0 < nown; a0 += nthr >> lb, ka++) {   /* the same trip count in every warp */
                const int a = a0 + bgroup, i = lo + a, sl = Tier::grid ? slot(ka) : a;
                const bool act = a < nown;
                row16 *const li = list + (size_t)(act ? sl : 0) * cap;
                /* two calls, so that each knows where its positions and cells are */
                const int m = local_cells
                                  ? rows_build(i, act, bsub, btp, Tier::replicated ? rc : L.spos, n, A.box, A.rn2,
                                                      gs, li, cap)
                                  : rows_build(i, act, bsub, btp, rc, n, A.box, A.rn2, g, li, cap);
                if (act && bsub == 0) {
                    count[sl] = m;
                    tot += m;
                    S.nb_max = max(S.nb_max, m);
                }
            }
            if (Tier::grid && !staged) __syncwarp();   /* an atom's list and count are read by its own lanes only */
            else __syncthreads();   /* the lists, read by other groups; the block's cells, read by every build */
            if (local_cells)
                for (int q = tid; q < ncell; q += blockDim.x) gs.count[q] = 0;   /* a sync away from the next bin */
            S.nb_last = tot;
            if (step > A.equil) S.nb_prod += tot;
            built = 1;
        }
        Tier::before_forces(n, k, last);
        double vv_t = 0;
        for (int ka = 0; ka < nk; ka++) {
            const int a = ka * ngroups + group, i = lo + a, sl = slot(ka);
            const bool act = a < nown;
            const int cnt = act ? min(count[sl], cap) : 0;
            const bool lead = act && sub == 0;
            /* the grid's loads before the forces, so that their L2 latency hides behind the pair
             * loop's; in the cluster after them (shared memory), by every lane of the group: each
             * lane takes its share of the stores into the cluster's blocks */
            real4 ri = make_real4(0, 0, 0, 0), vi = ri, rn = ri;
            if (!Tier::replicated && lead) { ri = rc[i]; vi = vw[a]; }
            const ForceSum f = rows_force_if<Kind>(last, i, act, sub, tp, rc, list + (size_t)(act ? sl : 0) * cap, cnt,
                                                    A.box, A.pot);
            if (Tier::replicated && act) { ri = rc[i]; vi = vw[a]; }
            if (Tier::replicated ? act : lead)
                if (chunk_atom_end(i, f, ri, vi, last, sub == 0, A, vv_t, S, rn)) Tier::publish(i, rn, rnext, k, sub, tp);
            if (Tier::replicated) __syncwarp();   /* the group's lanes have read vw[a] */
            if (lead) vw[a] = vi;
        }
        const double vv = Tier::step_max(A.scratch, k, vv_t);
        decide_rebuild(c, vv, A.ddt, A.threshold, A.equil);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums and the lists' statistics */
    if (built) move_lists(false);   /* for the next chunk and the host path */
    const ChunkSums T = Tier::totals(A.scratch, S);
    if (Tier::leader()) chunk_done(c, T, built, vv_last, A);
}

}  // namespace

/* The instance of chunk_kernel for the tier, potential and bound (oc_by_bound; the block tier's:
 * 1024 threads). */
const void *onchip_kernel(int tier, int kind, int bound)
{
    const void *fn = nullptr;
    by_tier(tier, [&](auto t) {
        using T = decltype(t);
        dispatch_potential(kind, [&](auto k) {
            constexpr int K = decltype(k)::value;
            if constexpr (std::is_same<T, BlockSync>::value) fn = (const void *)chunk_kernel<T, K, 1024>;
            else oc_by_bound(bound, [&](auto b) { fn = (const void *)chunk_kernel<T, K, decltype(b)::value>; });
        });
    });
    return fn;
}
