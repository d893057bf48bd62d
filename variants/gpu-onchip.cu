/* gpu-onchip - small systems on chip (issue 27): with --decide device, one kernel launch runs
 * every step between two sample points (the loop's chunk, Variant.chunk_run): forces, the
 * leapfrog, the rebuild test and the rebuild, the host seeing only sample points.
 *
 * Tiers (--tier; auto = cluster up to 2048 atoms where it fits, else block where it fits, else
 * grid):
 *   block  one thread block of 1024 threads; positions (two buffers: a step reads one, drifts
 *          into the other, so a step needs one __syncthreads), velocities, counts and the 16-bit
 *          lists in shared memory; the lists are loaded at the chunk's start and stored at its
 *          end (when it rebuilt). N is limited by shared memory (refused with one line).
 *   cluster  a thread-block cluster of C blocks (--cluster; default 16), block b owning N/C atoms:
 *          every block a full copy of the positions (two buffers) in its shared memory, its own
 *          atoms' velocities and lists; each step's new positions and largest v^2 written into
 *          every block through distributed shared memory, one cluster.sync per step
 *          (cluster_kernel). N is limited by one block's shared memory (refused with one line).
 *   grid   a cooperative grid (cg::this_grid().sync()), the same step over global memory (L2):
 *          positions in two buffers, velocities in place, lists in global memory.
 * A step: forces of each atom from its list (t_p lanes per atom, no Newton 3, no atomics), the
 * second half-kick, v^2, the next step's half-kick and drift; one sync for the largest v^2;
 * then every thread takes the same rebuild decision (md_loop.c's rule, in double). A rebuild
 * step wraps, syncs once more, and builds the n2 lists (onchip.cuh): in the grid each atom's
 * list is built and read by its own lanes only, so no sync follows; the block and the cluster
 * build with a warp per atom and one block barrier. Energies, virial and v^2 are summed at
 * the chunk's last step only.
 *
 * Never a truncated list: a build that finds more than the capacity stores what fits and
 * records the need; at the sample point the host grows the capacity (or stops at a hard
 * --max-nbr with one line), restores the snapshot the kernel wrote at the chunk's start
 * (r, v, a and the control block) and replays the chunk with a rebuild forced first, as the
 * stage-by-stage device loop does (device_loop.cu). A block or cluster tier that no longer
 * fits moves on (auto: cluster, block, grid) or stops (--tier block, --tier cluster).
 *
 * With --decide host (and for --check, --verify-lists, --stage-reps) the same build and force
 * functions run as per-stage kernels over global memory; the leapfrog, wrap, rescale and
 * download are the shared GPU stages (gpu_sim.cuh). */
#include "../kernels/cuda/onchip.cuh"

#include <cooperative_groups.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

namespace cg = cooperative_groups;

/* What the device decides and counts by itself (DeviceControl's rule, without reordering),
 * and the sample point's sums, written by the chunk kernel's last step. */
struct OnchipCtrl {
    double disp;
    long long builds_total, builds_prod;
    double nbr_sum_prod;
    unsigned long long nbr_last, rebuild_hash;
    int step, due, nbr_max_seen, pad;
    double ukin, upot, virial, vvmax;
};

/* The grid tier's cross-block reductions. vv_bits: the step's largest v^2 (bits of a
 * non-negative double), three slots in rotation so that one grid sync per step suffices. */
struct GridScratch {
    unsigned long long vv_bits[3];
    double sums[5];   /* ukin, upot, virial, last build's entries, production builds' entries */
    int nbr_max;
    int pad;
};

struct ChunkArgs {
    real4 *r, *v, *a;
    real *u;
    real4 *snap_r, *snap_v, *snap_a;
    onchip_idx *list;
    int *count;
    real4 *rw0, *rw1;
    OnchipCtrl *ctrl, *ctrl_snap, *ctrl_host;
    GridScratch *scratch;
    PairPotential pot;
    int n, tp, cap, nsteps, equil;
    real L, rn2, dt, half_dt;
    double ddt, threshold;
};

struct Onchip {
    onchip_idx *list;
    int *count;
    int cap;
    Capacity capacity;
    int tier;          /* TIER_BLOCK, TIER_GRID or TIER_CLUSTER: the one chunks run on now */
    int tp;            /* lanes per atom */
    int block_threads; /* the block tier's block */
    int grid_blocks;   /* the grid tier's co-resident blocks */
    int smem_limit;    /* dynamic shared memory one block may have (block tier) */
    int cluster;       /* the cluster tier's blocks per cluster C */
    int cluster_threads; /* and threads per block */
    int cluster_limit; /* dynamic shared memory one block of the cluster tier may have */
    int tier_flag, cluster_flag; /* --tier and --cluster as given (s->p then records what ran) */
    int device_mode;
    OnchipCtrl *ctrl, *ctrl_snap, *ctrl_host, *ctrl_host_dev, *ctrl_stage;
    real4 *snap_r, *snap_v, *snap_a, *rw0, *rw1;
    GridScratch *scratch;
    int snap_step;
    cudaEvent_t done;
};
static Onchip oc;   /* one simulation per process */

enum { BLOCK_THREADS = 1024 };

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

/* Bytes of dynamic shared memory the block tier needs: two position buffers, velocities (real4),
 * counts (int) and the lists (16-bit, cap even so the list words copy as 32-bit words). */
static size_t block_smem(int n, int cap) { return (size_t)n * (3 * sizeof(real4) + sizeof(int)) + (size_t)n * cap * 2; }

__device__ __forceinline__ void oc_half_kick(real4 &vi, const real4 &ai, real h)
{
    vi.x += h * ai.x; vi.y += h * ai.y; vi.z += h * ai.z;
}
__device__ __forceinline__ void oc_drift(real4 &ri, const real4 &vi, real dt)
{
    ri.x += dt * vi.x; ri.y += dt * vi.y; ri.z += dt * vi.z;
}
__device__ __forceinline__ double oc_speed2(const real4 &vi)
{
    return (double)vi.x * vi.x + (double)vi.y * vi.y + (double)vi.z * vi.z;
}

