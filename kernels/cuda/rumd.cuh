/* rumd.cuh - the pieces of RUMD's GPU methods (Bailey et al., SciPost Phys. 2017, sections
 * 5-7 and Figs. 3-5) that gpu-rumd (variants/gpu-rumd.cu) composes: t_p threads per particle
 * in blocks of p_b particles, and the sum of the t_p partial results with warp shuffles.
 *
 * Threads of a particle never straddle a warp: with t_p <= 32 a warp holds floor(32 / t_p)
 * particles (t_p that do not divide 32 leave the last 32 mod t_p lanes idle); with t_p > 32
 * (a multiple of 32) a particle takes t_p / 32 whole warps and the warps' sums meet in shared
 * memory. p_b is rounded up to fill whole warps. */
#ifndef NBR_RUMD_CUH
#define NBR_RUMD_CUH

#include "gpu_sim.cuh"

/* How one block is laid out; the same for the force kernel and the n2 list build. */
struct TpLayout {
    int tp;          /* threads per particle */
    int per_warp;    /* particles per warp (t_p <= 32), else 0 */
    int wpp;         /* warps per particle (t_p > 32), else 0 */
    int ppb;         /* particles per block (p_b rounded up to whole warps) */
    int threads;     /* threads per block */
};

/* The layout for t_p and p_b; threads over 1024 stop the run with one line naming both knobs. */
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

/* What a particle's threads add up in the force loop. */
struct ForceSum {
    real fx, fy, fz, u, w;
};

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

/* The block sums of u_i and w_i (thread 0's values after block_reduce) into per-block partials;
 * the last block to finish adds the partials up (in block order: the same sum every run) and
 * writes U and W to *upot and *virial. ticket counts finished blocks and is back at 0 after. */
__device__ __forceinline__ void finish_force_sums(double ublock, double wblock, double *partial, unsigned *ticket,
                                                  double *upot, double *virial)
{
    __shared__ bool last;
    if (threadIdx.x == 0) {
        partial[blockIdx.x] = ublock;
        partial[gridDim.x + blockIdx.x] = wblock;
        __threadfence();
        last = atomicInc(ticket, gridDim.x - 1) == gridDim.x - 1;
    }
    __syncthreads();
    if (!last) return;
    double su = 0, sw = 0;
    for (unsigned k = threadIdx.x; k < gridDim.x; k += blockDim.x) {
        su += __ldcg(partial + k);
        sw += __ldcg(partial + gridDim.x + k);
    }
    su = block_reduce(su, SumOp(), 0.0);
    sw = block_reduce(sw, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        *upot = su;
        *virial = sw;
    }
}

/* Calls f(std::integral_constant<int, read>{}, std::integral_constant<bool, prefetch>{}). */
template <class F>
void dispatch_read_prefetch(int read, int prefetch, F f)
{
    typedef std::integral_constant<bool, true> On;
    typedef std::integral_constant<bool, false> Off;
    dispatch_read_layout(read, WLAYOUT_ROW, [&](auto r, auto) { prefetch ? f(r, On{}) : f(r, Off{}); });
}

#endif
