/* pair_force.cuh - the one pair-force kernel family of the GPU programs (issue 26): forces from
 * a neighbour list W(m, i) or from all pairs, one or t_p lanes per atom, no Newton's third law
 * (Rapaport 2011: random read-modify-write of f_j would cost more than computing every pair
 * twice), f_i and u_i held in registers and written once. gpu-layer, gpu-old and gpu-dd
 * (force.cu's gpu_forces_blocks) and gpu-rumd (RUMD's Fig. 3: t_p threads per particle in
 * blocks of p_b particles, --prefetch, --list none) launch it; gpu-onchip runs its pair loop
 * over its 16-bit lists. Written once, in four layers:
 *
 *   pair_force_add     one pair (i, j): minimum image, within r_c, the potential kind,
 *                      accumulated into a ForceSum (f_i, u, and the virial fr r^2);
 *   pair_loop          atom i's entries m = first, first + stride, ... of any list (W's row
 *                      or col layout here, gpu-onchip's 16-bit rows) or, AllPairs, every j;
 *                      Prefetch loads the next index and position before the current pair;
 *   pair_force_block   a lane layout (TP lanes per atom, atoms per block) over the loop, the
 *                      lanes' sums shuffled together (group_sum), a[i], u[i] written: one force
 *                      block, by pair_force_kernel (a block each) or gpu-rumd's chunk kernel;
 *   the block sums     of u_i, w_i into the reduction partials PART_UPOT, PART_VIRIAL of the
 *                      per-atom launch (integrate.cu's final reduction and gpu_props read them).
 *
 * Alongside u_i = (1/2) sum_j u(r_ij) the lanes accumulate the virial of the atom,
 * w_i = (1/2) sum_j r_ij . f_ij = (1/2) sum_j fr r_ij^2 (each pair is seen from both ends of
 * the full list, hence the halves); w_i itself is not stored. Charges travel in r.w (gpu_upload
 * puts q_i there; the reorderings move whole real4s), so the charged potential costs no extra
 * gather; the potential kind is a template parameter (pair_of_kind, gpu_sim.cuh).
 *
 * The reduction: force block b leaves its sums in scratch slot b, and the last of the `group`
 * force blocks b = slot * group, ... to finish (a fence and a ticket per slot) adds them in a
 * fixed order into partial `slot`: the same sum every run, and no serial tail over the whole
 * grid (RUMD's one-ticket scheme made the last block add every block's partial). group 1 writes
 * the partial directly. The W launch groups the TP blocks that hold one per-atom block's atoms
 * (group = TP); gpu-rumd's blocks of p_b particles do not line up with the per-atom blocks, so
 * its group is ceil(force blocks / per-atom blocks) and the partials past the last slot stay at
 * the zeros gpu_init left (only this kernel writes them). */
#ifndef NBR_PAIR_FORCE_CUH
#define NBR_PAIR_FORCE_CUH

#include "gpu_sim.cuh"

/* What a particle's lanes add up in the force loop (before the halves of u and the virial). */
struct ForceSum {
    real fx, fy, fz, u, w;
};

/* How one block is laid out: t_p lanes per atom (particle), whole warps. Threads of a particle
 * never straddle a warp: with t_p <= 32 a warp holds floor(32 / t_p) particles (t_p that do not
 * divide 32 leave the last 32 mod t_p lanes idle); with t_p > 32 (a multiple of 32) a particle
 * takes t_p / 32 whole warps and the warps' sums meet in shared memory. Shared by the force
 * kernel and gpu-rumd's n2 list build. */
struct TpLayout {
    int tp;          /* threads per particle */
    int per_warp;    /* particles per warp (t_p <= 32), else 0 */
    int wpp;         /* warps per particle (t_p > 32), else 0 */
    int ppb;         /* particles per block (p_b rounded up to whole warps) */
    int threads;     /* threads per block */
};

/* The layout for t_p and p_b (p_b rounded up to fill whole warps); threads over 1024 stop the
 * run with one line naming both knobs. */
static inline TpLayout tp_layout(int tp, int pb, const char *who)
{
    TpLayout t = {tp, 0, 0, 0, 0};
    if (tp <= 32) {
        t.per_warp = 32 / tp;
        const int warps = (pb + t.per_warp - 1) / t.per_warp;
        t.ppb = warps * t.per_warp;
        t.threads = 32 * warps;
    } else {
        t.wpp = tp / 32;
        t.ppb = pb;
        t.threads = pb * tp;
    }
    if (t.threads > 1024)
        nbr_fail(EXIT_INPUT, "%s: --pb %d x --tp %d needs %d threads per block, over CUDA's 1024: lower --pb or --tp",
                 who, pb, tp, t.threads);
    return t;
}

