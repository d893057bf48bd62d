/* onchip_cluster.cu - the chunk kernel of gpu-onchip's cluster tier (onchip.cuh): a
 * thread-block cluster of C blocks (--cluster; default 16), block b owning N/C atoms: every block
 * a full copy of the positions (two buffers) in its shared memory, its own atoms' velocities and
 * lists; each step's new positions and largest v^2 stored into every block through distributed
 * shared memory (st.async, each block waiting on its own mbarrier); with --list cells every block also bins its full
 * copy into a cell grid in its own shared memory at a rebuild. N is limited by one block's
 * shared memory (onchip_tier.cu refuses). */
#include "onchip.cuh"

#include <cooperative_groups.h>
#include <cuda/ptx>

namespace cg = cooperative_groups;
namespace ptx = cuda::ptx;

namespace {

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

/* Slots in every block's shared memory that the other blocks of the cluster write. */
struct ClusterSlots {
    unsigned long long vv[2][CLUSTER_MAX * 32];   /* each warp's largest v^2 of the step (bits), rank r's
                                                     warp w at r x warps + w; steps k & 1 */
    OcSums sums[CLUSTER_MAX];        /* the chunk's sums by rank (rank 0's copy is read) */
};

/* One cluster of C blocks, block b owning atoms [b N / C, (b + 1) N / C). Every block holds all
 * N positions in its shared memory, in two buffers: a step reads buffer cur (forces of the own
 * atoms, t_p lanes each) and each block stores its own atoms' drifted positions into buffer
 * cur ^ 1 of every block, itself included, and each warp its largest v^2 into its slot of
 * vv[k & 1] in every block, as asynchronous stores (st.async) that complete on the receiver's
 * mbarrier bar[k & 1]. Each block's thread 0 expects the step's bytes there (N positions and the
 * slots; the slots only at the chunk's last step, which drifts nothing), and the block waits for
 * that phase: then its buffer cur ^ 1 and the slots are complete. No barrier per step, cluster
 * or block, because the data say what a barrier would:
 *  - a block sends an atom's position after its group's forces, so when block q has every
 *    position of block b's step k, b has finished reading its buffer cur of step k (and its
 *    lists: the rebuild before the forces ends in a __syncthreads); q writes that buffer, as
 *    cur ^ 1 of step k + 1, only after that, and so does b's own next rebuild;
 *  - slot vv[k & 1] and bar[k & 1] are next used at step k + 2, which a sender reaches only
 *    with the slots of step k + 1 from every warp of the receiver, sent after that warp's
 *    wait and read of step k.
 * Every block reads the same partials and takes the same rebuild decision; a rebuild wraps
 * the full local copy (the same arithmetic on the same values in every block, so the copies
 * stay bitwise equal), and builds the own atoms' lists over it: n2 with one warp per atom; cells
 * with the force groups, after binning all N atoms into the block's own cell grid (no
 * cross-block traffic: the copies are equal, so every block bins the same atoms into the same
 * cells, in its own slot order; the counts zeroed after the build). */
template <int Kind, int MaxThr>   /* MaxThr: onchip.cuh's oc_by_bound */
__global__ void __launch_bounds__(MaxThr, 1) cluster_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    __shared__ ClusterSlots slots;
    __shared__ uint64_t bar[2];   /* the step's arrivals, steps k & 1 */
    cg::cluster_group cluster = cg::this_cluster();
    const int n = A.n, ltp = oc_log2(A.tp), tp = 1 << ltp, cap = A.cap;
    const int C = (int)cluster.num_blocks(), me = (int)cluster.block_rank();
    const int lo = (int)((long)me * n / C), hi = (int)((long)(me + 1) * n / C), nown = hi - lo;
    const int own_max = (n + C - 1) / C;
    const int tid = threadIdx.x, nthr = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, nwarps = nthr >> 5;
    const int sub = tid & (tp - 1), group = tid >> ltp, ngroups = nthr >> ltp;
    real4 *const rb0 = (real4 *)smem, *const rb1 = rb0 + n;
    real4 *const vw = rb1 + n;                   /* own atoms' velocities, by i - lo */
    int *const count = (int *)(vw + own_max);    /* own atoms' counts and lists, by i - lo */
    int *const cell_count = count + own_max;     /* the block's cell grid: M^3 counts */
    const int ncell = A.cells.m * A.cells.m * A.cells.m;
    onchip_idx *const list = (onchip_idx *)(cell_count + ncell);
    OnchipCells g = A.cells;                     /* and its slots after the own lists */
    g.count = cell_count;
    g.slot = list + (size_t)own_max * cap;
    RebuildCount c = oc_count(A.ctrl);

