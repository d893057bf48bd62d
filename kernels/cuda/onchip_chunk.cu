/* onchip_chunk.cu - gpu-onchip's chunk kernel (onchip.cuh): one launch runs every step between
 * two sample points. One step, written once, over three tiers, each a policy type saying where
 * the state lives, which atoms a thread's group serves, and how a step's new positions, its
 * largest v^2 and the chunk's sums reach the other threads:
 *   BlockTier    one thread block of 1024 threads; positions (two buffers: a step reads one,
 *                drifts into the other, so a step needs one __syncthreads), velocities, counts
 *                and the 16-bit lists in shared memory. N is limited by shared memory.
 *   GridTier     a cooperative grid (cg::this_grid().sync()) over global memory (L2): positions
 *                in two buffers, velocities in place; each block's groups keep their atoms'
 *                lists in its shared memory (so a pair waits on one L2 load, the position).
 *   ClusterTier  a thread-block cluster of C blocks (--cluster), block b owning atoms
 *                [b N / C, (b + 1) N / C); every block holds all N positions (two buffers) in
 *                its shared memory and its own atoms' velocities and lists; each step's new
 *                positions and largest v^2 are stored into every block through distributed
 *                shared memory (st.async), each block waiting on its own mbarrier.
 * onchip_tier.cu picks the tier and refuses one that does not fit (one line naming the limit).
 *
 * A step: forces of each atom from its list (t_p lanes per atom, no Newton 3, no atomics), the
 * second half-kick, v^2, the next step's half-kick and drift; the tier's one exchange for the
 * largest v^2; then every thread takes the same rebuild decision (decide.cuh's, in double). A
 * rebuild wraps (with --list cells, bins each atom into a cell grid), syncs, and builds the
 * lists (onchip_build_list). The block and the unstaged grid bin into the cell grid in global
 * memory (counts by atomicAdd into one of two count arrays while the other, the next build's,
 * is zeroed). The cluster, and the grid where all N positions fit in each block's shared memory
 * with every block resident (ChunkArgs.stage), bin every atom into a cell grid of the block's
 * own: the cluster into its full copy (equal in every block, so no cross-block traffic), the
 * staged grid after a grid sync and a copy of the wrapped positions; the 27-cell walk then
 * waits on shared memory instead of a chain of L2 loads per cell (profiled at lammps-lj 4096:
 * ~40% of the step's samples in the unstaged build). In the grid each atom's list is built and
 * read by its own lanes, so no grid sync follows; the block and the cluster build n2 with a warp
 * per atom (cells with the force groups) and one block barrier. Both load the lists at the
 * chunk's start and store them at its end (when it rebuilt). Energies and virial are computed
 * at the chunk's last step only (oc_step_forces), and summed with v^2 there. */
#include "onchip.cuh"

#include <cooperative_groups.h>
#include <cuda/ptx>

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