/* md_loop.c's rebuild test and bookkeeping (integrate.cu's decide_step), in every thread of every
 * tier: the step's largest v^2 vv is the same everywhere, so are the decisions. */
__device__ __forceinline__ void oc_decide(OnchipCtrl &c, int step, double vv, const ChunkArgs &A)
{
    if (c.due) {
        c.builds_total++;
        c.rebuild_hash = c.rebuild_hash * 1000003ull + (unsigned long long)step;
        if (step > A.equil) c.builds_prod++;
        c.disp = 0;
    }
    c.step = step;
    c.disp += sqrt(vv) * A.ddt;
    c.due = c.disp >= A.threshold;
}

template <class Tier, int Kind>
__global__ void __launch_bounds__(1024) chunk_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    __shared__ double vv_part[2][32];
    const int n = A.n, tp = A.tp, cap = A.cap;
    const int rank = Tier::rank(), nthr = Tier::size();
    const int sub = rank & (tp - 1), group = rank / tp, ngroups = nthr / tp;
    real4 *rb[2], *vw;
    onchip_idx *list;
    int *count;
    if (Tier::grid) {
        rb[0] = A.rw0; rb[1] = A.rw1; vw = A.v; list = A.list; count = A.count;
    } else {
        rb[0] = (real4 *)smem; rb[1] = rb[0] + n; vw = rb[1] + n;
        count = (int *)(vw + n);
        list = (onchip_idx *)(count + n);
    }
    OnchipCtrl c = *A.ctrl;   /* every thread its own copy: all take the same decisions */
    GridScratch *S = A.scratch;

    /* the snapshot of the sample point, then the first half-kick and drift */
    for (int i = rank; i < n; i += nthr) {
        real4 ri = A.r[i], vi = A.v[i];
        const real4 ai = A.a[i];
        A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai;
        oc_half_kick(vi, ai, A.half_dt);
        oc_drift(ri, vi, A.dt);
        rb[0][i] = ri;
        vw[i] = vi;
        if (!Tier::grid) count[i] = A.count[i];
    }
    if (!Tier::grid && !c.due) {   /* the lists, unless the first step rebuilds anyway */
        const unsigned *from = (const unsigned *)A.list;
        unsigned *to = (unsigned *)list;
        for (long k = rank; k < (long)n * cap / 2; k += nthr) to[k] = from[k];
    }
    if (rank == 0) {
        *A.ctrl_snap = c;
        if (Tier::grid) {
            for (int k = 0; k < 3; k++) S->vv_bits[k] = 0;
            for (int k = 0; k < 5; k++) S->sums[k] = 0;
            S->nbr_max = 0;
        }
    }
    Tier::sync();

    double nb_last = 0, nb_prod = 0, ukin = 0, upot = 0, vir = 0, vv_last = 0;
    int nb_max = 0, built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *rc = rb[cur], *rnext = rb[cur ^ 1];
        if (c.due) {
            for (int i = rank; i < n; i += nthr) {
                real4 ri = rc[i];
                ri.x = pbc_wrap(ri.x, A.L); ri.y = pbc_wrap(ri.y, A.L); ri.z = pbc_wrap(ri.z, A.L);
                rc[i] = ri;
            }
            Tier::sync();
            double tot = 0;
            /* block: a warp per atom, then a barrier (39 ns) before the t_p-lane groups read the
             * lists; grid: each atom's own t_p lanes, so that no grid sync (1 us) follows */
            const int btp = Tier::grid ? tp : 32, bsub = rank & (btp - 1), bgroup = rank / btp;
            for (int i0 = 0; i0 < n; i0 += nthr / btp) {   /* the same trip count in every warp */
                const int i = i0 + bgroup;
                const bool act = i < n;
                const int m = onchip_build_atom(i, act, bsub, btp, rc, n, A.L, A.rn2,
                                                list + (size_t)(act ? i : 0) * cap, cap);
                if (act && bsub == 0) {
                    count[i] = m;
                    tot += m;
                    nb_max = max(nb_max, m);
                }
            }
            if (Tier::grid) __syncwarp();   /* an atom's list and count are read by its own lanes only */
            else __syncthreads();
            nb_last = tot;
            if (step > A.equil) nb_prod += tot;
            built = 1;
        }
        double vv_t = 0;
        for (int i0 = 0; i0 < n; i0 += ngroups) {
            const int i = i0 + group;
            const bool act = i < n;
            const int cnt = act ? min(count[i], cap) : 0;
            const ForceSum f = onchip_force_atom<Kind>(i, act, sub, tp, rc, list + (size_t)(act ? i : 0) * cap, cnt,
                                                        A.L, A.pot);
            if (act && sub == 0) {
                const real4 ai = make_real4(f.fx, f.fy, f.fz, 0);
                real4 vi = vw[i];
                oc_half_kick(vi, ai, A.half_dt);
                const double vv = oc_speed2(vi);
                vv_t = fmax(vv_t, vv);
                if (!last) {
                    oc_half_kick(vi, ai, A.half_dt);
                    real4 ri = rc[i];
                    oc_drift(ri, vi, A.dt);
                    rnext[i] = ri;
                } else {   /* the sample point: the state after the kick, and its sums */
                    A.r[i] = rc[i];
                    A.a[i] = ai;
                    A.u[i] = (real)0.5 * f.u;
                    A.v[i] = vi;
                    ukin += vv;
                    upot += (real)0.5 * f.u;
                    vir += (real)0.5 * f.w;
                }
                vw[i] = vi;
            }
        }
        /* the step's largest v^2 over the tier: one sync */
        double vv = warp_reduce(vv_t, MaxOp());
        if (Tier::grid) {
            if ((threadIdx.x & 31) == 0) atomicMax(&S->vv_bits[k % 3], (unsigned long long)__double_as_longlong(vv));
            Tier::sync();
            vv = __longlong_as_double((long long)__ldcg(&S->vv_bits[k % 3]));
            if (rank == 0) S->vv_bits[(k + 2) % 3] = 0;   /* last read at k - 1, next written at k + 2 */
        } else {
            if ((threadIdx.x & 31) == 0) vv_part[k & 1][threadIdx.x >> 5] = vv;
            __syncthreads();
            vv = 0;
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): warp 0's largest v^2 */
            vv = vv_part[k & 1][0];
