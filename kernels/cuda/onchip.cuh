/* onchip.cuh - gpu-onchip's component (issue 27): the system on chip for every step between two
 * sample points, in parts that the program (variants/gpu-onchip.cu) composes:
 *   onchip.cuh          the per-atom pieces of a step (the n2 or cell build, forces from a 16-bit
 *                       list, the leapfrog's kick and drift and the sample point's sums) and the
 *                       component's state; the rebuild decision is decide.cuh's
 *   onchip_chunk.cu     the chunk kernel, one step over three tiers: the block (one block, shared
 *                       memory), the grid (a cooperative grid over global memory / L2) and the
 *                       cluster (a thread-block cluster, distributed shared memory)
 *   onchip_tier.cu      the tier for N and the capacity: lanes per atom, what fits where, the
 *                       refusals (one line naming the limit), the chunk's launch on that tier
 *   onchip_stages.cu    the host path (--decide host, --check, --verify-lists, --stage-reps): the
 *                       same build and forces as per-stage kernels; the lists and their capacity
 *   onchip_loop.cu      the device loop's host side: the chunk's arguments and the sample point
 *                       (the control block, its snapshot and replay are the device loop's)
 * The pieces below are written once for their three users: the chunk kernel of each tier and the
 * per-stage kernels of the host path.
 *
 * Atoms are served by groups of tp lanes of one warp (tp a power of 2 up to 32, so a group
 * never straddles warps): lane l of atom i's group takes candidates / list entries l, l + tp,
 * ...; the group's sums are shuffled together. Lists are 16-bit indices (N <= 65535), atom i's
 * entries at list[i * cap + m], m < count[i]; a build that finds more than cap neighbours
 * stores cap of them and returns the true count, so the caller sees the overflow and never
 * uses a truncated list (it grows the capacity and builds again, or replays the chunk).
 *
 * Two builds (--list): n2 tests every j, in index order; cells (OnchipCells) bins the atoms
 * into M^3 cells of edge L / M >= r_n (M >= 3), a fixed number of 16-bit slots per cell, and
 * tests the atoms of the 27 cells around i's, in the slots' order (atomic, so the lists hold
 * the same pairs in any order). A cell that gets more atoms than its slots is the same kind of
 * overflow: the bin returns the occupancy, the caller grows the slots and bins again (host
 * path) or replays the chunk (device loop), never building from a truncated cell. */
#ifndef NBR_ONCHIP_CUH
#define NBR_ONCHIP_CUH

#include "decide.cuh"
#include "leapfrog.cuh"
#include "pair_force.cuh"

#include <stdint.h>

typedef uint16_t onchip_idx;

/* gpu-onchip's own options (Variant.opts, declared in variants/gpu-onchip.cu): no other program
 * has them, so they live in this struct, not in Params. --tier: the system in one block's shared
 * memory, a cooperative grid over global memory (L2), or a thread-block cluster (positions
 * replicated in every block's shared memory); auto is the grid (onchip_tier.cu). --cluster: the
 * cluster's blocks C (0 = by N). */
enum { TIER_AUTO, TIER_BLOCK, TIER_GRID, TIER_CLUSTER };
struct OnchipOpts {
    int tier;
    int cluster;
};
/* As given (Sim.opts: read-only), and what ran (Sim.ran_opts: the tier and C chosen, which the
 * row's tier and cluster pairs show). */
static inline const OnchipOpts *onchip_opts(const Sim *s) { return (const OnchipOpts *)s->opts; }
static inline OnchipOpts *onchip_ran(Sim *s) { return (OnchipOpts *)s->ran_opts; }

enum { ONCHIP_MAX_ATOMS = 65535 };

/* log2 t_p (t_p a power of 2). Callers form t_p as 1 << it, so that the compiler knows t_p is
 * a power of 2: the divisions by it in the inlined pieces (loop trip counts) compile to shifts,
 * not to ~20 instructions each (the force loop's trip count was one per atom and step). */
__device__ __forceinline__ int oc_log2(int tp) { return __ffs(tp) - 1; }

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
                                                 const PbcBox &box, real rn2, onchip_idx *list_i, int cap)
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
            hit = min_image_r2(ri, r[j], box, dx, dy, dz) < rn2;
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

