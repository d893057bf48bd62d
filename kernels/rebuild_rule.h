/* rebuild_rule.h - when a neighbour structure is rebuilt (and gpu-cluster's inner rows pruned):
 * the one decision that every loop calls, on the host and on the GPU alike: the host loop
 * (common/md_loop.c), gpu-dd (kernels/cuda/dd_run.cu), and decide_rebuild (kernels/cuda/decide.cuh)
 * for the device loop's decide kernel, the fused leapfrog and the chunk kernels.
 *
 * A structure built with the shell delta holds every pair within r_c while no pair has closed in
 * by more than delta. An atom's displacement since the build is at most the sum over steps of the
 * step's largest |v| dt; two atoms close in by at most twice that, so the sum is held against
 * frac x delta, frac = 1/2 (--rebuild-frac: larger is unsafe, for testing --verify-lists).
 *
 * The sum is rounded the same way everywhere, a product then a sum: nvcc would otherwise fuse
 * them (one rounding), and a device loop could rebuild one step away from the host loop's choice
 * on the same trajectory (tests/test_components.cu crafts such a step). */
#ifndef NBR_REBUILD_RULE_H
#define NBR_REBUILD_RULE_H

#include "../common/real.h"

#include <math.h>

/* The bound after one more step whose largest v^2 is vv_max. */
NBR_HD double rebuild_disp_add(double disp, double vv_max, double dt)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(disp, __dmul_rn(sqrt(vv_max), dt));
#else
    return disp + sqrt(vv_max) * dt;   /* ISO C (-std=c11): GCC contracts nothing */
#endif
}

/* Adds one step to *disp; returns 1 where the structure must be rebuilt before the next force. */
NBR_HD int rebuild_after_step(double *disp, double vv_max, double dt, double threshold)
{
    *disp = rebuild_disp_add(*disp, vv_max, dt);
    return *disp >= threshold;
}

/* The steps that built, hashed in order: two runs with the same hash rebuilt at the same steps
 * (runs/same_physics.sh compares them across revisions and programs). */
NBR_HD unsigned long long rebuild_hash_add(unsigned long long hash, long long step)
{
    return hash * 1000003ull + (unsigned long long)step;
}

/* gpu-cluster's inner rows (--prune b) hold every pair within r_c + b at the last prune; the same
 * bound keeps them whole until the sum since then reaches frac x b. A rebuild prunes too. */
NBR_HD int prune_due(int rebuilt, double disp, double disp_pruned, double threshold)
{
    return rebuilt || disp - disp_pruned >= threshold;
}

#endif