#else
            for (int w = 0; w < (int)(blockDim.x >> 5); w++) vv = fmax(vv, vv_part[k & 1][w]);
#endif
        }
        oc_decide(c, step, vv, A);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums and the lists' statistics */
    const double s_ukin = block_reduce(ukin, SumOp(), 0.0), s_upot = block_reduce(upot, SumOp(), 0.0),
                 s_vir = block_reduce(vir, SumOp(), 0.0), s_last = block_reduce(nb_last, SumOp(), 0.0),
                 s_prod = block_reduce(nb_prod, SumOp(), 0.0);
    const int s_max = block_reduce(nb_max, MaxOp(), 0);
    if (!Tier::grid && built) {   /* the lists back to global memory for the next chunk */
        const unsigned *from = (const unsigned *)list;
        unsigned *to = (unsigned *)A.list;
        for (long k = rank; k < (long)n * cap / 2; k += nthr) to[k] = from[k];
        for (int i = rank; i < n; i += nthr) A.count[i] = count[i];
    }
    double t_ukin = s_ukin, t_upot = s_upot, t_vir = s_vir, t_last = s_last, t_prod = s_prod;
    int t_max = s_max;
    if (Tier::grid) {
        if (threadIdx.x == 0) {
            atomicAdd(&S->sums[0], s_ukin); atomicAdd(&S->sums[1], s_upot); atomicAdd(&S->sums[2], s_vir);
            atomicAdd(&S->sums[3], s_last); atomicAdd(&S->sums[4], s_prod); atomicMax(&S->nbr_max, s_max);
        }
        Tier::sync();
        if (rank == 0) {
            t_ukin = __ldcg(&S->sums[0]); t_upot = __ldcg(&S->sums[1]); t_vir = __ldcg(&S->sums[2]);
            t_last = __ldcg(&S->sums[3]); t_prod = __ldcg(&S->sums[4]); t_max = __ldcg(&S->nbr_max);
        }
    }
    if (rank == 0) {
        c.nbr_max_seen = max(c.nbr_max_seen, t_max);
        if (built) c.nbr_last = (unsigned long long)t_last;
        c.nbr_sum_prod += t_prod;
        c.ukin = t_ukin; c.upot = t_upot; c.virial = t_vir; c.vvmax = vv_last;
        *A.ctrl = c;
        *A.ctrl_host = c;   /* mapped host memory: the sample point reads it after one event */
    }
}

/* ---- the cluster tier ---- */

/* Blocks per cluster at most (16: the non-portable size of sm_90). */
enum { CLUSTER_MAX = 16 };

/* Slots in every block's shared memory that the other blocks of the cluster write. */
struct ClusterSlots {
    double vv[2][CLUSTER_MAX];       /* each rank's largest v^2 of the step; steps k & 1 in rotation */
    double sums[CLUSTER_MAX][5];     /* the chunk's sums by rank (rank 0's copy is read) */
    int nb_max[CLUSTER_MAX];
};

/* Own atoms per block at most, and the dynamic shared memory of one block of the cluster tier:
 * two full position buffers, then the own atoms' velocities, counts and 16-bit lists. */
static int cluster_own(int n, int C) { return (n + C - 1) / C; }
static size_t cluster_smem(int n, int C, int cap)
{
    const size_t own = (size_t)cluster_own(n, C);
    return 2 * (size_t)n * sizeof(real4) + own * (sizeof(real4) + sizeof(int)) + own * cap * 2;
}

/* One cluster of C blocks, block b owning atoms [b N / C, (b + 1) N / C). Every block holds all
 * N positions in its shared memory, in two buffers: a step reads buffer cur (forces of the own
 * atoms, t_p lanes each) and each block writes its own atoms' drifted positions into buffer
 * cur ^ 1 of every block (distributed shared memory), and its largest v^2 into slot vv[k & 1][b]
 * of every block. Then one cluster.sync per step, which does two things:
 *  - it orders (release/acquire) every remote write of step k before any read of step k + 1, so
 *    each block's buffer cur ^ 1 is complete when it becomes cur;
 *  - no block writes buffer X at step k + 1 (X = cur of step k, the next step's cur ^ 1) before
 *    every block has arrived, i.e. finished its step-k reads of X; and slot vv[k & 1] is written
 *    again at step k + 2 only, after a sync that every block reaches after it read the slot.
 * So two buffers and one sync suffice. Every block reads the same C partials and takes the same
 * rebuild decision; a rebuild wraps the full local copy (the same arithmetic on the same values in
 * every block, so the copies stay bitwise equal), and builds the own atoms' n2 lists over it, one
 * warp per atom. */