namespace {

/* ---- a step's pieces, on every tier ---------------------------------------------------- */

/* A rebuild's wrap of atom i in the positions r, and with cells its bin: the occupancy it saw
 * (0 for n2). */
__device__ __forceinline__ int oc_wrap_bin(int i, real4 *r, real L, const OnchipCells &g)
{
    real4 ri = r[i];
    ri.x = pbc_wrap(ri.x, L); ri.y = pbc_wrap(ri.y, L); ri.z = pbc_wrap(ri.z, L);
    r[i] = ri;
    return g.m ? onchip_cells_bin<true>(i, ri, L, g) : 0;
}

/* onchip_force_atom in a chunk kernel's step: u and the virial at the chunk's last step only
 * (the sample point's sums); `last` is uniform, and both instances inline. */
template <int Kind>
__device__ __forceinline__ ForceSum oc_step_forces(bool last, int i, bool active, int sub, int tp, const real4 *r,
                                                   const onchip_idx *list_i, int count, const PbcBox &box,
                                                   const PairPotential &pot)
{
    return last ? onchip_force_atom<Kind, true>(i, active, sub, tp, r, list_i, count, box, pot)
                : onchip_force_atom<Kind, false>(i, active, sub, tp, r, list_i, count, box, pot);
}

/* What a chunk kernel sums over its threads: the sample point's energies and virial, the lists'
 * entries (last build, production builds) and the largest list and cell occupancy. */
struct OcSums {
    double ukin, upot, vir, nb_last, nb_prod;
    int nb_max, cell_max;
};

/* The step's tail of atom i after its forces f, on every tier: the second half-kick (its
 * v^2 into vv_t), then the next step's half-kick and drift into r_next (returns 1), or at the
 * chunk's last step the sample point: where `store`, the state after the kick into A's arrays
 * and its sums into S (returns 0). ri, vi: the atom's position and velocity (loaded by the
 * caller before the forces, so that in the grid their L2 latency hides behind the pair loop's),
 * vi kicked in place. */
__device__ __forceinline__ int oc_step_tail(int i, const ForceSum &f, const real4 &ri, real4 &vi, bool last, bool store,
                                            const ChunkArgs &A, double &vv_t, OcSums &S, real4 &r_next)
{
    const real4 ai = make_real4(f.fx, f.fy, f.fz, 0);
    half_kick(vi, ai, A.half_dt);
    const double vv = speed2(vi);
    vv_t = fmax(vv_t, vv);
    if (!last) {
        half_kick(vi, ai, A.half_dt);
        r_next = ri;
        drift(r_next, vi, A.dt);
        return 1;
    }
    if (store) {
        A.r[i] = ri;
        A.a[i] = ai;
        A.u[i] = (real)0.5 * f.u;
        A.v[i] = vi;
        S.ukin += vv;
        S.upot += (real)0.5 * f.u;
        S.vir += (real)0.5 * f.w;
    }
    return 0;
}

/* The warp's largest v^2, in every lane: non-negative doubles order as their bits, so two
 * integer warp reductions (REDUX: the high words, then the low words where the high word is the
 * largest) give the same maximum as a shuffle tree, in ~6 instructions instead of ~13 a level.
 * Every lane of the warp calls. */
__device__ __forceinline__ double oc_warp_max_vv(double vv)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(vv);
    const unsigned hi = (unsigned)(b >> 32), top = __reduce_max_sync(0xffffffffu, hi);
    const unsigned lo = __reduce_max_sync(0xffffffffu, hi == top ? (unsigned)b : 0u);
    return __longlong_as_double((long long)((unsigned long long)top << 32 | lo));
}

/* The block's totals of S (every thread calls; the result in thread 0, as block_reduce's). */
__device__ __forceinline__ OcSums oc_block_sums(const OcSums &S)
{
    OcSums t;
    t.ukin = block_reduce(S.ukin, SumOp(), 0.0);
    t.upot = block_reduce(S.upot, SumOp(), 0.0);
    t.vir = block_reduce(S.vir, SumOp(), 0.0);
    t.nb_last = block_reduce(S.nb_last, SumOp(), 0.0);
    t.nb_prod = block_reduce(S.nb_prod, SumOp(), 0.0);
    t.nb_max = block_reduce(S.nb_max, MaxOp(), 0);
    t.cell_max = block_reduce(S.cell_max, MaxOp(), 0);
    return t;
}

/* The sample point from the chunk's totals T (the whole tier's; c: the rebuild count every thread
 * kept; vv_last: the last step's largest v^2): the control block and the sums where the host
 * reads them (mapped memory: one event, no copy), by one thread. */
__device__ __forceinline__ void oc_chunk_done(const RebuildCount &c, const OcSums &T, int built, double vv_last,
                                              const ChunkArgs &A)
{
    DeviceControl d = *A.ctrl;
    rebuild_count_copy(d, c);
    d.nbr_max_seen = max(d.nbr_max_seen, T.nb_max);
    d.cell_max_seen = max(d.cell_max_seen, T.cell_max);
    if (built) d.nbr_last = (unsigned long long)T.nb_last;
    d.nbr_sum_prod += T.nb_prod;
    *A.ctrl = d;
    *A.ctrl_host = d;
    A.props[PART_UKIN] = T.ukin; A.props[PART_UPOT] = T.upot; A.props[PART_VIRIAL] = T.vir; A.props[PART_VVMAX] = vv_last;
}

