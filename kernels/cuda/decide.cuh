/* decide.cuh - the device loop's end of a step: the rebuild rule (kernels/rebuild_rule.h) and the
 * host loop's bookkeeping on the control block (DeviceControl), written once for every kernel
 * that decides: decide_kernel and the fused leapfrog's last block (integrate.cu) and gpu-rumd's
 * chunk kernel (rumd_chunk.cu). */
#ifndef NBR_DECIDE_CUH
#define NBR_DECIDE_CUH

#include "gpu_sim.cuh"
#include "../rebuild_rule.h"

/* gpu-cluster's planted fault 6 (cluster_list.cuh) reaches the device's prune decision */
#ifndef CLUSTER_PLANT
#define CLUSTER_PLANT 0
#endif

/* The rebuild rule (kernels/rebuild_rule.h) and the host loop's bookkeeping, at the end of a step;
 * one thread. The rebuild this step did (if it was due) is counted; then the summed largest
 * displacement (vv: this step's largest v^2) decides whether the next step rebuilds, and
 * whether it reorders first. */
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
        c->builds_total++;
        c->rebuild_hash = rebuild_hash_add(c->rebuild_hash, cur);
        if (cur > equil) {
            c->builds_prod++;
            c->nbr_sum_prod += (double)st->nbr_total;
            if (c->reorder_now) c->reorders_prod++;
        }
        if (c->reorder_now) c->last_reorder = cur;
        c->nbr_last = st->nbr_total;
        c->layers_last = st->layers_needed;
        c->layers_max = max(c->layers_max, st->layers_needed);
        c->nbr_max_seen = max(c->nbr_max_seen, st->nbr_max);
        c->disp = 0;
    }
    c->step++;
    c->due = rebuild_after_step(&c->disp, vv, dt, threshold);
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