template <int Kind>
__global__ void __launch_bounds__(1024) cluster_kernel(ChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    __shared__ ClusterSlots slots;
    __shared__ double vv_warp[32];
    cg::cluster_group cluster = cg::this_cluster();
    const int n = A.n, tp = A.tp, cap = A.cap;
    const int C = (int)cluster.num_blocks(), me = (int)cluster.block_rank();
    const int lo = (int)((long)me * n / C), hi = (int)((long)(me + 1) * n / C), nown = hi - lo;
    const int own_max = (n + C - 1) / C;
    const int tid = threadIdx.x, nthr = blockDim.x;
    const int lane = tid & 31, warp = tid >> 5, nwarps = nthr >> 5;
    const int sub = tid & (tp - 1), group = tid / tp, ngroups = nthr / tp;
    real4 *const rb0 = (real4 *)smem, *const rb1 = rb0 + n;
    real4 *const vw = rb1 + n;                   /* own atoms' velocities, by i - lo */
    int *const count = (int *)(vw + own_max);    /* own atoms' counts and lists, by i - lo */
    onchip_idx *const list = (onchip_idx *)(count + own_max);
    OnchipCtrl c = *A.ctrl;   /* every thread its own copy: all take the same decisions */

    /* every block the first half-kick and drift of all N atoms into its buffer 0 (the same
     * arithmetic everywhere); the snapshot, velocities and counts of its own atoms */
    for (int i = tid; i < n; i += nthr) {
        real4 ri = A.r[i], vi = A.v[i];
        const real4 ai = A.a[i];
        if (i >= lo && i < hi) {
            A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai;
            count[i - lo] = A.count[i];
        }
        oc_half_kick(vi, ai, A.half_dt);
        oc_drift(ri, vi, A.dt);
        rb0[i] = ri;
        if (i >= lo && i < hi) vw[i - lo] = vi;
    }
    if (!c.due) {   /* the own lists, unless the first step rebuilds anyway */
        const unsigned *from = (const unsigned *)(A.list + (size_t)lo * cap);
        unsigned *to = (unsigned *)list;
        for (long k = tid; k < (long)nown * cap / 2; k += nthr) to[k] = from[k];
    }
    if (me == 0 && tid == 0) *A.ctrl_snap = c;
    cluster.sync();   /* also: every block of the cluster runs before any remote access */

    double nb_last = 0, nb_prod = 0, ukin = 0, upot = 0, vir = 0, vv_last = 0;
    int nb_max = 0, built = 0, cur = 0;
    for (int k = 0; k < A.nsteps; k++) {
        const int step = c.step + 1;
        const bool last = k == A.nsteps - 1;
        real4 *const rc = cur ? rb1 : rb0, *const rnext = cur ? rb0 : rb1;
        if (c.due) {   /* nobody else writes buffer cur this step: the wrap is local */
            for (int i = tid; i < n; i += nthr) {
                real4 ri = rc[i];
                ri.x = pbc_wrap(ri.x, A.L); ri.y = pbc_wrap(ri.y, A.L); ri.z = pbc_wrap(ri.z, A.L);
                rc[i] = ri;
            }
            __syncthreads();
            double tot = 0;
            for (int a0 = 0; a0 < nown; a0 += nwarps) {   /* the same trip count in every warp */
                const int a = a0 + warp;
                const bool act = a < nown;
                const int m = onchip_build_atom(lo + a, act, lane, 32, rc, n, A.L, A.rn2,
                                                list + (size_t)(act ? a : 0) * cap, cap);
                if (act && lane == 0) {
                    count[a] = m;
                    tot += m;
                    nb_max = max(nb_max, m);
                }
            }
            __syncthreads();   /* lists built by warps, read by the force groups */
            nb_last = tot;
            if (step > A.equil) nb_prod += tot;
            built = 1;
        }
        double vv_t = 0;
        for (int a0 = 0; a0 < nown; a0 += ngroups) {
            const int a = a0 + group, i = lo + a;
            const bool act = a < nown;
            const int cnt = act ? min(count[a], cap) : 0;
            const ForceSum f = onchip_force_atom<Kind>(i, act, sub, tp, rc, list + (size_t)(act ? a : 0) * cap, cnt,
                                                        A.L, A.pot);
            real4 vi = make_real4(0, 0, 0, 0);
            if (act) {   /* every lane of the group: the same sums, the same kick */
                const real4 ai = make_real4(f.fx, f.fy, f.fz, 0);
                vi = vw[a];
                oc_half_kick(vi, ai, A.half_dt);
                const double vv = oc_speed2(vi);
                vv_t = fmax(vv_t, vv);
                if (!last) {
                    oc_half_kick(vi, ai, A.half_dt);
                    real4 ri = rc[i];
                    oc_drift(ri, vi, A.dt);
                    for (int q = sub; q < C; q += tp) *cluster.map_shared_rank(rnext + i, q) = ri;
                } else if (sub == 0) {   /* the sample point: the state after the kick, and its sums */
                    A.r[i] = rc[i];
                    A.a[i] = ai;
                    A.u[i] = (real)0.5 * f.u;
                    A.v[i] = vi;
                    ukin += vv;
                    upot += (real)0.5 * f.u;
                    vir += (real)0.5 * f.w;
                }
            }
            __syncwarp();   /* the group's lanes have read vw[a] */
            if (act && sub == 0) vw[a] = vi;
        }
        /* the block's largest v^2 into every block's slot, then the one sync of the step */
        double vv = warp_reduce(vv_t, MaxOp());
        if (lane == 0) vv_warp[warp] = vv;
        __syncthreads();
        if (warp == 0) {
            double b = lane < nwarps ? vv_warp[lane] : 0.0;
            b = __shfl_sync(0xffffffffu, warp_reduce(b, MaxOp()), 0);
            for (int q = lane; q < C; q += 32) *cluster.map_shared_rank(&slots.vv[k & 1][me], q) = b;
        }
        cluster.sync();
        vv = 0;
#ifdef NBR_PLANT_ONCHIP_VMAX   /* test build only (tests/cases_56_onchip.sh): rank 0's largest v^2 */
        vv = slots.vv[k & 1][0];
#else
        for (int q = 0; q < C; q++) vv = fmax(vv, slots.vv[k & 1][q]);
#endif
        oc_decide(c, step, vv, A);
        if (last) vv_last = vv;
        cur ^= 1;
    }

    /* the chunk's sums: each block's into rank 0's slots, summed there in rank order */
    const double s_ukin = block_reduce(ukin, SumOp(), 0.0), s_upot = block_reduce(upot, SumOp(), 0.0),
                 s_vir = block_reduce(vir, SumOp(), 0.0), s_last = block_reduce(nb_last, SumOp(), 0.0),
                 s_prod = block_reduce(nb_prod, SumOp(), 0.0);
    const int s_max = block_reduce(nb_max, MaxOp(), 0);
    if (built) {   /* the own lists back to global memory for the next chunk */
        const unsigned *from = (const unsigned *)list;
        unsigned *to = (unsigned *)(A.list + (size_t)lo * cap);
        for (long k = tid; k < (long)nown * cap / 2; k += nthr) to[k] = from[k];
        for (int a = tid; a < nown; a += nthr) A.count[lo + a] = count[a];
    }
    if (tid == 0) {
        double *to = cluster.map_shared_rank(&slots.sums[me][0], 0);
        to[0] = s_ukin; to[1] = s_upot; to[2] = s_vir; to[3] = s_last; to[4] = s_prod;
        *cluster.map_shared_rank(&slots.nb_max[me], 0) = s_max;
    }
    cluster.sync();   /* the sums are in; and no block exits while another may still write to it */
    if (me == 0 && tid == 0) {
        double t[5] = {0, 0, 0, 0, 0};
        int t_max = 0;
        for (int q = 0; q < C; q++) {
            for (int j = 0; j < 5; j++) t[j] += slots.sums[q][j];
            t_max = max(t_max, slots.nb_max[q]);
        }
        c.nbr_max_seen = max(c.nbr_max_seen, t_max);
        if (built) c.nbr_last = (unsigned long long)t[3];
        c.nbr_sum_prod += t[4];
        c.ukin = t[0]; c.upot = t[1]; c.virial = t[2]; c.vvmax = vv_last;
        *A.ctrl = c;
        *A.ctrl_host = c;
    }
}