/* A chunk kernel's threads each keep the rebuild count (decide.cuh): the step's largest v^2 is
 * the same everywhere, so are the decisions. */
__device__ __forceinline__ RebuildCount oc_count(const DeviceControl *ctrl)
{
    RebuildCount c;
    rebuild_count_copy(c, *ctrl);
    return c;
}

/* Where a chunk's state lives in this block, as a tier lays it out (OcSmem: the offsets in its
 * dynamic shared memory). */
struct ChunkLayout {
    real4 *rb0, *rb1;   /* the two position buffers */
    real4 *vw;          /* the served atoms' velocities, by i - lo */
    int *count;         /* the served atoms' counts and lists, by slot */
    onchip_idx *list;
    OnchipCells local;  /* the block's own cell grid (cluster, staged grid) */
    real4 *spos;        /* the staged grid's copy of the positions */
};

/* The pointers into this block's dynamic shared memory at the offsets o: the two position
 * buffers (or the staged grid's copy) at o.pos, then the rest as OcSmem orders them. */
__device__ __forceinline__ ChunkLayout oc_layout(const OcSmem &o, unsigned char *smem, const ChunkArgs &A)
{
    ChunkLayout L;
    L.rb0 = L.spos = (real4 *)(smem + o.pos);
    L.rb1 = L.rb0 + A.n;
    L.vw = (real4 *)(smem + o.vel);
    L.count = (int *)(smem + o.count);
    L.list = (onchip_idx *)(smem + o.list);
    L.local = A.cells;
    L.local.count = (int *)(smem + o.cell_count);
    L.local.slot = (onchip_idx *)(smem + o.cell_slot);
    return L;
}

struct BlockTier {
    static constexpr bool grid = false, replicated = false;
    __device__ static int rank() { return threadIdx.x; }
    __device__ static int size() { return blockDim.x; }
    __device__ static bool leader() { return threadIdx.x == 0; }
    __device__ static void sync() { __syncthreads(); }
    __device__ static void range(int n, int &lo, int &hi) { lo = 0; hi = n; }
    __device__ static ChunkLayout layout(const ChunkArgs &A, unsigned char *smem, bool, int, int)
    {
        return oc_layout(oc_smem_block(A.n, A.cap), smem, A);
    }
    __device__ static void begin() {}
    __device__ static void before_forces(const ChunkArgs &, int, bool) {}
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int, int, int) { rnext[i] = rn; }
    __device__ static double step_max(const ChunkArgs &, int k, double vv_t)
    {
        __shared__ double part[2][32];
        const int lane = threadIdx.x & 31;
        const double w = oc_warp_max_vv(vv_t);   /* every lane of the warp */
        if (lane == 0) part[k & 1][threadIdx.x >> 5] = w;
        __syncthreads();
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): warp 0's largest v^2 */
        const double vv = lane == 0 ? part[k & 1][0] : 0.0;
#else
        const double vv = lane < (int)(blockDim.x >> 5) ? part[k & 1][lane] : 0.0;
#endif
        return oc_warp_max_vv(vv);
    }
    __device__ static OcSums totals(const ChunkArgs &, const OcSums &S) { return oc_block_sums(S); }
};