/* This thread's particle (index within the block) and its rank among the particle's threads;
 * idle: a lane past the last whole group of its warp. */
__device__ __forceinline__ void tp_place(const TpLayout &t, int &local, int &sub, bool &idle)
{
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    if (t.tp <= 32) {
        const int group = lane / t.tp;
        local = warp * t.per_warp + group;
        sub = lane - group * t.tp;
        idle = group >= t.per_warp;
    } else {
        local = warp / t.wpp;
        sub = (warp - local * t.wpp) * 32 + lane;
        idle = false;
    }
}

/* Sum over the t_p threads of each particle, valid in the thread with sub == 0. Every thread
 * of the block must call (idle lanes too: the shuffles take the whole warp). With t_p <= 32
 * a tree over the group's lanes that skips partners beyond the group (any t_p, not only
 * powers of 2); above 32 a full-warp tree, then the t_p / 32 warp sums in shared memory. */
__device__ __forceinline__ ForceSum group_sum(ForceSum x, const TpLayout &t, int sub)
{
    const unsigned full = 0xffffffffu;
    const int width = t.tp <= 32 ? t.tp : 32;
    for (int o = 16; o > 0; o >>= 1) {
        if (o >= width) continue;   /* uniform over the block: no partner that far inside a group */
        ForceSum y;
        y.fx = __shfl_down_sync(full, x.fx, o);
        y.fy = __shfl_down_sync(full, x.fy, o);
        y.fz = __shfl_down_sync(full, x.fz, o);
        y.u = __shfl_down_sync(full, x.u, o);
        y.w = __shfl_down_sync(full, x.w, o);
        if ((sub & 31) + o < width) {
            x.fx += y.fx; x.fy += y.fy; x.fz += y.fz; x.u += y.u; x.w += y.w;
        }
    }
    if (t.tp > 32) {   /* uniform over the block: every thread reaches the barriers */
        __shared__ ForceSum warp_sum[32];
        const int warp = threadIdx.x >> 5;
        __syncthreads();
        if ((threadIdx.x & 31) == 0) warp_sum[warp] = x;
        __syncthreads();
        if (sub == 0)
            for (int k = 1; k < t.wpp; k++) {
                const ForceSum &y = warp_sum[warp + k];
                x.fx += y.fx; x.fy += y.fy; x.fz += y.fz; x.u += y.u; x.w += y.w;
            }
    }
    return x;
}

/* Pair (i, j) into the running sums if within r_c (minimum image). SkipSelf: j may be i (the
 * all-pairs loop), whose r2 = 0 adds nothing; a list never holds i itself. !Energy: f only, u and
 * the virial left alone (so their arithmetic compiles away), for steps that sum no energies. */
template <int Kind, bool SkipSelf = false, bool Energy = true>
__device__ __forceinline__ void pair_force_add(const real4 &ri, const real4 &rj, const PbcBox &box,
                                               const PairPotential &pot, ForceSum &acc)
{
    real dx, dy, dz;
    const real r2 = min_image_r2(ri, rj, box, dx, dy, dz);
    real cut = r2;   /* what is tested against r_c^2 */
    NBR_PLANT(6, cut = r2 / (real)1.001);
    if (cut < pot.rc2 && (!SkipSelf || r2 > 0)) {
        real fr, qq = ri.w * rj.w;
        NBR_PLANT(7, qq = ri.w * ri.w);
        real u = pair_of_kind<Kind>(pot, r2, qq, &fr);
        NBR_PLANT(3, if (r2 > (real)0.81 * pot.rc2) fr = -fr);
        NBR_PLANT(4, u -= pot.lj.shift);
        acc.fx += fr * dx; acc.fy += fr * dy; acc.fz += fr * dz;
        if (Energy) {
            acc.u += u;
            acc.w += fr * r2;
            NBR_PLANT(5, acc.w += fr * r2);
        }
    }
}