/* ---- the host path: the same build and forces as per-stage kernels over global memory ---- */

__global__ void build_kernel(const real4 *r, int n, int tp, real L, real rn2, onchip_idx *list, int *count, int cap,
                             BuildStatus *status)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x, sub = rank & (tp - 1), i = rank / tp;
    const bool act = i < n;
    const int m = onchip_build_atom(i, act, sub, tp, r, n, L, rn2, list + (size_t)(act ? i : 0) * cap, cap);
    if (act && sub == 0) count[i] = m;
    record_nbr_stats(act && sub == 0 ? m : 0, status);
}

template <int Kind>
__global__ void force_kernel(const real4 *r, int n, int tp, real L, PairPotential pot, const onchip_idx *list,
                             const int *count, int cap, real4 *a, real *u, double *upot, double *virial)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x, sub = rank & (tp - 1), i = rank / tp;
    const bool act = i < n;
    const ForceSum f = onchip_force_atom<Kind>(i, act, sub, tp, r, list + (size_t)(act ? i : 0) * cap,
                                                act ? min(count[i], cap) : 0, L, pot);
    real ui = 0, wi = 0;
    if (act && sub == 0) {
        ui = (real)0.5 * f.u;
        wi = (real)0.5 * f.w;
        a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        u[i] = ui;
    }
    const double su = block_reduce((double)ui, SumOp(), 0.0), sw = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        atomicAdd(upot, su);
        atomicAdd(virial, sw);
    }
}

static void alloc_lists(Sim *s, GpuSim *g)
{
    oc.cap = (int)oc.capacity.cap;
    oc.list = (onchip_idx *)gpu_alloc(g, sizeof(onchip_idx) * (size_t)oc.cap * s->n, "the neighbour lists");
    oc.count = (int *)gpu_alloc(g, sizeof(int) * s->n, "neighbour counts");
    CUDA_CHECK(cudaMemsetAsync(oc.count, 0, sizeof(int) * s->n, g->stream));
    s->stats.bytes = g->bytes;
}

/* After a build that needed `need` entries per atom: 1 if the capacity grew (lists reallocated,
 * build again), 0 if it fitted; a hard --max-nbr stops the run (capacity.c). */
static int fit_lists(Sim *s, GpuSim *g, int need)
{
    if (!capacity_short(s, &oc.capacity, (size_t)need)) return 0;
    gpu_free(g, oc.list, sizeof(onchip_idx) * (size_t)oc.cap * s->n);
    gpu_free(g, oc.count, sizeof(int) * s->n);
    alloc_lists(s, g);
    return 1;
}

static int lanes(const Sim *s, int tier)
{
    if (s->p.tp > 0) return s->p.tp;
    if (tier == TIER_GRID) return 8;   /* results/h200/onchip.md: t_p 8 beat 4 at 4096 (LJ and SP) */
    if (tier == TIER_CLUSTER) {   /* up to 16 lanes, as many as 1024 threads give the own atoms */
        int tp = 16;           /* (onchip.md: 512 / 16 blocks best at 16, 1728 at 8, 4096 at 4) */
        while (tp > 1 && tp * cluster_own(s->n, oc.cluster) > 1024) tp /= 2;
        return tp;
    }
    int tp = 1;
    while (tp < 8 && 2 * tp * s->n <= BLOCK_THREADS) tp *= 2;
    return tp;
}

/* Whether the cluster tier fits at the current capacity with C blocks: its shared memory per
 * block, and a cluster of such blocks on the device (cudaOccupancyMaxActiveClusters). Where it
 * does not and `hard`, one line naming the limit. */
