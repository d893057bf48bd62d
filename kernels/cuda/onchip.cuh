/* onchip.cuh - gpu-onchip (issue 27): the system on chip for every step between two sample
 * points, composed of the shared components (atom_rows.cuh: 16-bit rows, their cells and their
 * store; chunk_sync.cuh: a tier's sync and reduce policy; chunk_control.cuh: the device loop's
 * state, snapshot and control block; decide.cuh: the rebuild decision) in these files
 * (docs/onchip.md says why each is built as it is):
 *   onchip_chunk.cu   the chunk kernel: one step, written once over the three tiers
 *   onchip_tier.cu    the list and the tier for N, the capacity, t_p, the refusals, the launch
 *   onchip_loop.cu    the device loop's host side: the chunk's arguments and the sample point */
#ifndef NBR_ONCHIP_CUH
#define NBR_ONCHIP_CUH

#include "atom_rows.cuh"
#include "chunk_control.cuh"

/* gpu-onchip's own options (Variant.opts, declared in variants/gpu-onchip.cu). --tier (TIER_*,
 * chunk_sync.cuh): one block's shared memory, a cooperative grid over L2, or a thread-block
 * cluster; auto is the grid. --cluster: the cluster's blocks C (0 = by N). */
struct OnchipOpts {
    int tier;
    int cluster;
};
/* As given (Sim.opts: read-only), and what ran (Sim.ran_opts: the tier and C chosen, which the
 * row's tier and cluster pairs show). */
static inline const OnchipOpts *onchip_opts(const Sim *s) { return (const OnchipOpts *)s->opts; }
static inline OnchipOpts *onchip_ran(Sim *s) { return (OnchipOpts *)s->ran_opts; }

enum { ONCHIP_MAX_ATOMS = 65535 };

/* ---- the chunk kernel's arguments ------------------------------------------------------ */

struct ChunkArgs : ChunkState {
    Rows16 rows;
    RowCells<row16> cells;   /* m = 0: n2; counts: two arrays of M^3, by the parity of builds_total,
                                so that a build zeroes the next one's */
    real4 *rw0, *rw1;        /* the grid tier's positions */
    int stage;   /* grid tier: a rebuild stages the positions and their cells in each block's shared memory */
    int tp;
    real rn2;
};

/* The kernel's instance for blocks of `threads`: 512 up to 512 threads, so that a thread may
 * hold 128 registers (at 1024, 64 spilled the control block). */
template <class F>
static inline void oc_by_bound(int threads, F &&f)
{
    if (threads <= 512) f(std::integral_constant<int, 512>{});
    else f(std::integral_constant<int, 1024>{});
}

enum { ONCHIP_BLOCK_THREADS = 1024 };   /* the block tier's one block */

/* Byte offsets of a chunk's arrays in one block's dynamic shared memory, for the kernel and the
 * host alike: `pos` positions and `vel` velocities, the counts of `slots` rows and of `ncell`
 * cells, the rows (cap even: they copy as 32-bit words) and the cells' slots. */
struct OcSmem {
    size_t pos, vel, count, cell_count, list, cell_slot, end;
};
__host__ __device__ inline OcSmem oc_smem(int pos, int vel, int slots, int cap, int ncell, int ccap)
{
    OcSmem o;
    size_t at = 0;
    o.pos = at; at += sizeof(real4) * (size_t)pos;
    o.vel = at; at += sizeof(real4) * (size_t)vel;
    o.count = at; at += sizeof(int) * (size_t)slots;
    o.cell_count = at; at += sizeof(int) * (size_t)ncell;
    o.list = at; at += sizeof(row16) * (size_t)slots * cap;
    o.cell_slot = at; at += sizeof(row16) * (size_t)ncell * ccap;
    o.end = at;
    return o;
}
/* block: two position buffers, velocities, counts and rows of all N (cells in global memory) */
__host__ __device__ inline OcSmem oc_smem_block(int n, int cap) { return oc_smem(2 * n, n, n, cap, 0, 0); }
/* grid: its groups' rows (slots: groups per block x atoms per group); staged, positions and cells */
__host__ __device__ inline OcSmem oc_smem_grid(int n, int slots, int cap, bool staged, int ncell, int ccap)
{
    return oc_smem(staged ? n : 0, 0, slots, cap, staged ? ncell : 0, ccap);
}
/* cluster: two full position buffers, the own atoms' velocities and rows, the full copy's cells */
__host__ __device__ inline OcSmem oc_smem_cluster(int n, int C, int cap, int ncell, int ccap)
{
    const int own = ClusterSync::most_owned(n, C);
    return oc_smem(2 * n, own, own, cap, ncell, ccap);
}

/* ---- the program's state and its parts' host functions ------------------------------------ */

struct OnchipState {
    RowsStore store;          /* the rows and cells (their count arrays: ChunkArgs.cells) */
    int tier;                 /* TIER_BLOCK, TIER_GRID or TIER_CLUSTER: the one chunks run on now */
    int tp;                   /* lanes per atom */
    struct {                  /* the grid tier's plan: */
        int blocks;           /* co-resident blocks (0: to be planned) */
        int stage, bound;     /* whether its builds are staged (ChunkArgs.stage); the instance (oc_by_bound) */
        size_t smem;          /* dynamic shared memory per block */
    } grid;
    int limit[4];             /* dynamic shared memory one block of tier TIER_* may have */
    int cluster;              /* the cluster tier's blocks per cluster C */
    int cluster_threads;      /* and threads per block */
    DeviceControl *ctrl_host_dev;   /* GpuSim's ctrl_host, mapped: the device's address */
    real4 *rw0, *rw1;
    ChunkScratch *scratch;
};

/* onchip_chunk.cu: the chunk kernel of tier TIER_*, potential `kind` and instance `bound`
 * (oc_by_bound), sized and launched through its policy (chunk_sync.cuh's chunk_grant, ...) */
const void *onchip_kernel(int tier, int kind, int bound);

/* onchip_tier.cu */
int onchip_list_kind(const Sim *s, int *cells_per_axis);   /* --list resolved (refused: one line) */
void onchip_limits(Sim *s, OnchipState *oc);        /* shared memory per block of each tier */
void onchip_choose_tier(Sim *s, OnchipState *oc);   /* for the current capacity; may refuse */
void onchip_chunk_launch(Sim *s, OnchipState *oc, const ChunkArgs &A);

/* onchip_loop.cu */
void onchip_device_begin(Sim *s, OnchipState *oc);
ChunkArgs onchip_chunk_args(Sim *s, OnchipState *oc, int nsteps);
int onchip_sample(Sim *s, OnchipState *oc);   /* -1, or the step the replay restarts from */
void onchip_free(Sim *s, OnchipState *oc);    /* and zeroed: a trial's init may fail before its own */

#endif