/* What the force kernel reads and writes (explicit: no GpuSim). */
struct PairForceArgs {
    PosSource pos;                    /* r_j through the --read path; charges in r.w */
    const int *W, *nbr_count;         /* the list (unused with all pairs) */
    int n, nbr_cap;
    PbcBox box;                       /* the box, 1/L formed once (pbc_box) */
    PairPotential pot;
    real4 *a;                         /* f_i (unit mass) */
    real *u;                          /* u_i = (1/2) sum_j u(r_ij) */
    TpLayout lay;                     /* the lanes, where TP is not a template parameter */
    double *part_upot, *part_virial;  /* the per-atom launch's partials (PART_UPOT, PART_VIRIAL) */
    int block0;                       /* first force block of this launch (gpu_forces_blocks) */
    int group;                        /* force blocks per partial, where Group is not a template parameter */
    int force_blocks;                 /* force blocks of a whole launch (the last slot's members) */
    double *scratch;                  /* 2 per force block, where group > 1 */
    unsigned *tickets;                /* 1 per partial, zero between launches */
};

/* The block's sums of u_i and w_i into the partials: every thread of the block calls (the
 * reductions take all); Group as pair_force_kernel's (0: A.group). */
template <int Group>
__device__ __forceinline__ void force_block_sums(const PairForceArgs &A, int block, real ui, real wi)
{
    const double usum_block = block_reduce((double)ui, SumOp(), 0.0);
    const double wsum_block = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x != 0) return;
    const int group = Group > 0 ? Group : A.group;
    const int slot = block / group;
    const int members = Group > 0 ? Group : min(group, A.force_blocks - slot * group);
    if (members == 1) {
        A.part_upot[slot] = usum_block;
        A.part_virial[slot] = wsum_block;
        return;
    }
    /* the force blocks of partial `slot`: the last to finish adds their sums in order */
    A.scratch[2 * block] = usum_block;
    A.scratch[2 * block + 1] = wsum_block;
    __threadfence();
    if (atomicInc(&A.tickets[slot], members - 1) != (unsigned)(members - 1)) return;
    __threadfence();
    double su = 0, sw = 0;
    for (int k = 0; k < members; k++) {
        su += __ldcg(A.scratch + 2 * (slot * group + k));
        sw += __ldcg(A.scratch + 2 * (slot * group + k) + 1);
    }
    A.part_upot[slot] = su;
    A.part_virial[slot] = sw;
}

/* The pair loop, written once for every force kernel: atom i's entries m = first, first +
 * stride, ... < end, entry m being atom nbr(m) at position pos(j), into acc. The list's format
 * (W's rows or columns, gpu-onchip's 16-bit rows, or every j: AllPairs) and where positions are
 * read (the --read path, shared memory) are the caller's accessors. Prefetch: the next index
 * and position are loaded before the current pair is worked on; else four in flight. */
template <int Kind, bool SkipSelf, bool Energy, bool Prefetch, class Nbr, class Pos>
__device__ __forceinline__ void pair_loop(int first, int end, int stride, const real4 &ri, const PbcBox &box,
                                          const PairPotential &pot, Nbr nbr, Pos pos, ForceSum &acc)
{
    if (Prefetch) {
        if (first >= end) return;
        int j = nbr(first);
        real4 rj = pos(j);
        for (int m = first; m < end; m += stride) {
            const int next = m + stride < end ? nbr(m + stride) : j;
            const real4 rn = pos(next);
            pair_force_add<Kind, SkipSelf, Energy>(ri, rj, box, pot, acc);
            rj = rn;
        }
    } else {
#pragma unroll 4   /* several index reads, then several gathers, in flight per thread */
        for (int m = first; m < end; m += stride) pair_force_add<Kind, SkipSelf, Energy>(ri, pos(nbr(m)), box, pot, acc);
    }
}

/* pair_loop over atom i's entries of W (Layout row or col), or with AllPairs every j < n. */
template <int Kind, int Mode, int Layout, bool Prefetch, bool AllPairs>
__device__ __forceinline__ void neighbour_loop(const PairForceArgs &A, int i, int count, int first, int stride,
                                               const real4 &ri, ForceSum &acc)
{
    const int *__restrict__ W = A.W;
    pair_loop<Kind, AllPairs, true, Prefetch>(
        first, AllPairs ? A.n : count, stride, ri, A.box, A.pot,
        [&](int m) { return AllPairs ? m : W[w_index<Layout>(m, i, A.n, A.nbr_cap)]; },
        [&](int j) { return fetch_pos<Mode>(A.pos, j); }, acc);
}

/* The sums of a group of tp lanes (a power of 2 up to 32, groups aligned in the warp), in every
 * lane of the group: a butterfly, where group_sum leaves them in the first lane only. !Energy:
 * f only. Every lane of the warp calls. */
