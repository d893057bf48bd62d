/* onchip.cuh - gpu-onchip's component (issue 27): the system on chip for every step between two
 * sample points, in parts that the program (variants/gpu-onchip.cu) composes:
 *   onchip.cuh          the per-atom pieces of a step (n2 build, forces from a 16-bit list, the
 *                       leapfrog's kick and drift, the rebuild decision) and the component's state
 *   onchip_chunk.cu     the chunk kernel of the block tier (one block, shared memory) and the grid
 *                       tier (a cooperative grid over global memory / L2)
 *   onchip_cluster.cu   the chunk kernel of the cluster tier (distributed shared memory)
 *   onchip_tier.cu      the tier for N and the capacity: lanes per atom, what fits where, the
 *                       refusals (one line naming the limit), the chunk's launch on that tier
 *   onchip_stages.cu    the host path (--decide host, --check, --verify-lists, --stage-reps): the
 *                       same build and forces as per-stage kernels; the lists and their capacity
 *   onchip_loop.cu      the device loop's host side: the control block, the chunk's arguments,
 *                       the sample point (and the grown capacity's replay)
 * The pieces below are written once for their three users: the chunk kernel of each tier and the
 * per-stage kernels of the host path.
 *
 * Atoms are served by groups of tp lanes of one warp (tp a power of 2 up to 32, so a group
 * never straddles warps): lane l of atom i's group takes candidates / list entries l, l + tp,
 * ...; the group's sums are shuffled together. Lists are 16-bit indices (N <= 65535), atom i's
 * entries at list[i * cap + m], m < count[i]; a build that finds more than cap neighbours
 * stores cap of them and returns the true count, so the caller sees the overflow and never
 * uses a truncated list (it grows the capacity and builds again, or replays the chunk). */
#ifndef NBR_ONCHIP_CUH
#define NBR_ONCHIP_CUH

#include "leapfrog.cuh"
#include "pair_force.cuh"

#include <stdint.h>

typedef uint16_t onchip_idx;

enum { ONCHIP_MAX_ATOMS = 65535 };

/* The lanes of this thread's group within its warp, as a ballot mask. */
__device__ __forceinline__ unsigned onchip_group_mask(int tp)
{
    const int lane = threadIdx.x & 31;
    return tp == 32 ? 0xffffffffu : ((1u << tp) - 1u) << (lane & ~(tp - 1));
}

/* The n2 build of atom i by its group (every lane of the warp calls, active or not, the same
 * number of times: the ballots take the whole warp): each j != i within r_n, in index order.
 * Returns m_i (every lane of the group); stores min(m_i, cap) entries. */
__device__ __forceinline__ int onchip_build_atom(int i, bool active, int sub, int tp, const real4 *r, int n,
                                                 real L, real rn2, onchip_idx *list_i, int cap)
{
    const unsigned gmask = onchip_group_mask(tp);
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    const real4 ri = active ? r[i] : make_real4(0, 0, 0, 0);
    int m = 0;
    for (int j0 = 0; j0 < n; j0 += tp) {
        const int j = j0 + sub;
        bool hit = false;
        if (active && j < n && j != i) {
            real dx, dy, dz;
            hit = min_image_r2(ri, r[j], L, dx, dy, dz) < rn2;
        }
        const unsigned b = __ballot_sync(0xffffffffu, hit) & gmask;
        if (hit) {
            const int pos = m + __popc(b & below);
            if (pos < cap) list_i[pos] = (onchip_idx)j;
        }
        m += __popc(b);
    }
    return m;
}

/* Forces on atom i from its list (the per-pair function of the shared force family,
 * pair_force.cuh, over a 16-bit list in shared or global memory): the group's sums of f,
 * u(r_ij) and r_ij . f_ij, in every lane of the group. Every lane of the warp calls. */
template <int Kind>
__device__ __forceinline__ ForceSum onchip_force_atom(int i, bool active, int sub, int tp, const real4 *r,
                                                     const onchip_idx *list_i, int count, real L,
                                                     const PairPotential &pot)
{
    ForceSum f = {0, 0, 0, 0, 0};
    if (active) {
        const real4 ri = r[i];
#pragma unroll 4
        for (int m = sub; m < count; m += tp) {
            const real4 rj = r[list_i[m]];   /* one vector load (a reference would let q_j load apart) */
            pair_force_add<Kind>(ri, rj, L, pot, f);
        }
    }
    for (int o = tp >> 1; o > 0; o >>= 1) {
        f.fx += __shfl_xor_sync(0xffffffffu, f.fx, o);
        f.fy += __shfl_xor_sync(0xffffffffu, f.fy, o);
        f.fz += __shfl_xor_sync(0xffffffffu, f.fz, o);
        f.u += __shfl_xor_sync(0xffffffffu, f.u, o);
        f.w += __shfl_xor_sync(0xffffffffu, f.w, o);
    }
    return f;
}