struct GridTier {
    static constexpr bool grid = true, replicated = false;
    __device__ static int rank() { return blockIdx.x * blockDim.x + threadIdx.x; }
    __device__ static int size() { return gridDim.x * blockDim.x; }
    __device__ static bool leader() { return rank() == 0; }
    __device__ static void sync() { cg::this_grid().sync(); }
    __device__ static void range(int n, int &lo, int &hi) { lo = 0; hi = n; }
    /* slots: the block's groups x the atoms each serves (their lists and counts) */
    __device__ static ChunkLayout layout(const ChunkArgs &A, unsigned char *smem, bool staged, int ncell, int slots)
    {
        /* the lists (and a staged build) from smem, so that their loads are LDS, not generic */
        ChunkLayout L = oc_layout(oc_smem_grid(A.n, slots, A.cap, staged, ncell, A.cells.cap), smem, A);
        L.rb0 = A.rw0; L.rb1 = A.rw1; L.vw = A.v;
        /* global memory: LDG, not the generic loads a kernel argument gets */
        __builtin_assume(__isGlobal(A.rw0) && __isGlobal(A.rw1) && __isGlobal(A.v));
        return L;
    }
    __device__ static void begin() {}
    __device__ static void before_forces(const ChunkArgs &, int, bool) {}
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int, int, int) { rnext[i] = rn; }
    /* vv_bits: three slots in rotation, so that one grid sync per step suffices */
    __device__ static double step_max(const ChunkArgs &A, int k, double vv_t)
    {
        GridScratch *GS = A.scratch;
        const double vv = oc_warp_max_vv(vv_t);
        if ((threadIdx.x & 31) == 0) atomicMax(&GS->vv_bits[k % 3], (unsigned long long)__double_as_longlong(vv));
        sync();
        const double most = __longlong_as_double((long long)__ldcg(&GS->vv_bits[k % 3]));
        if (rank() == 0) GS->vv_bits[(k + 2) % 3] = 0;   /* last read at k - 1, next written at k + 2 */
        return most;
    }
    __device__ static OcSums totals(const ChunkArgs &A, const OcSums &S)
    {
        GridScratch *GS = A.scratch;
        OcSums T = oc_block_sums(S);
        if (threadIdx.x == 0) {
            atomicAdd(&GS->sums[0], T.ukin); atomicAdd(&GS->sums[1], T.upot); atomicAdd(&GS->sums[2], T.vir);
            atomicAdd(&GS->sums[3], T.nb_last); atomicAdd(&GS->sums[4], T.nb_prod);
            atomicMax(&GS->nbr_max, T.nb_max); atomicMax(&GS->cell_max, T.cell_max);
        }
        sync();
        if (rank() == 0) {
            T.ukin = __ldcg(&GS->sums[0]); T.upot = __ldcg(&GS->sums[1]); T.vir = __ldcg(&GS->sums[2]);
            T.nb_last = __ldcg(&GS->sums[3]); T.nb_prod = __ldcg(&GS->sums[4]);
            T.nb_max = __ldcg(&GS->nbr_max); T.cell_max = __ldcg(&GS->cell_max);
        }
        return T;
    }
};

/* Slots in every block's shared memory that the other blocks of the cluster write, and the
 * mbarriers their stores complete on. */
struct ClusterShared {
    unsigned long long vv[2][CLUSTER_MAX * 32];   /* each warp's largest v^2 of the step (bits), rank r's
                                                     warp w at r x warps + w; steps k & 1 */
    OcSums sums[CLUSTER_MAX];                     /* the chunk's sums by rank (rank 0's copy is read) */
    uint64_t bar[2];                              /* the step's arrivals, steps k & 1 */
};

/* An asynchronous store into a block of the cluster that completes its bytes on that block's
 * mbarrier `bar` (st.async: the receiver waits on its own barrier; no cluster barrier, whose
 * release waits for every remote store's acknowledgement: ~0.6 us a step at 512, onchip.md). */
__device__ __forceinline__ void oc_st_async(real4 *to, const real4 &v, uint64_t *bar)
{
    const uint32_t *w = (const uint32_t *)&v;
    for (int q = 0; q < (int)(sizeof(real4) / 16); q++) {
        const uint32_t words[4] = {w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]};
        ptx::st_async((uint32_t *)to + 4 * q, words, bar);
    }
}