/* The cell grid of --list cells: M cells per side of edge L / M >= r_n (the program takes M with
 * a margin of 1e-5 so that the rounding of (x + L/2) M / L never puts two atoms within r_n two
 * cells apart), `cap` slots per cell. m = 0: the n2 build. */
/* The 27 cells around an atom's; a test build (tests/cases_56_onchip.sh) plants one fewer. */
#ifdef NBR_PLANT_ONCHIP_CELLS26
constexpr int ONCHIP_CELLS_SEARCHED = 26;
#else
constexpr int ONCHIP_CELLS_SEARCHED = 27;
#endif

struct OnchipCells {
    int m, cap;
    real inv_h;         /* M / L */
    int *count;         /* M^3 occupancies (zero before a bin) */
    onchip_idx *slot;   /* cell c's atoms at slot[c * cap + k], k < min(count[c], cap) */
};

/* The cell of a position on one axis, the grid's (gpu_sim.cuh's cell_of_position), wrapped here:
 * the host path builds from unwrapped ones; Wrapped: x is already in [-L/2, L/2). */
template <bool Wrapped = false>
__device__ __forceinline__ int oc_cell_axis(real x, real L, const OnchipCells &g)
{
    return cell_coord(Wrapped ? x : pbc_wrap(x, L), L, g.inv_h, g.m);
}

/* Atom i into its cell (one thread per atom, counts zeroed before): the shared cell_bin on 16-bit
 * slots; returns the cell's occupancy with it, over g.cap when the cell overflowed. */
template <bool Wrapped = false>
__device__ __forceinline__ int onchip_cells_bin(int i, const real4 &ri, real L, const OnchipCells &g)
{
    const int c = cell_index(oc_cell_axis<Wrapped>(ri.x, L, g), oc_cell_axis<Wrapped>(ri.y, L, g),
                             oc_cell_axis<Wrapped>(ri.z, L, g), g.m);
    return cell_bin(i, c, g.count, g.slot, g.cap);
}

/* The cell build of atom i by its group of tp lanes: each j != i of the 27 cells around i's
 * within r_n. Every lane of the warp calls (the warp's groups loop to the fullest of their cells,
 * so the ballots take the whole warp and stay convergent: a group-masked ballot in diverged
 * groups cost ~3 votes and a branch a round on the H200). walk_cells shifts i's position next to
 * each periodic image of a cell, so a candidate costs three subtractions, not a minimum image
 * (the build was ~45% of a 4096-atom step's instructions: results/h200/onchip.md). Returns m_i
 * in every lane of the group (0 for an inactive group); stores min(m_i, cap). */
__device__ __forceinline__ int onchip_build_atom_cells(int i, bool active, int sub, int tp, const real4 *r,
                                                       const PbcBox &box, real rn2, const OnchipCells &g,
                                                       onchip_idx *list_i, int cap)
{
    const unsigned gmask = onchip_group_mask(tp);
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    const real4 ri = active ? r[i] : make_real4(0, 0, 0, 0);
    int m = 0, visited = 0;
    walk_cells<1>(oc_cell_axis(ri.x, box.L, g), oc_cell_axis(ri.y, box.L, g), oc_cell_axis(ri.z, box.L, g), g.m,
                  box.L, ri, [&](int c, const real4 &rs) {
        if (++visited > ONCHIP_CELLS_SEARCHED) return;
        const int cnt = active ? min(g.count[c], g.cap) : 0;
        const int most = __reduce_max_sync(0xffffffffu, cnt);
        const onchip_idx *sl = g.slot + (size_t)c * g.cap;
        for (int s = sub; s - sub < most; s += tp) {
            int j = 0;
            bool hit = false;
            if (s < cnt && (j = sl[s]) != i) {
                const real4 rj = r[j];
                const real dx = rs.x - rj.x, dy = rs.y - rj.y, dz = rs.z - rj.z;
                hit = dx * dx + dy * dy + dz * dz < rn2;
            }
            const unsigned b = __ballot_sync(0xffffffffu, hit) & gmask;
            if (hit) {
                const int pos = m + __popc(b & below);
                if (pos < cap) list_i[pos] = (onchip_idx)j;
            }
            m += __popc(b);
        }
    });
    return m;
}

/* Atom i's list by the build `g` says (g.m = 0: n2); every lane of the warp calls, the same
 * number of times. */