/* ---- a step's pieces and the chunk kernels' arguments ------------------------------------ */

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

/* Threads of the block tier's one block; blocks per cluster at most (16: the non-portable size of
 * sm_90). */
enum { ONCHIP_BLOCK_THREADS = 1024, CLUSTER_MAX = 16 };

/* Bytes of dynamic shared memory the block tier needs: two position buffers, velocities (real4),
 * counts (int) and the lists (16-bit, cap even so the list words copy as 32-bit words). */
static inline size_t onchip_block_smem(int n, int cap) { return (size_t)n * (3 * sizeof(real4) + sizeof(int)) + (size_t)n * cap * 2; }

/* Own atoms per block at most, and the dynamic shared memory of one block of the cluster tier:
 * two full position buffers, then the own atoms' velocities, counts and 16-bit lists. */
static inline int onchip_cluster_own(int n, int C) { return (n + C - 1) / C; }
static inline size_t onchip_cluster_smem(int n, int C, int cap)
{
    const size_t own = (size_t)onchip_cluster_own(n, C);
    return 2 * (size_t)n * sizeof(real4) + own * (sizeof(real4) + sizeof(int)) + own * cap * 2;
}

/* the other GPU programs' leapfrog arithmetic (leapfrog.cuh), so the same trajectory */
__device__ __forceinline__ void oc_half_kick(real4 &vi, const real4 &ai, real h) { half_kick(vi, ai, h); }
__device__ __forceinline__ void oc_drift(real4 &ri, const real4 &vi, real dt) { drift(ri, vi, dt); }
__device__ __forceinline__ double oc_speed2(const real4 &vi) { return speed2(vi); }

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

/* ---- the component's state and its parts' host functions ---------------------------------- */

/* One simulation's on-chip state (the program keeps one; every part takes it explicitly). */
struct OnchipState {
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

/* onchip_chunk.cu: the block and grid tiers. *_prepare: the dynamic shared memory one block may
 * have (the opt-in limit less the static), granted to the kernel of potential `kind`. */
int onchip_block_prepare(int optin, int kind);
void onchip_block_launch(const ChunkArgs &A, int kind, int threads, size_t smem, cudaStream_t stream);
int onchip_grid_per_sm(int kind, int threads);   /* co-resident blocks per SM */
void onchip_grid_launch(ChunkArgs A, int kind, int blocks, int threads, cudaStream_t stream);

/* onchip_cluster.cu: the cluster tier (prepare also asks for non-portable cluster sizes). */
int onchip_cluster_prepare(int optin, int kind);
cudaError_t onchip_cluster_occupancy(int kind, int C, int threads, size_t smem, int *nclusters);
void onchip_cluster_launch(const ChunkArgs &A, int kind, int C, int threads, size_t smem, cudaStream_t stream);

/* onchip_tier.cu */
void onchip_limits(Sim *s, OnchipState *oc);        /* shared memory per block of each tier */
void onchip_choose_tier(Sim *s, OnchipState *oc);   /* for the current capacity; may refuse */
void onchip_chunk_launch(Sim *s, OnchipState *oc, const ChunkArgs &A);

/* onchip_stages.cu */
void onchip_alloc_lists(Sim *s, OnchipState *oc);
int onchip_fit_lists(Sim *s, OnchipState *oc, int need);   /* 1: grown (build again) */
void onchip_build(Sim *s, OnchipState *oc);
void onchip_forces(Sim *s, OnchipState *oc);
void onchip_for_each_pair(Sim *s, OnchipState *oc, PairFn fn, void *arg);

/* onchip_loop.cu */
void onchip_device_begin(Sim *s, OnchipState *oc);
ChunkArgs onchip_chunk_args(Sim *s, OnchipState *oc, int nsteps);
int onchip_sample(Sim *s, OnchipState *oc);   /* -1, or the step the replay restarts from */
void onchip_free(Sim *s, OnchipState *oc);    /* and zeroed: a trial's init may fail before its own */

#endif