/* A step reads buffer cur of every block's full copy and each block stores its own atoms'
 * drifted positions into buffer cur ^ 1 of every block, itself included, and each warp its
 * largest v^2 into its slot of vv[k & 1] in every block, as st.async that complete on the
 * receiver's mbarrier bar[k & 1]. Each block's thread 0 expects the step's bytes there (N
 * positions and the slots; the slots only at the chunk's last step, which drifts nothing), and
 * the block waits for that phase: then its buffer cur ^ 1 and the slots are complete. No
 * barrier per step, cluster or block, because the data say what a barrier would:
 *  - a block sends an atom's position after its group's forces, so when block q has every
 *    position of block b's step k, b has finished reading its buffer cur of step k (and its
 *    lists: the rebuild before the forces ends in a __syncthreads); q writes that buffer, as
 *    cur ^ 1 of step k + 1, only after that, and so does b's own next rebuild;
 *  - slot vv[k & 1] and bar[k & 1] are next used at step k + 2, which a sender reaches only
 *    with the slots of step k + 1 from every warp of the receiver, sent after that warp's
 *    wait and read of step k.
 * Every block reads the same partials and takes the same rebuild decision; a rebuild wraps the
 * full local copy (the same arithmetic on the same values in every block, so the copies stay
 * bitwise equal). */
struct ClusterTier {
    static constexpr bool grid = false, replicated = true;
    __device__ static ClusterShared &sh()
    {
        __shared__ ClusterShared s;
        return s;
    }
    __device__ static int blocks() { return (int)cg::this_cluster().num_blocks(); }
    __device__ static int me() { return (int)cg::this_cluster().block_rank(); }
    __device__ static int rank() { return threadIdx.x; }
    __device__ static int size() { return blockDim.x; }
    __device__ static bool leader() { return me() == 0 && threadIdx.x == 0; }
    __device__ static void sync() { cg::this_cluster().sync(); }
    __device__ static void range(int n, int &lo, int &hi)
    {
        const int C = blocks(), b = me();
        lo = (int)((long)b * n / C);
        hi = (int)((long)(b + 1) * n / C);
    }
    __device__ static ChunkLayout layout(const ChunkArgs &A, unsigned char *smem, bool, int ncell, int)
    {
        return oc_layout(oc_smem_cluster(A.n, blocks(), A.cap, ncell, A.cells.cap), smem, A);
    }
    __device__ static void begin()
    {
        if (threadIdx.x == 0) {
            ptx::mbarrier_init(&sh().bar[0], 1);
            ptx::mbarrier_init(&sh().bar[1], 1);
            ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        }
    }
    /* this step's bytes: the N positions (not at the last step) and C x warps slots */
    __device__ static void before_forces(const ChunkArgs &A, int k, bool last)
    {
        if (threadIdx.x == 0)
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &sh().bar[k & 1],
                                           (last ? 0u : (uint32_t)(A.n * sizeof(real4))) +
                                               (uint32_t)(blocks() * (blockDim.x >> 5) * sizeof(uint64_t)));
    }
    /* the group's lanes share the stores into the C blocks */
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int k, int sub, int tp)
    {
        cg::cluster_group cluster = cg::this_cluster();
        for (int q = sub; q < blocks(); q += tp)
            oc_st_async(cluster.map_shared_rank(rnext + i, q), rn, cluster.map_shared_rank(&sh().bar[k & 1], q));
    }
    __device__ static double step_max(const ChunkArgs &, int k, double vv_t)
    {
        cg::cluster_group cluster = cg::this_cluster();
        const int C = blocks(), nwarps = blockDim.x >> 5, lane = threadIdx.x & 31;
        uint64_t *const b = &sh().bar[k & 1];
        /* each warp's largest v^2 into its slot in every block (no block barrier before the
         * sends), then the wait for the step's arrivals */
        const uint64_t bits = (uint64_t)__double_as_longlong(oc_warp_max_vv(vv_t));
        for (int q = lane; q < C; q += 32)
            ptx::st_async((uint64_t *)cluster.map_shared_rank(&sh().vv[k & 1][me() * nwarps + (threadIdx.x >> 5)], q),
                          bits, cluster.map_shared_rank(b, q));
        while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, b, (uint32_t)((k >> 1) & 1))) {
        }
        /* the C x warps partials, the same maximum in every lane (as integers: the bits order) */
        unsigned long long most = 0;
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): rank 0's largest v^2 */
        for (int q = lane; q < nwarps; q += 32) most = max(most, sh().vv[k & 1][q]);
