/* chunk_sync.cuh - how the threads of a chunk kernel (one launch for every step between two
 * sample points) meet: a sync and reduce policy per tier, which a kernel takes as a template
 * parameter (docs/onchip.md says why each is built as it is):
 *   BlockSync    one block: __syncthreads, shared-memory partials
 *   GridSync     a cooperative grid: grid syncs, atomics into a ChunkScratch in global memory
 *   ClusterSync  a thread-block cluster whose blocks each hold every position: each step's new
 *                positions and largest v^2 stored into every block by st.async, each block
 *                waiting on its own mbarrier (no cluster barrier per step)
 * Each gives every thread the step's largest v^2 over all threads (step_max: one exchange a
 * step, so that every thread takes the same rebuild decision) and the chunk's totals at its end. */
#ifndef NBR_CHUNK_SYNC_CUH
#define NBR_CHUNK_SYNC_CUH

#include "../component_plant.h"
#include "reduce.cuh"
#include "real4.cuh"

#include <cooperative_groups.h>
#include <cuda/ptx>
#include <stdint.h>

/* What a chunk kernel sums over its threads for the sample point: energies and virial, the list
 * entries (last build, production builds), the largest row and cell occupancy. */
struct ChunkSums {
    double ukin, upot, vir, nb_last, nb_prod;
    int nb_max, cell_max;
};

/* The grid's cross-block reductions. vv_bits: the step's largest v^2 (bits of a non-negative
 * double), three slots in rotation so that one grid sync per step suffices. */
struct ChunkScratch {
    unsigned long long vv_bits[3];
    double sums[5];
    int nbr_max, cell_max;
};

enum { CLUSTER_MAX = 16 };   /* blocks per cluster at most: sm_90's non-portable size */

/* Where a chunk kernel's threads run: one block, a cooperative grid, a thread-block cluster
 * (each a policy below); auto: the program's choice. */
enum { TIER_AUTO, TIER_BLOCK, TIER_GRID, TIER_CLUSTER };

/* How a policy's kernel fn is launched and sized, on the host: `launch` runs `blocks` blocks
 * (the cluster's: one cluster of that many) of `threads` with `smem` dynamic bytes; `grant`
 * lets fn have `limit` dynamic bytes a block; `resident` says how many blocks (the cluster's:
 * clusters) of that shape the device holds at once. */
#define CHUNK_CHECK(call)                                                                        \
    do {                                                                                         \
        const cudaError_t e_ = (call);                                                           \
        if (e_ != cudaSuccess) return e_;                                                        \
    } while (0)

struct PlainLaunch {
    static cudaError_t launch(const void *fn, int blocks, int threads, size_t smem, cudaStream_t st, void **args)
    {
        return cudaLaunchKernel(fn, blocks, threads, args, smem, st);
    }
    static cudaError_t grant(const void *fn, int limit)
    {
        return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    }
    static cudaError_t resident(const void *fn, int, int threads, size_t smem, int *per_sm)
    {
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, fn, threads, smem);
    }
};

struct CooperativeLaunch : PlainLaunch {
    static cudaError_t launch(const void *fn, int blocks, int threads, size_t smem, cudaStream_t st, void **args)
    {
        return cudaLaunchCooperativeKernel(fn, blocks, threads, args, smem, st);
    }
};

