/* decide.cuh - the device loop's end of a step: the rebuild rule (kernels/rebuild_rule.h) and the
 * host loop's bookkeeping on the control block (DeviceControl), written once for every kernel
 * that decides: decide_kernel and the fused leapfrog's last block (integrate.cu), gpu-rumd's
 * chunk kernel (rumd_chunk.cu) and gpu-onchip's (onchip_chunk.cu). */
#ifndef NBR_DECIDE_CUH
#define NBR_DECIDE_CUH

#include "gpu_sim.cuh"
#include "../rebuild_rule.h"

/* gpu-cluster's planted fault 6 (cluster_list.cuh) reaches the device's prune decision */
#ifndef CLUSTER_PLANT
#define CLUSTER_PLANT 0
#endif

/* The fields of a control block that the rebuild decision keeps: DeviceControl's, and the copy
 * each thread of a chunk kernel holds in registers (onchip.cuh: every thread decides alike). */
struct RebuildCount {
    double disp;
    long long builds_total, builds_prod;
    unsigned long long rebuild_hash;
    int step, due;
};

template <class To, class From>
__host__ __device__ inline void rebuild_count_copy(To &to, const From &from)
{
    to.disp = from.disp; to.builds_total = from.builds_total; to.builds_prod = from.builds_prod;
    to.rebuild_hash = from.rebuild_hash; to.step = from.step; to.due = from.due;
}

/* The end of a step on the device, for any control block C with RebuildCount's fields: the
 * rebuild this step did (if it was due) counted as the host loop counts it (md_loop.c's
 * loop_rebuild_done), then the rule (kernels/rebuild_rule.h) on this step's largest v^2 vv
 * decides whether the next step rebuilds. */
template <class C>
__device__ __forceinline__ void decide_rebuild(C &c, double vv, double dt, double threshold, int equil)
{
    if (c.due) {
        const int cur = c.step + 1;
        c.builds_total++;
        c.rebuild_hash = rebuild_hash_add(c.rebuild_hash, cur);
        if (cur > equil) c.builds_prod++;
        c.disp = 0;
    }
    c.step++;
    c.due = rebuild_after_step(&c.disp, vv, dt, threshold);
}

/* decide_rebuild on the device loop's control block, one thread, with the rest of the host
 * loop's bookkeeping: the build's list statistics (from st), reordering and pruning. */
__device__ __forceinline__ void decide_step(DeviceControl *c, BuildStatus *st, double vv, double dt,
                                            double threshold, int equil, int reorder_every)
{
    const double disp_at_force = c->due ? 0.0 : c->disp;   /* a rebuilding step's force: 0, as on the host */
    if (c->prune_threshold > 0 && c->prune_now) {
        c->disp_pruned = disp_at_force;
        if (c->step + 1 > equil) c->prunes_prod++;
    }
    if (c->due) {
        const int cur = c->step + 1;
        if (cur > equil) {
            c->nbr_sum_prod += (double)st->nbr_total;
            if (c->reorder_now) c->reorders_prod++;
        }
        if (c->reorder_now) c->last_reorder = cur;
        c->nbr_last = st->nbr_total;
        c->layers_last = st->layers_needed;
        c->layers_max = max(c->layers_max, st->layers_needed);
        c->nbr_max_seen = max(c->nbr_max_seen, st->nbr_max);
    }
    decide_rebuild(*c, vv, dt, threshold, equil);
    /* the inner rows hold every pair within r_c + b at the last prune; the same bound as the
     * rebuild's keeps them whole until the summed displacement since then reaches frac x b */
    c->prune_now = c->prune_threshold > 0 &&
                   prune_due(c->due, c->disp, c->disp_pruned, CLUSTER_PLANT == 6 ? INFINITY : c->prune_threshold);
    c->reorder_now = c->due && reorder_every > 0 && c->step + 1 - c->last_reorder >= reorder_every;
    if (c->due) {
        st->nbr_total = 0;
        st->nbr_max = 0;
        st->layers_needed = 0;
    }
}

#endif