#else
        for (int q = lane; q < C * nwarps; q += 32) most = max(most, sh().vv[k & 1][q]);
#endif
        return oc_warp_max_vv(__longlong_as_double((long long)most));
    }
    /* each block's sums into rank 0's slots, summed there in rank order */
    __device__ static OcSums totals(const ChunkArgs &, const OcSums &S)
    {
        cg::cluster_group cluster = cg::this_cluster();
        const OcSums B = oc_block_sums(S);
        if (threadIdx.x == 0) *cluster.map_shared_rank(&sh().sums[me()], 0) = B;
        cluster.sync();   /* the sums are in; and no block exits while another may still write to it */
        OcSums T = {0, 0, 0, 0, 0, 0, 0};
        if (leader())
            for (int q = 0; q < blocks(); q++) {
                const OcSums &b = sh().sums[q];
                T.ukin += b.ukin; T.upot += b.upot; T.vir += b.vir; T.nb_last += b.nb_last; T.nb_prod += b.nb_prod;
                T.nb_max = max(T.nb_max, b.nb_max);
                T.cell_max = max(T.cell_max, b.cell_max);
            }
        return T;
    }
};

/* MaxThr: the most threads a block of this instance has (oc_by_bound: 512 where the
 * block has no more, so that a thread may hold 128 registers, not 64, without spilling).
 * The tier's threads serve atoms [lo, hi): group g of t_p lanes the atoms lo + k NG + g, k < nk,
 * their lists and counts at slot k gpb + lg of the block's shared memory (in the block and the
 * cluster that is i - lo). */