template <bool Energy>
__device__ __forceinline__ void group_sum_all(ForceSum &f, int tp)
{
    for (int o = tp >> 1; o > 0; o >>= 1) {
        f.fx += __shfl_xor_sync(0xffffffffu, f.fx, o);
        f.fy += __shfl_xor_sync(0xffffffffu, f.fy, o);
        f.fz += __shfl_xor_sync(0xffffffffu, f.fz, o);
        if (Energy) {
            f.u += __shfl_xor_sync(0xffffffffu, f.u, o);
            f.w += __shfl_xor_sync(0xffffffffu, f.w, o);
        }
    }
}

/* Force block `block`, by the calling thread block. TP > 0: TP lanes per atom (a power of 2 up
 * to 32), atom i = t / TP of thread t = block x blockDim + threadIdx (blocks of any multiple of
 * 32 threads); TP = 0: the run-time layout A.lay (any t_p, blocks of A.lay.ppb particles).
 * Group > 0: force blocks per partial (the W launch: Group = TP); 0: A.group. Every thread of
 * the block runs to the block sums (the shuffles and barriers take all). */
template <int Mode, int Layout, int Kind, int TP, int Group, bool Prefetch, bool AllPairs>
__device__ __forceinline__ void pair_force_block(const PairForceArgs &A, int block)
{
    int i, sub;
    bool active;
    if constexpr (TP > 0) {
        const long t = (long)block * blockDim.x + threadIdx.x;
        i = (int)(t / TP);
        sub = (int)(t % TP);
        active = i < A.n;
    } else {
        int local;
        bool idle;
        tp_place(A.lay, local, sub, idle);
        i = block * A.lay.ppb + local;
        active = !idle && i < A.n;
    }
    ForceSum f = {0, 0, 0, 0, 0};
    if (active) {
        const real4 ri = fetch_pos<Mode>(A.pos, i);
        const int count = AllPairs ? 0 : min(A.nbr_count[i], A.nbr_cap);
        neighbour_loop<Kind, Mode, Layout, Prefetch, AllPairs>(A, i, count, sub, TP > 0 ? TP : A.lay.tp, ri, f);
    }
    if (TP != 1) {   /* every lane of the warp: the shuffles take the whole warp */
        const TpLayout lanes = TP > 0 ? TpLayout{TP, 32 / TP, 0, 0, 0} : A.lay;
        f = group_sum(f, lanes, sub);
    }
    real ui = 0, wi = 0;
    if (active && sub == 0) {
        ui = (real)0.5 * f.u;
        wi = (real)0.5 * f.w;
        A.a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        A.u[i] = ui;
    }
    force_block_sums<Group>(A, block, ui, wi);
}

/* The family as its own launch: block b of the grid is force block b + A.block0 (a launch may
 * cover some blocks only: gpu_forces_blocks). gpu-rumd's chunk kernel (rumd_chunk.cu) calls
 * pair_force_block over its own blocks instead. */
template <int Mode, int Layout, int Kind, int TP, int Group, bool Prefetch, bool AllPairs>
__global__ void __launch_bounds__(1024) pair_force_kernel(PairForceArgs A)
{
    pair_force_block<Mode, Layout, Kind, TP, Group, Prefetch, AllPairs>(A, blockIdx.x + A.block0);
}


/* The knobs that pick a kernel of the family. */
struct PairForceKind {
    int read, wlayout, potential;
    int tp;          /* lanes per atom */
    int tp_fixed;    /* 1: tp a template parameter (1, 2, ..., 32) and Group = tp; 0: run-time A.lay,
                        A.group (tp = 1 still a template parameter: gpu-rumd's separate t_p = 1 kernel) */
    int prefetch, all_pairs;
};

/* The arguments of the run's state (list, positions, partials, the reduction's scratch); the
 * caller sets the lanes, block0, group and force_blocks of its launch (force.cu). */
PairForceArgs pair_force_args(Sim *s, GpuSim *g);

/* Scratch and tickets for a launch of `force_blocks` blocks into `parts` partials (group > 1),
 * allocated at the first call, which must come before any graph capture (step 0). */
void pair_force_reserve(GpuSim *g, int force_blocks, int parts);

/* Launches the kernel of `k` over `grid` blocks of `threads` on `stream` (force.cu). The
 * instances: tp_fixed with both layouts, no prefetch, a list (gpu-layer, gpu-old, gpu-dd);
 * run-time lanes with the row layout, prefetch on or off, a list or all pairs (gpu-rumd);
 * another combination stops with one line naming it. */
void pair_force_launch(const PairForceArgs &A, const PairForceKind &k, int grid, int threads, cudaStream_t stream);

#endif
