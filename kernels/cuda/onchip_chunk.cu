/* onchip_chunk.cu - the chunk kernel of gpu-onchip's block and grid tiers (onchip.cuh): one
 * launch runs every step between two sample points.
 *   block  one thread block of 1024 threads; positions (two buffers: a step reads one, drifts
 *          into the other, so a step needs one __syncthreads), velocities, counts and the 16-bit
 *          lists in shared memory. N is limited by shared memory (onchip_tier.cu refuses).
 *   grid   a cooperative grid (cg::this_grid().sync()), the same step over global memory (L2):
 *          positions in two buffers, velocities in place; each block's groups keep their atoms'
 *          lists in its shared memory (so a pair waits on one L2 load, the position, not two).
 * Both tiers load the lists at the chunk's start and store them at its end (when it rebuilt).
 * A step: forces of each atom from its list (t_p lanes per atom, no Newton 3, no atomics), the
 * second half-kick, v^2, the next step's half-kick and drift; one sync for the largest v^2;
 * then every thread takes the same rebuild decision (decide.cuh's, in double). A rebuild
 * step wraps (and with --list cells bins each atom into the cell grid in global memory: counts
 * by atomicAdd into one of two count arrays while zeroing the other, the next build's), syncs
 * once more, and builds the lists (onchip_build_list): in the grid each atom's list is built
 * and read by its own lanes only, so no sync follows; the block builds n2 with a warp per atom
 * (cells with the force groups) and one block barrier. The grid's staged build (ChunkArgs.stage,
 * where all N positions fit in each block's shared memory with every block resident): the wrap,
 * a grid sync, then every block copies the positions and bins them into its own cell grid in
 * shared memory and builds from there (the cluster tier's build, without the cluster): the
 * 27-cell walk waits on shared memory instead of a chain of L2 loads per cell (profiled at
 * lammps-lj 4096: ~40% of the step's samples in the unstaged build). Energies and virial are
 * computed at the chunk's last step only (oc_step_forces), and summed with v^2 there. */
#include "onchip.cuh"

#include <cooperative_groups.h>

namespace cg = cooperative_groups;