template <class Tier, int Kind, int MaxThr>
__global__ void __launch_bounds__(MaxThr, 1) chunk_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    const int n = A.n, ltp = oc_log2(A.tp), tp = 1 << ltp, cap = A.cap;
    const int rank = Tier::rank(), nthr = Tier::size(), tid = threadIdx.x;
    int lo, hi;
    Tier::range(n, lo, hi);
    const int nown = hi - lo;
    const int sub = rank & (tp - 1), group = rank >> ltp, ngroups = nthr >> ltp;
    const int gpb = blockDim.x >> ltp, lg = tid >> ltp, nk = (nown + ngroups - 1) / ngroups;
    auto slot = [&](int k) { return k * gpb + lg; };
    const int ncell = A.cells.m * A.cells.m * A.cells.m;
    const bool staged = Tier::grid && A.stage, local_cells = Tier::replicated || staged;
    const ChunkLayout L = Tier::layout(A, smem, staged, ncell, nk * gpb);
    real4 *const rb0 = L.rb0, *const rb1 = L.rb1, *const vw = L.vw;
    int *const count = L.count;
    onchip_idx *const list = L.list;
    const OnchipCells gs = L.local;
    /* this group's lists between global memory (the host path's and the next chunk's) and shared */
    auto move_lists = [&](bool in) {
        for (int k = 0; k < nk; k++) {
            const int a = k * ngroups + group, i = lo + a;
            if (a >= nown) break;
            unsigned *sm = (unsigned *)(list + (size_t)slot(k) * cap), *gm = (unsigned *)(A.list + (size_t)i * cap);
            for (int q = sub; q < cap / 2; q += tp)
                if (in) sm[q] = gm[q];
                else gm[q] = sm[q];
            if (sub == 0) {
                if (in) count[slot(k)] = A.count[i];
                else A.count[i] = count[slot(k)];
            }
        }
    };
    RebuildCount c = oc_count(A.ctrl);

    /* the snapshot of the sample point (of the served atoms), then the first half-kick and drift
     * (the cluster's every block of all N atoms: the same arithmetic everywhere) */
    const int r0 = Tier::replicated ? tid : rank, rs = Tier::replicated ? (int)blockDim.x : nthr;
    for (int i = r0; i < n; i += rs) {
        real4 ri = A.r[i], vi = A.v[i];
        const real4 ai = A.a[i];
        const bool own = i >= lo && i < hi;
        if (own) { A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai; }
        half_kick(vi, ai, A.half_dt);
        drift(ri, vi, A.dt);
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
        if (Tier::grid) {
            GridScratch *GS = A.scratch;
            for (int k = 0; k < 3; k++) GS->vv_bits[k] = 0;
            for (int k = 0; k < 5; k++) GS->sums[k] = 0;
            GS->nbr_max = GS->cell_max = 0;
        }
    }
    Tier::begin();
    Tier::sync();   /* the cluster's: every block runs, its barriers ready, before any remote access */

    OcSums S = {0, 0, 0, 0, 0, 0, 0};
    double vv_last = 0;
    int built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *const rc = cur ? rb1 : rb0, *const rnext = cur ? rb0 : rb1;   /* selects, not an array: LDG, not LD */
        if (c.due) {
            OnchipCells g = A.cells;   /* global cells: this build's count array; the other one zeroed for the next */
            const int par = (int)(c.builds_total & 1);
            g.count += par * ncell;
            if (Tier::replicated) {   /* nobody else writes buffer cur this step: the wrap is local */
                for (int i = tid; i < n; i += blockDim.x) S.cell_max = max(S.cell_max, oc_wrap_bin(i, rc, A.box.L, gs));
                __syncthreads();
            } else if (staged) {
                /* every block copies the wrapped positions and bins them into its own cells: the
                 * build's loads then wait on shared memory, not on L2 (one chain per cell) */
                for (int i = rank; i < n; i += nthr) oc_wrap_bin(i, rc, A.box.L, OnchipCells{});
                Tier::sync();
                for (int i = tid; i < n; i += blockDim.x) {
                    const real4 ri = rc[i];
                    L.spos[i] = ri;
                    if (gs.m) S.cell_max = max(S.cell_max, onchip_cells_bin<true>(i, ri, A.box.L, gs));
                }
                __syncthreads();
            } else {
                for (int q = rank; q < ncell; q += nthr) A.cells.count[(par ^ 1) * ncell + q] = 0;
                for (int i = rank; i < n; i += nthr) S.cell_max = max(S.cell_max, oc_wrap_bin(i, rc, A.box.L, g));
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
                onchip_idx *const li = list + (size_t)(act ? sl : 0) * cap;
                /* two calls, so that each knows where its positions and cells are */
                const int m = local_cells
                                  ? onchip_build_list(i, act, bsub, btp, Tier::replicated ? rc : L.spos, n, A.box, A.rn2,
                                                      gs, li, cap)
                                  : onchip_build_list(i, act, bsub, btp, rc, n, A.box, A.rn2, g, li, cap);
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
        Tier::before_forces(A, k, last);
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
            const ForceSum f = oc_step_forces<Kind>(last, i, act, sub, tp, rc, list + (size_t)(act ? sl : 0) * cap, cnt,
                                                     A.box, A.pot);
            if (Tier::replicated && act) { ri = rc[i]; vi = vw[a]; }
            if (Tier::replicated ? act : lead)
                if (oc_step_tail(i, f, ri, vi, last, sub == 0, A, vv_t, S, rn)) Tier::publish(i, rn, rnext, k, sub, tp);
            if (Tier::replicated) __syncwarp();   /* the group's lanes have read vw[a] */
            if (lead) vw[a] = vi;
        }
        const double vv = Tier::step_max(A, k, vv_t);
        decide_rebuild(c, vv, A.ddt, A.threshold, A.equil);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums and the lists' statistics */
    if (built) move_lists(false);   /* for the next chunk and the host path */
    const OcSums T = Tier::totals(A, S);
    if (Tier::leader()) oc_chunk_done(c, T, built, vv_last, A);
}