__device__ __forceinline__ int onchip_build_list(int i, bool active, int sub, int tp, const real4 *r, int n,
                                                 const PbcBox &box, real rn2, const OnchipCells &g,
                                                 onchip_idx *list_i, int cap)
{
    return g.m ? onchip_build_atom_cells(i, active, sub, tp, r, box, rn2, g, list_i, cap)
               : onchip_build_atom(i, active, sub, tp, r, n, box, rn2, list_i, cap);
}

/* Forces on atom i from its list (pair_force.cuh's pair loop over a 16-bit list in shared or
 * global memory): the group's sums of f, u(r_ij) and r_ij . f_ij, in every lane of the group.
 * Every lane of the warp calls. !Energy: f only (u, w stay 0), for the steps before a sample
 * point: 3 shuffles a level, not 5. */
template <int Kind, bool Energy = true>
__device__ __forceinline__ ForceSum onchip_force_atom(int i, bool active, int sub, int tp, const real4 *r,
                                                     const onchip_idx *list_i, int count, const PbcBox &box,
                                                     const PairPotential &pot)
{
    ForceSum f = {0, 0, 0, 0, 0};
    if (active)   /* a position is one vector load (a reference would let q_j load apart) */
        pair_loop<Kind, false, Energy, false>(sub, count, tp, r[i], box, pot, [&](int m) { return (int)list_i[m]; },
                                              [&](int j) { return r[j]; }, f);
    group_sum_all<Energy>(f, tp);
    return f;
}

/* ---- the chunk kernel's arguments ------------------------------------------------------ */

/* The grid tier's cross-block reductions. vv_bits: the step's largest v^2 (bits of a
 * non-negative double), three slots in rotation so that one grid sync per step suffices. */
struct GridScratch {
    unsigned long long vv_bits[3];
    double sums[5];   /* ukin, upot, virial, last build's entries, production builds' entries */
    int nbr_max, cell_max;
};

struct ChunkArgs {
    real4 *r, *v, *a;
    real *u;
    real4 *snap_r, *snap_v, *snap_a;
    onchip_idx *list;
    int *count;
    OnchipCells cells;   /* m = 0: n2; the grid and block tiers' cells (count: two arrays of M^3, by the
                            parity of builds_total, so that a build zeroes the next one's) */
    real4 *rw0, *rw1;
    DeviceControl *ctrl, *ctrl_snap, *ctrl_host;   /* the device loop's (device_loop.cu); ctrl_host mapped */
    double *props;       /* the sample point's sums (PART_*: GpuSim's props, mapped) */
    GridScratch *scratch;
    PairPotential pot;
    int stage;   /* grid tier: a rebuild copies the positions into each block's shared memory and bins
                    them into its own cells there (where they fit) */
    int n, tp, cap, nsteps, equil;
    PbcBox box;          /* L, and 1/L formed once for the minimum image */
    real rn2, dt, half_dt;
    double ddt, threshold;
};

/* The chunk kernels' instance for blocks of `threads` (its __launch_bounds__): 512 up to 512
 * threads, so that a thread may hold 128 registers (at 1024, 64 spilled the control block). */
template <class F>
static inline void oc_by_bound(int threads, F &&f)
{
    if (threads <= 512) f(std::integral_constant<int, 512>{});
    else f(std::integral_constant<int, 1024>{});
}

/* Threads of the block tier's one block; blocks per cluster at most (16: the non-portable size of
 * sm_90). */
enum { ONCHIP_BLOCK_THREADS = 1024, CLUSTER_MAX = 16 };

/* Own atoms per block of the cluster tier at most. */
__host__ __device__ inline int onchip_cluster_own(int n, int C) { return (n + C - 1) / C; }

/* Byte offsets of a chunk's arrays in one block's dynamic shared memory, in this order: `pos`
 * positions and `vel` velocities (real4), the counts of `slots` lists and of `ncell` cells
 * (int), the 16-bit lists (cap even, so that their words copy as 32-bit words) and the cells'
 * slots. The kernel (each tier's layout) and the host (the size it asks for) both read it. */
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
    o.list = at; at += sizeof(onchip_idx) * (size_t)slots * cap;
    o.cell_slot = at; at += sizeof(onchip_idx) * (size_t)ncell * ccap;
    o.end = at;
    return o;
}
/* The block tier: two position buffers, the velocities, counts and lists of all N atoms (its
 * cells are in global memory). */