struct ClusterLaunch : PlainLaunch {
    static cudaLaunchConfig_t config(cudaLaunchAttribute *at, int C, int threads, size_t smem, cudaStream_t st)
    {
        cudaLaunchConfig_t cfg = {};
        at[0].id = cudaLaunchAttributeClusterDimension;
        at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
        cfg.gridDim = dim3(C); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = smem;
        cfg.stream = st;
        cfg.attrs = at; cfg.numAttrs = 1;
        return cfg;
    }
    static cudaError_t launch(const void *fn, int C, int threads, size_t smem, cudaStream_t st, void **args)
    {
        cudaLaunchAttribute at[1];
        const cudaLaunchConfig_t cfg = config(at, C, threads, smem, st);
        return cudaLaunchKernelExC(&cfg, fn, args);
    }
    /* and non-portable cluster sizes (16 on sm_90) where the device allows them */
    static cudaError_t grant(const void *fn, int limit)
    {
        CHUNK_CHECK(PlainLaunch::grant(fn, limit));
        if (cudaFuncSetAttribute(fn, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
            (void)cudaGetLastError();
        return cudaSuccess;
    }
    static cudaError_t resident(const void *fn, int C, int threads, size_t smem, int *nclusters)
    {
        cudaLaunchAttribute at[1];
        const cudaLaunchConfig_t cfg = config(at, C, threads, smem, 0);
        return cudaOccupancyMaxActiveClusters(nclusters, fn, &cfg);
    }
};

/* The warp's largest v^2 in every lane: non-negative doubles order as their bits, so two integer
 * REDUX (high words, then low words where the high word is the largest), ~6 instructions, not a
 * shuffle tree's ~13 a level. Every lane of the warp calls. */
__device__ __forceinline__ double warp_max_vv(double vv)
{
    const unsigned long long b = (unsigned long long)__double_as_longlong(vv);
    const unsigned hi = (unsigned)(b >> 32), top = __reduce_max_sync(0xffffffffu, hi);
    const unsigned lo = __reduce_max_sync(0xffffffffu, hi == top ? (unsigned)b : 0u);
    return __longlong_as_double((long long)((unsigned long long)top << 32 | lo));
}

/* The block's totals of S, in thread 0. */
__device__ __forceinline__ ChunkSums block_sums(const ChunkSums &S)
{
    ChunkSums t;
    t.ukin = block_reduce(S.ukin, SumOp(), 0.0);
    t.upot = block_reduce(S.upot, SumOp(), 0.0);
    t.vir = block_reduce(S.vir, SumOp(), 0.0);
    t.nb_last = block_reduce(S.nb_last, SumOp(), 0.0);
    t.nb_prod = block_reduce(S.nb_prod, SumOp(), 0.0);
    t.nb_max = block_reduce(S.nb_max, MaxOp(), 0);
    t.cell_max = block_reduce(S.cell_max, MaxOp(), 0);
    return t;
}

__device__ __forceinline__ void add_sums(ChunkSums &T, const ChunkSums &b)
{
    T.ukin += b.ukin; T.upot += b.upot; T.vir += b.vir; T.nb_last += b.nb_last; T.nb_prod += b.nb_prod;
    T.nb_max = max(T.nb_max, b.nb_max);
    T.cell_max = max(T.cell_max, b.cell_max);
}

struct BlockSync : PlainLaunch {
    static constexpr bool grid = false, replicated = false;
    __device__ static int rank() { return threadIdx.x; }
    __device__ static int size() { return blockDim.x; }
    __device__ static bool leader() { return threadIdx.x == 0; }
    __device__ static void sync() { __syncthreads(); }
    __device__ static void range(int n, int &lo, int &hi) { lo = 0; hi = n; }
    __device__ static void begin() {}
    __device__ static void before_forces(int, int, bool) {}
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int, int, int) { rnext[i] = rn; }
    __device__ static double step_max(ChunkScratch *, int k, double vv_t)
    {
        __shared__ double part[2][32];
        const int lane = threadIdx.x & 31;
        const double w = warp_max_vv(vv_t);
        if (lane == 0) part[k & 1][threadIdx.x >> 5] = w;
        __syncthreads();
        double vv = lane < (int)(blockDim.x >> 5) ? part[k & 1][lane] : 0.0;
        NBR_PLANT(16, vv = lane == 0 ? part[k & 1][0] : 0.0);
        return warp_max_vv(vv);
    }
    __device__ static ChunkSums totals(ChunkScratch *, const ChunkSums &S) { return block_sums(S); }
};

struct GridSync : CooperativeLaunch {
    static constexpr bool grid = true, replicated = false;
    __device__ static int rank() { return blockIdx.x * blockDim.x + threadIdx.x; }
    __device__ static int size() { return gridDim.x * blockDim.x; }
    __device__ static bool leader() { return rank() == 0; }
    __device__ static void sync() { cooperative_groups::this_grid().sync(); }
    __device__ static void range(int n, int &lo, int &hi) { lo = 0; hi = n; }
    __device__ static void begin() {}
    __device__ static void before_forces(int, int, bool) {}
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int, int, int) { rnext[i] = rn; }
    /* the scratch zeroed by the leader before the first sync */
    __device__ static void clear(ChunkScratch *GS)
    {
        for (int k = 0; k < 3; k++) GS->vv_bits[k] = 0;
        for (int k = 0; k < 5; k++) GS->sums[k] = 0;
        GS->nbr_max = GS->cell_max = 0;
    }
    __device__ static double step_max(ChunkScratch *GS, int k, double vv_t)
    {
        const double vv = warp_max_vv(vv_t);
        if ((threadIdx.x & 31) == 0 && (COMPONENT_PLANT != 16 || blockIdx.x == 0))
            atomicMax(&GS->vv_bits[k % 3], (unsigned long long)__double_as_longlong(vv));
        sync();
        const double most = __longlong_as_double((long long)__ldcg(&GS->vv_bits[k % 3]));
        if (rank() == 0) GS->vv_bits[(k + 2) % 3] = 0;   /* last read at k - 1, next written at k + 2 */
        return most;
    }
    __device__ static ChunkSums totals(ChunkScratch *GS, const ChunkSums &S)
    {
        ChunkSums T = block_sums(S);
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

/* Slots in every block's shared memory that the cluster's blocks write, and the mbarriers their
 * stores complete on (steps k & 1). */
struct ClusterShared {
    unsigned long long vv[2][CLUSTER_MAX * 32];   /* each warp's largest v^2 (bits), rank r's warp w at r x warps + w */
    ChunkSums sums[CLUSTER_MAX];                  /* the chunk's sums by rank (rank 0's copy is read) */
    uint64_t bar[2];
};

/* A store into a block of the cluster that completes its bytes on that block's mbarrier. */
__device__ __forceinline__ void st_async_real4(real4 *to, const real4 &v, uint64_t *bar)
{
    const uint32_t *w = (const uint32_t *)&v;
    for (int q = 0; q < (int)(sizeof(real4) / 16); q++) {
        const uint32_t words[4] = {w[4 * q], w[4 * q + 1], w[4 * q + 2], w[4 * q + 3]};
        cuda::ptx::st_async((uint32_t *)to + 4 * q, words, bar);
    }
}

/* Block b of C owns atoms [b N / C, (b + 1) N / C) and stores their drifted positions into buffer
 * cur ^ 1 of every block, each warp its largest v^2 into slot vv[k & 1]; a block's thread 0
 * expects the step's bytes on bar[k & 1] and the block waits for that phase. Why no barrier per
 * step is needed: docs/onchip.md. */
struct ClusterSync : ClusterLaunch {
    static constexpr bool grid = false, replicated = true;
    __device__ static ClusterShared &sh()
    {
        __shared__ ClusterShared s;
        return s;
    }
    __device__ static int blocks() { return (int)cooperative_groups::this_cluster().num_blocks(); }
    __device__ static int me() { return (int)cooperative_groups::this_cluster().block_rank(); }
    __device__ static int rank() { return threadIdx.x; }
    __device__ static int size() { return blockDim.x; }
    __device__ static bool leader() { return me() == 0 && threadIdx.x == 0; }
    __device__ static void sync() { cooperative_groups::this_cluster().sync(); }
    __device__ static void range(int n, int &lo, int &hi)
    {
        const int C = blocks(), b = me();
        lo = (int)((long)b * n / C);
        hi = (int)((long)(b + 1) * n / C);
    }
    /* the most atoms range gives one block of C */
    __host__ __device__ static int most_owned(int n, int C) { return (n + C - 1) / C; }
    __device__ static void begin()
    {
        namespace ptx = cuda::ptx;
        if (threadIdx.x == 0) {
            ptx::mbarrier_init(&sh().bar[0], 1);
            ptx::mbarrier_init(&sh().bar[1], 1);
            ptx::fence_mbarrier_init(ptx::sem_release, ptx::scope_cluster);
        }
    }
    /* this step's bytes: n positions (none at the last step) and C x warps slots */
    __device__ static void before_forces(int n, int k, bool last)
    {
        namespace ptx = cuda::ptx;
        if (threadIdx.x == 0)
            ptx::mbarrier_arrive_expect_tx(ptx::sem_release, ptx::scope_cta, ptx::space_shared, &sh().bar[k & 1],
                                           (last ? 0u : (uint32_t)(n * sizeof(real4))) +
                                               (uint32_t)(blocks() * (blockDim.x >> 5) * sizeof(uint64_t)));
    }
    /* the group's lanes share the stores into the C blocks */
    __device__ static void publish(int i, const real4 &rn, real4 *rnext, int k, int sub, int tp)
    {
        cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
        for (int q = sub; q < blocks(); q += tp)
            st_async_real4(cluster.map_shared_rank(rnext + i, q), rn, cluster.map_shared_rank(&sh().bar[k & 1], q));
    }
    __device__ static double step_max(ChunkScratch *, int k, double vv_t)
    {
        namespace ptx = cuda::ptx;
        cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
        const int C = blocks(), nwarps = blockDim.x >> 5, lane = threadIdx.x & 31;
        uint64_t *const b = &sh().bar[k & 1];
        const uint64_t bits = (uint64_t)__double_as_longlong(warp_max_vv(vv_t));
        for (int q = lane; q < C; q += 32)
            ptx::st_async((uint64_t *)cluster.map_shared_rank(&sh().vv[k & 1][me() * nwarps + (threadIdx.x >> 5)], q),
                          bits, cluster.map_shared_rank(b, q));
        while (!ptx::mbarrier_try_wait_parity(ptx::sem_acquire, ptx::scope_cluster, b, (uint32_t)((k >> 1) & 1))) {
        }
        int span = C * nwarps;
        NBR_PLANT(16, span = nwarps);
        unsigned long long most = 0;   /* as integers: the bits order */
        for (int q = lane; q < span; q += 32) most = max(most, sh().vv[k & 1][q]);
        return warp_max_vv(__longlong_as_double((long long)most));
    }
    /* each block's sums into rank 0's slots, summed there in rank order */
    __device__ static ChunkSums totals(ChunkScratch *, const ChunkSums &S)
    {
        cooperative_groups::cluster_group cluster = cooperative_groups::this_cluster();
        const ChunkSums B = block_sums(S);
        if (threadIdx.x == 0) *cluster.map_shared_rank(&sh().sums[me()], 0) = B;
        cluster.sync();   /* the sums are in; and no block exits while another may still write to it */
        ChunkSums T = {0, 0, 0, 0, 0, 0, 0};
        if (leader())
            for (int q = 0; q < blocks(); q++) add_sums(T, sh().sums[q]);
        return T;
    }
};

/* f(the policy type of a tier), on the host */
template <class F>
void by_tier(int tier, F &&f)
{
    if (tier == TIER_BLOCK) f(BlockSync{});
    else if (tier == TIER_CLUSTER) f(ClusterSync{});
    else f(GridSync{});
}

/* A chunk kernel fn of tier `tier` through its policy (the launches above): the dynamic shared
 * memory it may have, how many of its blocks (the cluster's: clusters of `blocks`) are resident at
 * once, and its launch. */
inline cudaError_t chunk_grant(int tier, const void *fn, int limit)
{
    cudaError_t e = cudaSuccess;
    by_tier(tier, [&](auto t) { e = decltype(t)::grant(fn, limit); });
    return e;
}
inline cudaError_t chunk_resident(int tier, const void *fn, int blocks, int threads, size_t smem, int *most)
{
    cudaError_t e = cudaSuccess;
    by_tier(tier, [&](auto t) { e = decltype(t)::resident(fn, blocks, threads, smem, most); });
    return e;
}
inline cudaError_t chunk_launch(int tier, const void *fn, int blocks, int threads, size_t smem, cudaStream_t st,
                                void **args)
{
    cudaError_t e = cudaSuccess;
    by_tier(tier, [&](auto t) { e = decltype(t)::launch(fn, blocks, threads, smem, st, args); });
    return e;
}

#endif