static int cluster_fits_c(Sim *s, int C, int hard)
{
    const int own = cluster_own(s->n, C);
    oc.cluster = C;
    const int tp = lanes(s, TIER_CLUSTER);
    int threads = (own * tp + 31) / 32 * 32;
    threads = threads < 32 ? 32 : threads > 1024 ? 1024 : threads;
    oc.cluster_threads = threads;
    const size_t need = cluster_smem(s->n, C, oc.cap);
    if (need > (size_t)oc.cluster_limit) {
        if (hard) {
            const double per_atom = 2.0 * sizeof(real4) + (sizeof(real4) + sizeof(int) + 2.0 * oc.cap) / C;
            nbr_fail(EXIT_CAPACITY, "%s: --tier cluster: N = %d atoms (%d per block of a cluster of %d) with room for "
                     "%d neighbours each need %zu bytes of shared memory per block, over the %d one block may have on "
                     "this device (N <= %d at this capacity): use --tier grid or auto", s->variant->name, s->n, own, C,
                     oc.cap, need, oc.cluster_limit, (int)((oc.cluster_limit - 2 * oc.cap - 64) / per_atom));
        }
        return 0;
    }
    cudaLaunchConfig_t cfg = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = C; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
    cfg.gridDim = dim3(C); cfg.blockDim = dim3(threads); cfg.dynamicSmemBytes = need;
    cfg.attrs = at; cfg.numAttrs = 1;
    int nclusters = 0;
    cudaError_t e = cudaSuccess;
    dispatch_potential(s->pot.kind, [&](auto kind) {
        e = cudaOccupancyMaxActiveClusters(&nclusters, cluster_kernel<decltype(kind)::value>, &cfg);
    });
    if (e != cudaSuccess || nclusters < 1) {
        (void)cudaGetLastError();
        if (hard)
            nbr_fail(EXIT_CAPACITY, "%s: --tier cluster: a cluster of %d blocks of %d threads with %zu bytes of shared "
                     "memory each does not fit on this device (%s): use a smaller --cluster, --tier grid or auto",
                     s->variant->name, C, threads, need,
                     e != cudaSuccess ? cudaGetErrorString(e) : "no such cluster can be resident");
        return 0;
    }
    return 1;
}

/* The cluster tier with --cluster C, else 16 blocks (faster than 8 at 512 and 1728 on the H200:
 * results/h200/onchip.md), else 8 (the portable size) where 16 do not fit. */
static int cluster_fits(Sim *s)
{
    const int hard = oc.tier_flag == TIER_CLUSTER;
    if (oc.cluster_flag > 0) return cluster_fits_c(s, oc.cluster_flag, hard);
    return cluster_fits_c(s, 16, 0) || cluster_fits_c(s, 8, hard);
}

/* auto takes the cluster up to this N: its n2 build costs each SM N^2 / C pair tests, and on the
 * H200 the grid was faster at 4096 (LJ and SP), the cluster at 1728 and below (onchip.md). */
enum { CLUSTER_AUTO_MAX_N = 2048 };

/* The tier for the current capacity: --tier block or cluster that does not fit stops with one
 * line; auto takes the cluster up to CLUSTER_AUTO_MAX_N, else the block, where they fit. */
static void choose_tier(Sim *s)
{
    if ((oc.tier_flag == TIER_CLUSTER || (oc.tier_flag == TIER_AUTO && s->n <= CLUSTER_AUTO_MAX_N)) &&
        cluster_fits(s)) {
        oc.tier = TIER_CLUSTER;
        oc.tp = lanes(s, oc.tier);
        s->p.tier = oc.tier;   /* the CSV row's tier and cluster columns: what ran */
        s->p.cluster = oc.cluster;
        return;
    }
    const size_t need = block_smem(s->n, oc.cap);
    const int fits = need <= (size_t)oc.smem_limit;
    if (oc.tier_flag == TIER_BLOCK && !fits)
        nbr_fail(EXIT_CAPACITY, "%s: --tier block: N = %d atoms with room for %d neighbours each need %zu bytes of "
                 "shared memory, over the %d one block may have on this device (N <= %d at this capacity): use --tier "
                 "grid or auto", s->variant->name, s->n, oc.cap, need, oc.smem_limit,
                 (int)(oc.smem_limit / (3 * sizeof(real4) + sizeof(int) + 2 * (size_t)oc.cap)));
    oc.tier = oc.tier_flag == TIER_GRID || !fits ? TIER_GRID : TIER_BLOCK;
    oc.tp = lanes(s, oc.tier);
    s->p.tier = oc.tier;
    s->p.cluster = 0;
}


static int init(Sim *s)
{
    if (s->n > ONCHIP_MAX_ATOMS)   /* max_atoms refuses this first; kept for the 16-bit lists' sake */
        nbr_fail(EXIT_INPUT, "%s: N = %d over %d (16-bit list indices)", s->variant->name, s->n, ONCHIP_MAX_ATOMS);
    /* the shared device loop's companions do not apply: no layers, no reordering */
    s->p.layers = WHERE_DEVICE;
    s->p.reorder = 0;
    gpu_init_opts(s, 0);
    GpuSim *g = gpu_of(s);
    memset(&oc, 0, sizeof oc);
    oc.tier_flag = s->p.tier;
    oc.cluster_flag = s->p.cluster;
    const int tp = s->p.tp;
    if (tp != 0 && (tp & (tp - 1) || tp > 32))
        nbr_fail(EXIT_INPUT, "%s: --tp %d: gpu-onchip takes 1, 2, 4, 8, 16 or 32 lanes per atom (0 = by tier)",
                 s->variant->name, tp);
    /* a full list holds at most n - 1 entries; cap even (the block tier copies lists as 32-bit words) */
    capacity_init(&oc.capacity, s->variant->name, "neighbour lists", "neighbours per atom", "max-nbr", s->p.max_nbr,
                  nbr_start_estimate(s, fmin(poisson_max(neighbours_within(s, s->rn)), (double)s->n)), 2);
    alloc_lists(s, g);
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->p.device));
    cudaFuncAttributes fa;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, chunk_kernel<BlockTier, POT_LJ>));
    oc.smem_limit = optin - (int)fa.sharedSizeBytes;
    CUDA_CHECK(cudaFuncGetAttributes(&fa, cluster_kernel<POT_LJ>));
    oc.cluster_limit = optin - (int)fa.sharedSizeBytes;
    dispatch_potential(s->pot.kind, [&](auto kind) {
        constexpr int K = decltype(kind)::value;
        CUDA_CHECK(cudaFuncSetAttribute(chunk_kernel<BlockTier, K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        oc.smem_limit));
        CUDA_CHECK(cudaFuncSetAttribute(cluster_kernel<K>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        oc.cluster_limit));
        /* 16 blocks per cluster where the device allows it (sm_90 does); refused later otherwise */
        if (cudaFuncSetAttribute(cluster_kernel<K>, cudaFuncAttributeNonPortableClusterSizeAllowed, 1) != cudaSuccess)
            (void)cudaGetLastError();
    });
    oc.block_threads = BLOCK_THREADS;
    choose_tier(s);
    return 0;
}