    /* every block the first half-kick and drift of all N atoms into its buffer 0 (the same
     * arithmetic everywhere); the snapshot, velocities and counts of its own atoms */
    for (int i = tid; i < n; i += nthr) {
        real4 ri = A.r[i], vi = A.v[i];
        const real4 ai = A.a[i];
        if (i >= lo && i < hi) {
            A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai;
            count[i - lo] = A.count[i];
        }
        half_kick(vi, ai, A.half_dt);
        drift(ri, vi, A.dt);
        rb0[i] = ri;
        if (i >= lo && i < hi) vw[i - lo] = vi;
    }
    for (int q = tid; q < ncell; q += nthr) cell_count[q] = 0;
    if (!c.due) {   /* the own lists, unless the first step rebuilds anyway */
        const unsigned *from = (const unsigned *)(A.list + (size_t)lo * cap);
        unsigned *to = (unsigned *)list;
        for (long k = tid; k < (long)nown * cap / 2; k += nthr) to[k] = from[k];
    }
    if (me == 0 && tid == 0) *A.ctrl_snap = *A.ctrl;
    if (tid == 0) {
        ptx::mbarrier_init(&bar[0], 1);
        ptx::mbarrier_init(&bar[1], 1);
        ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
    }
    cluster.sync();   /* also: every block of the cluster runs, its barriers ready, before any remote access */

    OcSums S = {0, 0, 0, 0, 0, 0, 0};
    double vv_last = 0;
    int built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *const rc = cur ? rb1 : rb0, *const rnext = cur ? rb0 : rb1;
        if (c.due) {   /* nobody else writes buffer cur this step: the wrap is local */
            for (int i = tid; i < n; i += nthr) S.cell_max = max(S.cell_max, oc_wrap_bin(i, rc, A.box.L, g));
            __syncthreads();
            double tot = 0;
            /* n2: a warp per atom */
            const int lb = g.m ? ltp : 5, btp = 1 << lb, bsub = tid & (btp - 1), bgroup = tid >> lb;
            for (int a0 = 0; a0 < nown; a0 += nthr >> lb) {   /* the same trip count in every warp */
                const int a = a0 + bgroup;
                const bool act = a < nown;
                const int m = onchip_build_list(lo + a, act, bsub, btp, rc, n, A.box, A.rn2, g,
                                                list + (size_t)(act ? a : 0) * cap, cap);
                if (act && bsub == 0) {
                    count[a] = m;
                    tot += m;
                    S.nb_max = max(S.nb_max, m);
                }
            }
            __syncthreads();   /* the lists built, read by the force groups; the cells read by every build */
            for (int q = tid; q < ncell; q += nthr) cell_count[q] = 0;   /* for the next build, a sync away */
            S.nb_last = tot;
            if (step > A.equil) S.nb_prod += tot;
            built = 1;
        }
        uint64_t *const b = &bar[k & 1];
        if (tid == 0)   /* this step's bytes: the N positions (not at the last step) and C x warps slots */
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, b,
                                           (last ? 0u : (uint32_t)(n * sizeof(real4))) +
                                               (uint32_t)(C * nwarps * sizeof(uint64_t)));
        double vv_t = 0;
        for (int a0 = 0; a0 < nown; a0 += ngroups) {
            const int a = a0 + group, i = lo + a;
            const bool act = a < nown;
            const int cnt = act ? min(count[a], cap) : 0;
            const ForceSum f = oc_step_forces<Kind>(last, i, act, sub, tp, rc, list + (size_t)(act ? a : 0) * cap, cnt,
                                                     A.box, A.pot);
            real4 vi = make_real4(0, 0, 0, 0), ri = vi;
            if (act) {   /* every lane of the group: the same sums, the same kick; the sample point by one */
                vi = vw[a];
                if (oc_step_tail(i, f, rc[i], vi, last, sub == 0, A, vv_t, S, ri))
                    for (int q = sub; q < C; q += tp)
                        oc_st_async(cluster.map_shared_rank(rnext + i, q), ri, cluster.map_shared_rank(b, q));
            }
            __syncwarp();   /* the group's lanes have read vw[a] */
            if (act && sub == 0) vw[a] = vi;
        }
        /* each warp's largest v^2 into its slot in every block (no block barrier before the
         * sends), then the wait for the step's arrivals */
        const uint64_t bits = (uint64_t)__double_as_longlong(oc_warp_max_vv(vv_t));
        for (int q = lane; q < C; q += 32)
            ptx::st_async((uint64_t *)cluster.map_shared_rank(&slots.vv[k & 1][me * nwarps + warp], q), bits,
                          cluster.map_shared_rank(b, q));
        while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, b, (uint32_t)((k >> 1) & 1))) {
        }
        /* the C x warps partials, the same maximum in every lane (as integers: the bits order) */
        unsigned long long most = 0;
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): rank 0's largest v^2 */
        for (int q = lane; q < nwarps; q += 32) most = max(most, slots.vv[k & 1][q]);
