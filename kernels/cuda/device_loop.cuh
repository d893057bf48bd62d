/* device_loop.cuh - what the two device loops share: the stage-by-stage loop (device_loop.cu,
 * DeviceControl) and gpu-onchip's chunk loop (onchip_loop.cu, OnchipCtrl). Both keep a control
 * block on the device and a snapshot of the last sample point to replay from. */
#ifndef NBR_DEVICE_LOOP_CUH
#define NBR_DEVICE_LOOP_CUH

#include "gpu_sim.cuh"

#include <string.h>

/* The control block, its snapshot and the snapshot of r, v and a (n atoms), in this order. */
template <class Ctrl>
void loop_alloc_snapshot(GpuSim *g, int n, Ctrl **ctrl, Ctrl **ctrl_snap, real4 **snap_r, real4 **snap_v,
                         real4 **snap_a)
{
    const size_t b = sizeof(real4) * (size_t)n;
    *ctrl = (Ctrl *)gpu_alloc(g, sizeof(Ctrl), "the control block");
    *ctrl_snap = (Ctrl *)gpu_alloc(g, sizeof(Ctrl), "the control block's snapshot");
    *snap_r = (real4 *)gpu_alloc(g, b, "the snapshot of positions");
    *snap_v = (real4 *)gpu_alloc(g, b, "the snapshot of velocities");
    *snap_a = (real4 *)gpu_alloc(g, b, "the snapshot of accelerations");
}

/* The control block (host copy) as the host's loop leaves it after step 0, which it built and
 * decided: its step, displacement since the last build and rebuild counts; the rest zero. */
template <class Ctrl>
void loop_ctrl_start(Ctrl *c, const Sim *s)
{
    memset(c, 0, sizeof *c);
    c->step = s->step;
    c->disp = s->disp_acc;
    c->builds_total = s->stats.builds_total;
    c->rebuild_hash = s->stats.rebuild_hash;
    c->nbr_last = (unsigned long long)s->stats.nbr_entries;
}

#endif