/* The dynamic shared memory one block of tier Tier may have (the opt-in limit less the static),
 * granted to its kernels of potential `kind` (the block tier: 1024 threads only); the cluster's
 * also asks for non-portable cluster sizes. */
template <class Tier>
int prepare(int optin, int kind)
{
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, chunk_kernel<Tier, POT_LJ, 1024>));
    const int limit = optin - (int)fa.sharedSizeBytes;
    dispatch_potential(kind, [&](auto k) {
        constexpr int K = decltype(k)::value;
        auto grant = [&](const void *f) {
            CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
            /* 16 blocks per cluster where the device allows it (sm_90 does); refused later otherwise */
            if (Tier::replicated && cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
                (void)cudaGetLastError();
        };
        if constexpr (!std::is_same<Tier, BlockTier>::value) grant((const void *)chunk_kernel<Tier, K, 512>);
        grant((const void *)chunk_kernel<Tier, K, 1024>);
    });
    return limit;
}

/* A launch of C blocks of `threads` with `smem` bytes each, as one cluster. */
cudaLaunchConfig_t cluster_config(cudaLaunchAttribute *at, int C, int threads, size_t smem, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(C); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = at; cfg.numAttrs = 1;
    return cfg;
}

}  // namespace

int onchip_block_prepare(int optin, int kind) { return prepare<BlockTier>(optin, kind); }
int onchip_grid_prepare(int optin, int kind) { return prepare<GridTier>(optin, kind); }
int onchip_cluster_prepare(int optin, int kind) { return prepare<ClusterTier>(optin, kind); }

void onchip_block_launch(const ChunkArgs &A, int kind, int threads, size_t smem, cudaStream_t stream)
{
    dispatch_potential(kind, [&](auto k) { chunk_kernel<BlockTier, decltype(k)::value, 1024><<<1, threads, smem, stream>>>(A); });
}

int onchip_grid_per_sm(int kind, int threads, size_t smem, int bound)
{
    int per_sm = 0;
    dispatch_potential(kind, [&](auto k) {
        oc_by_bound(bound, [&](auto b) {
            CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
                &per_sm, chunk_kernel<GridTier, decltype(k)::value, decltype(b)::value>, threads, smem));
        });
    });
    return per_sm;
}

void onchip_grid_launch(ChunkArgs A, int kind, int blocks, int threads, size_t smem, int bound, cudaStream_t stream)
{
    dispatch_potential(kind, [&](auto k) {
        oc_by_bound(bound, [&](auto b) {
            void *args[] = {&A};
            CUDA_CHECK(cudaLaunchCooperativeKernel(
                (const void *)chunk_kernel<GridTier, decltype(k)::value, decltype(b)::value>, blocks, threads, args,
                smem, stream));
        });
    });
}

cudaError_t onchip_cluster_occupancy(int kind, int C, int threads, size_t smem, int *nclusters)
{
    cudaLaunchAttribute at[1];
    const cudaLaunchConfig_t cfg = cluster_config(at, C, threads, smem, 0);
    cudaError_t e = cudaSuccess;
    dispatch_potential(kind, [&](auto k) {
        oc_by_bound(threads, [&](auto b) {
            e = cudaOccupancyMaxActiveClusters(nclusters, chunk_kernel<ClusterTier, decltype(k)::value, decltype(b)::value>,
                                               &cfg);
        });
    });
    return e;
}

void onchip_cluster_launch(const ChunkArgs &A, int kind, int C, int threads, size_t smem, cudaStream_t stream)
{
    cudaLaunchAttribute at[1];
    const cudaLaunchConfig_t cfg = cluster_config(at, C, threads, smem, stream);
    dispatch_potential(kind, [&](auto k) {
        oc_by_bound(threads, [&](auto b) {
            CUDA_CHECK(cudaLaunchKernelEx(&cfg, chunk_kernel<ClusterTier, decltype(k)::value, decltype(b)::value>, A));
        });
    });
}