namespace {

struct BlockTier {
    static constexpr bool grid = false;
    __device__ static int rank() { return threadIdx.x; }
    __device__ static int size() { return blockDim.x; }
    __device__ static void sync() { __syncthreads(); }
};
struct GridTier {
    static constexpr bool grid = true;
    __device__ static int rank() { return blockIdx.x * blockDim.x + threadIdx.x; }
    __device__ static int size() { return gridDim.x * blockDim.x; }
    __device__ static void sync() { cg::this_grid().sync(); }
};

/* MaxThr: the most threads a block of this instance has (oc_by_bound: 512 where the
 * block has no more, so that a thread may hold 128 registers, not 64, without spilling). */
template <class Tier, int Kind, int MaxThr>
__global__ void __launch_bounds__(MaxThr, 1) chunk_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    __shared__ double vv_part[2][32];
    const int n = A.n, ltp = oc_log2(A.tp), tp = 1 << ltp, cap = A.cap;
    const int rank = Tier::rank(), nthr = Tier::size();
    const int sub = rank & (tp - 1), group = rank >> ltp, ngroups = nthr >> ltp;
    /* a group serves atoms i = k ngroups + group, k < nk; their lists and counts live in the block's
     * shared memory at slot k gpb + lg (in the block tier that is i) */
    const int gpb = blockDim.x >> ltp, lg = threadIdx.x >> ltp, nk = (n + ngroups - 1) / ngroups;
    auto slot = [&](int k) { return k * gpb + lg; };
    real4 *rb0, *rb1, *vw, *spos = nullptr;
    onchip_idx *list;
    int *count;
    OnchipCells gs = A.cells;   /* the grid's staged build: the cells in shared memory */
    const int ncell = A.cells.m * A.cells.m * A.cells.m;
    const bool staged = Tier::grid && A.stage;
    if (Tier::grid) {
        rb0 = A.rw0; rb1 = A.rw1; vw = A.v;
        /* global memory: LDG, not the generic loads a kernel argument gets */
        __builtin_assume(__isGlobal(A.rw0) && __isGlobal(A.rw1) && __isGlobal(A.v));
        unsigned char *p = smem;   /* every pointer from smem, so that the loads are LDS, not generic */
        spos = (real4 *)p; p += staged ? sizeof(real4) * (size_t)n : 0;
        gs.count = (int *)p; p += staged ? sizeof(int) * (size_t)ncell : 0;
        count = (int *)p; p += sizeof(int) * (size_t)nk * gpb;
        list = (onchip_idx *)p; p += sizeof(onchip_idx) * (size_t)nk * gpb * cap;
        gs.slot = (onchip_idx *)p;
    } else {
        rb0 = (real4 *)smem; rb1 = rb0 + n; vw = rb1 + n;
        count = (int *)(vw + n);
        list = (onchip_idx *)(count + n);
    }
    /* this group's lists between global memory (the host path's and the next chunk's) and shared */
    auto move_lists = [&](bool in) {
        for (int k = 0; k < nk; k++) {
            const int i = k * ngroups + group;
            if (i >= n) break;
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
    GridScratch *GS = A.scratch;

    /* the snapshot of the sample point, then the first half-kick and drift */
    for (int i = rank; i < n; i += nthr) {
        real4 ri = A.r[i], vi = A.v[i];
        const real4 ai = A.a[i];
        A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai;
        half_kick(vi, ai, A.half_dt);
        drift(ri, vi, A.dt);
        rb0[i] = ri;
        vw[i] = vi;
    }
    for (int k = rank; k < 2 * ncell; k += nthr) A.cells.count[k] = 0;   /* both (a replay may find them used) */
    if (staged)
        for (int q = threadIdx.x; q < ncell; q += blockDim.x) gs.count[q] = 0;
    if (!c.due) move_lists(true);   /* unless the first step rebuilds anyway */
    if (rank == 0) {
        *A.ctrl_snap = *A.ctrl;
        if (Tier::grid) {
            for (int k = 0; k < 3; k++) GS->vv_bits[k] = 0;
            for (int k = 0; k < 5; k++) GS->sums[k] = 0;
            GS->nbr_max = GS->cell_max = 0;
        }
    }
    Tier::sync();

    OcSums S = {0, 0, 0, 0, 0, 0, 0};
    double vv_last = 0;
    int built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *const rc = cur ? rb1 : rb0, *const rnext = cur ? rb0 : rb1;   /* selects, not an array: LDG, not LD */
        if (c.due) {
            OnchipCells g = A.cells;   /* this build's count array; the other one zeroed for the next */
            const int par = (int)(c.builds_total & 1);
            g.count += par * ncell;
            if (staged) {
                /* every block copies the wrapped positions and bins them into its own cells: the
                 * build's loads then wait on shared memory, not on L2 (one chain per cell) */
                for (int i = rank; i < n; i += nthr) oc_wrap_bin(i, rc, A.box.L, OnchipCells{});
                Tier::sync();
                for (int i = threadIdx.x; i < n; i += blockDim.x) {
                    const real4 ri = rc[i];
                    spos[i] = ri;
                    if (gs.m) S.cell_max = max(S.cell_max, onchip_cells_bin<true>(i, ri, A.box.L, gs));
                }
                __syncthreads();
            } else {
                for (int q = rank; q < ncell; q += nthr) A.cells.count[(par ^ 1) * ncell + q] = 0;
                for (int i = rank; i < n; i += nthr) S.cell_max = max(S.cell_max, oc_wrap_bin(i, rc, A.box.L, g));
                Tier::sync();
            }
            double tot = 0;
            /* n2 in the block: a warp per atom, then a barrier (39 ns) before the t_p-lane groups
             * read the lists; grid, and cells: each atom's own t_p lanes, so that in the grid no
             * grid sync (1 us) follows */
            const int lb = Tier::grid || g.m ? ltp : 5, btp = 1 << lb, bsub = rank & (btp - 1), bgroup = rank >> lb;
            for (int i0 = 0, ka = 0; i0 < n; i0 += nthr >> lb, ka++) {   /* the same trip count in every warp */
                const int i = i0 + bgroup, sl = Tier::grid ? slot(ka) : i;
                const bool act = i < n;
                onchip_idx *const li = list + (size_t)(act ? sl : 0) * cap;
                /* two calls, so that each knows where its positions and cells are */
                const int m = staged ? onchip_build_list(i, act, bsub, btp, spos, n, A.box, A.rn2, gs, li, cap)
                                     : onchip_build_list(i, act, bsub, btp, rc, n, A.box, A.rn2, g, li, cap);
                if (act && bsub == 0) {
                    count[sl] = m;
                    tot += m;
                    S.nb_max = max(S.nb_max, m);
                }
            }
            if (Tier::grid && !staged) __syncwarp();   /* an atom's list and count are read by its own lanes only */
            else __syncthreads();   /* block: the lists; staged: the cells, read by every build */
            if (staged)
                for (int q = threadIdx.x; q < ncell; q += blockDim.x) gs.count[q] = 0;   /* a sync away from the next bin */
            S.nb_last = tot;
            if (step > A.equil) S.nb_prod += tot;
            built = 1;
        }
        double vv_t = 0;
        for (int ka = 0; ka < nk; ka++) {
            const int i = ka * ngroups + group, sl = slot(ka);
            const bool act = i < n;
            const int cnt = act ? min(count[sl], cap) : 0;
            const bool lead = act && sub == 0;
            const real4 ri = lead ? rc[i] : make_real4(0, 0, 0, 0);
            real4 vi = lead ? vw[i] : ri, rn = ri;
            const ForceSum f = oc_step_forces<Kind>(last, i, act, sub, tp, rc, list + (size_t)(act ? sl : 0) * cap, cnt,
                                                     A.box, A.pot);
            if (lead) {
                if (oc_step_tail(i, f, ri, vi, last, true, A, vv_t, S, rn)) rnext[i] = rn;
                vw[i] = vi;
            }
        }
        /* the step's largest v^2 over the tier (lanes sub = 0 hold the atoms'): one sync */
        double vv = oc_warp_max_vv(vv_t);
        if (Tier::grid) {
            if ((threadIdx.x & 31) == 0) atomicMax(&GS->vv_bits[k % 3], (unsigned long long)__double_as_longlong(vv));
            Tier::sync();
            vv = __longlong_as_double((long long)__ldcg(&GS->vv_bits[k % 3]));
            if (rank == 0) GS->vv_bits[(k + 2) % 3] = 0;   /* last read at k - 1, next written at k + 2 */
        } else {
            if ((threadIdx.x & 31) == 0) vv_part[k & 1][threadIdx.x >> 5] = vv;
            __syncthreads();
            const int lane = threadIdx.x & 31;
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): warp 0's largest v^2 */
            vv = lane == 0 ? vv_part[k & 1][0] : 0.0;
#else
            vv = lane < (int)(blockDim.x >> 5) ? vv_part[k & 1][lane] : 0.0;
#endif
            vv = oc_warp_max_vv(vv);
        }
        decide_rebuild(c, vv, A.ddt, A.threshold, A.equil);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums and the lists' statistics */
    OcSums T = oc_block_sums(S);
    if (built) move_lists(false);   /* for the next chunk and the host path */
    if (Tier::grid) {
        if (threadIdx.x == 0) {
            atomicAdd(&GS->sums[0], T.ukin); atomicAdd(&GS->sums[1], T.upot); atomicAdd(&GS->sums[2], T.vir);
            atomicAdd(&GS->sums[3], T.nb_last); atomicAdd(&GS->sums[4], T.nb_prod);
            atomicMax(&GS->nbr_max, T.nb_max); atomicMax(&GS->cell_max, T.cell_max);
        }
        Tier::sync();
        if (rank == 0) {
            T.ukin = __ldcg(&GS->sums[0]); T.upot = __ldcg(&GS->sums[1]); T.vir = __ldcg(&GS->sums[2]);
            T.nb_last = __ldcg(&GS->sums[3]); T.nb_prod = __ldcg(&GS->sums[4]);
            T.nb_max = __ldcg(&GS->nbr_max); T.cell_max = __ldcg(&GS->cell_max);
        }
    }
    if (rank == 0) oc_chunk_done(c, T, built, vv_last, A);
}

}  // namespace

/* The dynamic shared memory one block of tier Tier may have (the opt-in limit less the static),
 * granted to its kernels of potential `kind`. */
template <class Tier>
static int prepare(int optin, int kind)
{
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, chunk_kernel<Tier, POT_LJ, 1024>));
    const int limit = optin - (int)fa.sharedSizeBytes;
    dispatch_potential(kind, [&](auto k) {
        constexpr int K = decltype(k)::value;
        auto grant = [&](const void *f) {
            CUDA_CHECK(cudaFuncSetAttribute(f, cudaFuncAttributeMaxDynamicSharedMemorySize, limit));
        };
        if constexpr (Tier::grid) grant((const void *)chunk_kernel<Tier, K, 512>);   /* the block tier: 1024 only */
        grant((const void *)chunk_kernel<Tier, K, 1024>);
    });
    return limit;
}
int onchip_block_prepare(int optin, int kind) { return prepare<BlockTier>(optin, kind); }
int onchip_grid_prepare(int optin, int kind) { return prepare<GridTier>(optin, kind); }

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