#else
        for (int q = lane; q < C * nwarps; q += 32) most = max(most, slots.vv[k & 1][q]);
#endif
        double vv = oc_warp_max_vv(__longlong_as_double((long long)most));
        decide_rebuild(c, vv, A.ddt, A.threshold, A.equil);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums: each block's into rank 0's slots, summed there in rank order */
    const OcSums B = oc_block_sums(S);
    if (built) {   /* the own lists back to global memory for the next chunk */
        const unsigned *from = (const unsigned *)list;
        unsigned *to = (unsigned *)(A.list + (size_t)lo * cap);
        for (long k = tid; k < (long)nown * cap / 2; k += nthr) to[k] = from[k];
        for (int a = tid; a < nown; a += nthr) A.count[lo + a] = count[a];
    }
    if (tid == 0) *cluster.map_shared_rank(&slots.sums[me], 0) = B;
    cluster.sync();   /* the sums are in; and no block exits while another may still write to it */
    if (me == 0 && tid == 0) {
        OcSums T = {0, 0, 0, 0, 0, 0, 0};
        for (int q = 0; q < C; q++) {
            const OcSums &b = slots.sums[q];
            T.ukin += b.ukin; T.upot += b.upot; T.vir += b.vir; T.nb_last += b.nb_last; T.nb_prod += b.nb_prod;
            T.nb_max = max(T.nb_max, b.nb_max);
            T.cell_max = max(T.cell_max, b.cell_max);
        }
        oc_chunk_done(c, T, built, vv_last, A);
    }
}

}  // namespace

int onchip_cluster_prepare(int optin, int kind)
{
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, cluster_kernel<POT_LJ, 1024>));
    const int limit = optin - (int)fa.sharedSizeBytes;
    dispatch_potential(kind, [&](auto k) {
        constexpr int K = decltype(k)::value;
        for (const void *f : {(const void *)cluster_kernel<K, 512>, (const void *)cluster_kernel<K, 1024>}) {
            CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
            /* 16 blocks per cluster where the device allows it (sm_90 does); refused later otherwise */
            if (cudaFuncSetAttribute(f, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
                (void)cudaGetLastError();
        }
    });
    return limit;
}

/* A launch of C blocks of `threads` with `smem` bytes each, as one cluster. */
static cudaLaunchConfig_t cluster_config(cudaLaunchAttribute *at, int C, int threads, size_t smem, cudaStream_t stream)
{
    cudaLaunchConfig_t cfg = {};
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(C); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cfg.attrs = at; cfg.numAttrs = 1;
    return cfg;
}

cudaError_t onchip_cluster_occupancy(int kind, int C, int threads, size_t smem, int *nclusters)
{
    cudaLaunchAttribute at[1];
    const cudaLaunchConfig_t cfg = cluster_config(at, C, threads, smem, 0);
    cudaError_t e = cudaSuccess;
    dispatch_potential(kind, [&](auto k) {
        oc_by_bound(threads, [&](auto b) {
            e = cudaOccupancyMaxActiveClusters(nclusters, cluster_kernel<decltype(k)::value, decltype(b)::value>, &cfg);
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
            CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_kernel<decltype(k)::value, decltype(b)::value>, A));
        });
    });
}