static void finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g) {
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        void *dev[] = {oc.list, oc.count, oc.ctrl, oc.ctrl_snap, oc.snap_r, oc.snap_v, oc.snap_a, oc.rw0, oc.rw1,
                       oc.scratch};
        for (void *p : dev)
            if (p) CUDA_CHECK(cudaFree(p));
        if (oc.ctrl_host) CUDA_CHECK(cudaFreeHost(oc.ctrl_host));
        if (oc.ctrl_stage) CUDA_CHECK(cudaFreeHost(oc.ctrl_stage));
        if (oc.device_mode) CUDA_CHECK(cudaEventDestroy(oc.done));
    }
    gpu_finish(s);
}

static void build(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const int tp = oc.tp, threads = s->p.threads;
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        build_kernel<<<blocks_for((long)s->n * tp, threads), threads, 0, g->stream>>>(
            g->r, s->n, tp, s->L, s->rn * s->rn, oc.list, oc.count, oc.cap, g->status);
        LAUNCH_CHECK("build_kernel");
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (!fit_lists(s, g, g->status_host->nbr_max)) break;
    }
    if (oc.device_mode) choose_tier(s);   /* a grown capacity may no longer fit one block */
    s->stats.nbr_entries = (double)g->status_host->nbr_total;
    s->stats.list_threads = threads;
}

static void forces(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const int tp = oc.tp, threads = s->p.threads;
    double *upot = g->parts + PART_UPOT * g->blocks, *virial = g->parts + PART_VIRIAL * g->blocks;
    CUDA_CHECK(cudaMemsetAsync(upot, 0, sizeof(double), g->stream));
    CUDA_CHECK(cudaMemsetAsync(virial, 0, sizeof(double), g->stream));
    dispatch_potential(s->pot.kind, [&](auto kind) {
        force_kernel<decltype(kind)::value><<<blocks_for((long)s->n * tp, threads), threads, 0, g->stream>>>(
            g->r, s->n, tp, s->L, s->pot, oc.list, oc.count, oc.cap, g->a, g->u, upot, virial);
    });
    LAUNCH_CHECK("force_kernel");
}