__host__ __device__ inline OcSmem oc_smem_block(int n, int cap) { return oc_smem(2 * n, n, n, cap, 0, 0); }
/* The grid tier: its groups' lists and counts (slots: groups per block x atoms per group), and
 * where the build is staged the positions and the cell grid. */
__host__ __device__ inline OcSmem oc_smem_grid(int n, int slots, int cap, bool staged, int ncell, int ccap)
{
    return oc_smem(staged ? n : 0, 0, slots, cap, staged ? ncell : 0, ccap);
}
/* The cluster tier: two full position buffers, the own atoms' velocities, counts and lists, and
 * the cell grid every block bins its full copy into (ncell = 0 for n2). */
__host__ __device__ inline OcSmem oc_smem_cluster(int n, int C, int cap, int ncell, int ccap)
{
    const int own = onchip_cluster_own(n, C);
    return oc_smem(2 * n, own, own, cap, ncell, ccap);
}

/* ---- the component's state and its parts' host functions ---------------------------------- */

/* One simulation's on-chip state (the program keeps one; every part takes it explicitly). */
struct OnchipState {
    onchip_idx *list;
    int *count;
    int cap;
    Capacity capacity;
    int list_kind;     /* LIST_N2 or LIST_CELLS (--list, resolved) */
    int cm;            /* cells per side M (0: n2) */
    int *cell_count;   /* 2 M^3 (ChunkArgs.cells); the host path uses the first M^3 */
    onchip_idx *cell_slot;
    int ccap;          /* slots per cell */
    Capacity cell_capacity;
    int tier;          /* TIER_BLOCK, TIER_GRID or TIER_CLUSTER: the one chunks run on now */
    int tp;            /* lanes per atom */
    int block_threads; /* the block tier's block */
    int grid_blocks;   /* the grid tier's co-resident blocks (0: to be planned) */
    int grid_stage;    /* and whether its builds are staged in shared memory (ChunkArgs.stage) */
    int grid_bound;    /* and its kernel's instance (oc_by_bound: 512 or 1024) */
    size_t grid_smem;  /* its dynamic shared memory per block */
    int grid_limit;    /* the most one block of the grid tier may have */
    int smem_limit;    /* dynamic shared memory one block may have (block tier) */
    int cluster;       /* the cluster tier's blocks per cluster C */
    int cluster_threads; /* and threads per block */
    int cluster_limit; /* dynamic shared memory one block of the cluster tier may have */
    DeviceControl *ctrl_host_dev;/* GpuSim's ctrl_host, mapped: the device's address */
    real4 *rw0, *rw1;            /* the grid tier's positions */
    GridScratch *scratch;
};

/* onchip_chunk.cu, the chunk kernel on each tier. *_prepare: the dynamic shared memory one block
 * may have (the opt-in limit less the static), granted to the kernel of potential `kind` (the
 * cluster's also asks for non-portable cluster sizes). */
int onchip_block_prepare(int optin, int kind);
void onchip_block_launch(const ChunkArgs &A, int kind, int threads, size_t smem, cudaStream_t stream);
int onchip_grid_prepare(int optin, int kind);
/* co-resident blocks per SM of the instance for blocks of up to `bound` threads (oc_by_bound) */
int onchip_grid_per_sm(int kind, int threads, size_t smem, int bound);
void onchip_grid_launch(ChunkArgs A, int kind, int blocks, int threads, size_t smem, int bound, cudaStream_t stream);
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
int onchip_list_kind(const Sim *s, int *cells_per_axis);   /* --list resolved (refused: one line) */
void onchip_init_cells(Sim *s, OnchipState *oc);           /* and M, the cell slots */
int onchip_fit_cells(Sim *s, OnchipState *oc, int need);   /* 1: grown (bin again) */
OnchipCells onchip_cells(const Sim *s, const OnchipState *oc);
void onchip_build(Sim *s, OnchipState *oc);
void onchip_forces(Sim *s, OnchipState *oc);
void onchip_for_each_pair(Sim *s, OnchipState *oc, PairFn fn, void *arg);

/* onchip_loop.cu */
void onchip_device_begin(Sim *s, OnchipState *oc);
ChunkArgs onchip_chunk_args(Sim *s, OnchipState *oc, int nsteps);
int onchip_sample(Sim *s, OnchipState *oc);   /* -1, or the step the replay restarts from */
void onchip_free(Sim *s, OnchipState *oc);    /* and zeroed: a trial's init may fail before its own */

#endif