static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    GpuSim *g = gpu_of(s);
    const int n = s->n, cap = oc.cap;
    int *count = (int *)nbr_alloc(sizeof(int) * n, "neighbour counts (host copy)");
    onchip_idx *list = (onchip_idx *)nbr_alloc(sizeof(onchip_idx) * (size_t)cap * n, "neighbour lists (host copy)");
    CUDA_CHECK(cudaMemcpyAsync(count, oc.count, sizeof(int) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(list, oc.list, sizeof(onchip_idx) * (size_t)cap * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int i = 0; i < n; i++)
        for (int m = 0; m < (count[i] < cap ? count[i] : cap); m++) fn(i, list[(size_t)i * cap + m], arg);
    free(count);
    free(list);
}

/* ---- the device loop: one launch per chunk ---- */

static void device_begin(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const size_t b = sizeof(real4) * (size_t)s->n;
    if (!oc.device_mode) {
        oc.ctrl = (OnchipCtrl *)gpu_alloc(g, sizeof(OnchipCtrl), "the control block");
        oc.ctrl_snap = (OnchipCtrl *)gpu_alloc(g, sizeof(OnchipCtrl), "the control block's snapshot");
        oc.snap_r = (real4 *)gpu_alloc(g, b, "the snapshot of positions");
        oc.snap_v = (real4 *)gpu_alloc(g, b, "the snapshot of velocities");
        oc.snap_a = (real4 *)gpu_alloc(g, b, "the snapshot of accelerations");
        oc.rw0 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc.rw1 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc.scratch = (GridScratch *)gpu_alloc(g, sizeof(GridScratch), "the grid tier's reductions");
        CUDA_CHECK(cudaHostAlloc((void **)&oc.ctrl_host, sizeof(OnchipCtrl), cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&oc.ctrl_host_dev, (void *)oc.ctrl_host, 0));
        oc.ctrl_stage = (OnchipCtrl *)gpu_pinned(sizeof(OnchipCtrl), "the control block");
        CUDA_CHECK(cudaEventCreateWithFlags(&oc.done, cudaEventDisableTiming));
        oc.device_mode = 1;
        s->stats.bytes = g->bytes;
        choose_tier(s);
    }
    OnchipCtrl *c = oc.ctrl_stage;   /* the state after step 0, built and decided by the host */
    memset(c, 0, sizeof *c);
    c->step = s->step;
    c->disp = s->disp_acc;   /* the displacement since the last build, as the host's loop has it */
    c->builds_total = s->stats.builds_total;
    c->rebuild_hash = s->stats.rebuild_hash;
    c->nbr_last = (unsigned long long)s->stats.nbr_entries;
    CUDA_CHECK(cudaMemcpyAsync(oc.ctrl, c, sizeof *c, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    oc.snap_step = s->step;
}

static int chunk_run(Sim *s, int nsteps)
{
    GpuSim *g = gpu_of(s);
    ChunkArgs A;
    A.r = g->r; A.v = g->v; A.a = g->a; A.u = g->u;
    A.snap_r = oc.snap_r; A.snap_v = oc.snap_v; A.snap_a = oc.snap_a;
    A.list = oc.list; A.count = oc.count; A.rw0 = oc.rw0; A.rw1 = oc.rw1;
    A.ctrl = oc.ctrl; A.ctrl_snap = oc.ctrl_snap; A.ctrl_host = oc.ctrl_host_dev; A.scratch = oc.scratch;
    A.pot = s->pot;
    A.n = s->n; A.tp = oc.tp; A.cap = oc.cap; A.nsteps = nsteps; A.equil = s->p.equil;
    A.L = s->L; A.rn2 = s->rn * s->rn; A.dt = (real)s->p.dt; A.half_dt = (real)(0.5 * s->p.dt);
    A.ddt = s->p.dt; A.threshold = s->p.rebuild_frac * s->p.delta;
    dispatch_potential(s->pot.kind, [&](auto kind) {
        constexpr int K = decltype(kind)::value;
        if (oc.tier == TIER_BLOCK) {
            chunk_kernel<BlockTier, K><<<1, oc.block_threads, block_smem(s->n, oc.cap), g->stream>>>(A);
        } else if (oc.tier == TIER_CLUSTER) {
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute at[1];
            at[0].id = cudaLaunchAttributeClusterDimension;
            at[0].val.clusterDim.x = oc.cluster; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
            cfg.gridDim = dim3(oc.cluster); cfg.blockDim = dim3(oc.cluster_threads);
            cfg.dynamicSmemBytes = cluster_smem(s->n, oc.cluster, oc.cap);
            cfg.stream = g->stream;
            cfg.attrs = at; cfg.numAttrs = 1;
            CUDA_CHECK(cudaLaunchKernelEx(&cfg, cluster_kernel<K>, A));
        } else {
            if (!oc.grid_blocks) {
                int per_sm = 0;
                CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, chunk_kernel<GridTier, K>,
                                                                         s->p.threads, 0));
                const int most = per_sm * g->prop.multiProcessorCount;
                const int want = blocks_for((long)s->n * oc.tp, s->p.threads);
                if (most < 1)
                    nbr_fail(EXIT_INPUT, "%s: --tier grid: no block of --threads %d fits on an SM", s->variant->name,
                             s->p.threads);
                oc.grid_blocks = want < most ? want : most;
            }
            void *args[] = {&A};
            CUDA_CHECK(cudaLaunchCooperativeKernel((const void *)chunk_kernel<GridTier, K>, oc.grid_blocks,
                                                   s->p.threads, args, 0, g->stream));
        }
    });
    LAUNCH_CHECK("chunk_kernel");
    g->v_parts_valid = 0;
    return 1;
}

static int sample(Sim *s)
{
    GpuSim *g = gpu_of(s);
    CUDA_CHECK(cudaEventRecord(oc.done, g->stream));
    CUDA_CHECK(cudaEventSynchronize(oc.done));
    OnchipCtrl c;   /* mapped memory, written by the kernel before the event */
    memcpy(&c, (const void *)oc.ctrl_host, sizeof c);
    if (c.nbr_max_seen > oc.cap) {   /* a build overflowed: grow, restore, replay */
        fit_lists(s, g, c.nbr_max_seen);
        choose_tier(s);
        oc.grid_blocks = 0;
        const size_t b = sizeof(real4) * (size_t)s->n;
        CUDA_CHECK(cudaMemcpyAsync(g->r, oc.snap_r, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(g->v, oc.snap_v, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(g->a, oc.snap_a, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(oc.ctrl_stage, oc.ctrl_snap, sizeof(OnchipCtrl), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        oc.ctrl_stage->due = 1;   /* the new lists are built at the first replayed step */
        CUDA_CHECK(cudaMemcpyAsync(oc.ctrl, oc.ctrl_stage, sizeof(OnchipCtrl), cudaMemcpyHostToDevice, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        s->step = oc.snap_step;
        return oc.snap_step;
    }
    s->props.upot_sum = c.upot;
    s->props.ukin_sum = c.ukin;
    s->props.vv_max = c.vvmax;
    s->props.virial_sum = c.virial;
    Stats *st = &s->stats;
    st->builds_total = c.builds_total;
    st->builds = c.builds_prod;
    st->nbr_sum = c.nbr_sum_prod;
    st->nbr_entries = (double)c.nbr_last;
    st->rebuild_hash = c.rebuild_hash;
    st->bytes = g->bytes;
    oc.snap_step = s->step;
    return -1;
}

/* never called: chunk_run takes every chunk */
static void no_stage(Sim *s) { nbr_fail(EXIT_INTERNAL, "%s: internal: a per-step device stage was called", s->variant->name); }
static void no_leapfrog(Sim *s, int) { no_stage(s); }

int main(int argc, char **argv)
{
    static Variant v = gpu_variant("gpu-onchip",
        "small systems on chip: with --decide device one launch runs every step between two sample points, the "
        "system in one block's shared memory or a cooperative grid's L2; n2 lists of 16-bit indices, t_p lanes "
        "per atom, no Newton 3",
        build, NBR_COMPILER);
    v.knobs = KNOB_THREADS | KNOB_TP | KNOB_LIST | KNOB_DECIDE | KNOB_DEVICE | KNOB_TIER;
    v.tune = NULL;   /* not the shared stages' knobs; its own are issue 27's */
    v.max_atoms = ONCHIP_MAX_ATOMS;
    v.max_atoms_why = "16-bit list indices";
    v.init = init;
    v.finish = finish;
    v.forces = forces;
    v.reorder = NULL;
    v.for_each_pair = for_each_pair;
    v.stage_bytes = NULL;
    v.device_begin = device_begin;
    v.device_rebuild = no_stage;
    v.device_decide = no_stage;
    v.leapfrog = no_leapfrog;
    v.sample = sample;
    v.chunk_run = chunk_run;
    v.chunk_replay = NULL;
    v.chunk_begin = NULL;
    v.chunk_end = NULL;
    return nbr_main(argc, argv, &v);
}
