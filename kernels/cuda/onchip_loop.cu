/* onchip_loop.cu - the host side of gpu-onchip's device loop (onchip.cuh): with --decide device
 * one launch per chunk (the loop's Variant.chunk_run), the host seeing only sample points.
 *
 * Never a truncated list: a build that finds more than the capacity stores what fits and
 * records the need (so does a bin that finds a cell fuller than its slots); at the sample
 * point the host grows the capacity (or stops at a hard --max-nbr with one line), restores the
 * snapshot the kernel wrote at the chunk's start (r, v, a and the control block) and replays
 * the chunk with a rebuild forced first, as the stage-by-stage device loop does (device_loop.cu;
 * the control block and snapshot are allocated and started as there, device_loop.cuh). A block
 * or cluster tier that no longer fits stops (--tier block, --tier cluster; auto is the grid). */
#include "device_loop.cuh"
#include "onchip.cuh"

#include <string.h>

void onchip_device_begin(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const size_t b = sizeof(real4) * (size_t)s->n;
    if (!oc->device_mode) {
        loop_alloc_snapshot(g, s->n, &oc->ctrl, &oc->ctrl_snap, &oc->snap_r, &oc->snap_v, &oc->snap_a);
        oc->rw0 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc->rw1 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc->scratch = (GridScratch *)gpu_alloc(g, sizeof(GridScratch), "the grid tier's reductions");
        CUDA_CHECK(cudaHostAlloc((void **)&oc->ctrl_host, sizeof(OnchipCtrl), cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&oc->ctrl_host_dev, (void *)oc->ctrl_host, 0));
        oc->ctrl_stage = (OnchipCtrl *)gpu_pinned(sizeof(OnchipCtrl), "the control block");
        CUDA_CHECK(cudaEventCreateWithFlags(&oc->done, cudaEventDisableTiming));
        oc->device_mode = 1;
        s->stats.bytes = g->bytes;
        onchip_choose_tier(s, oc);
    }
    OnchipCtrl *c = oc->ctrl_stage;   /* the state after step 0, built and decided by the host */
    loop_ctrl_start(c, s);
    CUDA_CHECK(cudaMemcpyAsync(oc->ctrl, c, sizeof *c, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    oc->snap_step = s->step;
}

ChunkArgs onchip_chunk_args(Sim *s, OnchipState *oc, int nsteps)
{
    GpuSim *g = gpu_of(s);
    ChunkArgs A;
    A.r = g->r; A.v = g->v; A.a = g->a; A.u = g->u;
    A.snap_r = oc->snap_r; A.snap_v = oc->snap_v; A.snap_a = oc->snap_a;
    A.list = oc->list; A.count = oc->count; A.cells = onchip_cells(s, oc); A.rw0 = oc->rw0; A.rw1 = oc->rw1;
    A.ctrl = oc->ctrl; A.ctrl_snap = oc->ctrl_snap; A.ctrl_host = oc->ctrl_host_dev; A.scratch = oc->scratch;
    A.pot = s->pot;
    A.stage = 0;   /* the grid's plan sets it at the launch */
    A.n = s->n; A.tp = oc->tp; A.cap = oc->cap; A.nsteps = nsteps; A.equil = s->p.equil;
    A.box = pbc_box(s->L); A.rn2 = s->rn * s->rn; A.dt = (real)s->p.dt; A.half_dt = (real)(0.5 * s->p.dt);
    A.ddt = s->p.dt; A.threshold = s->p.rebuild_frac * s->p.delta;
    return A;
}

int onchip_sample(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    CUDA_CHECK(cudaEventRecord(oc->done, g->stream));
    CUDA_CHECK(cudaEventSynchronize(oc->done));
    OnchipCtrl c;   /* mapped memory, written by the kernel before the event */
    memcpy(&c, (const void *)oc->ctrl_host, sizeof c);
    if (c.nbr_max_seen > oc->cap || c.cell_max_seen > oc->ccap) {   /* a build overflowed: grow, restore, replay */
        onchip_fit_lists(s, oc, c.nbr_max_seen);
        onchip_fit_cells(s, oc, c.cell_max_seen);
        onchip_choose_tier(s, oc);
        const size_t b = sizeof(real4) * (size_t)s->n;
        CUDA_CHECK(cudaMemcpyAsync(g->r, oc->snap_r, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(g->v, oc->snap_v, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(g->a, oc->snap_a, b, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(oc->ctrl_stage, oc->ctrl_snap, sizeof(OnchipCtrl), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        oc->ctrl_stage->due = 1;   /* the new lists are built at the first replayed step */
        CUDA_CHECK(cudaMemcpyAsync(oc->ctrl, oc->ctrl_stage, sizeof(OnchipCtrl), cudaMemcpyHostToDevice, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        s->step = oc->snap_step;
        return oc->snap_step;
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
    oc->snap_step = s->step;
    return -1;
}

void onchip_free(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    if (g) {
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        void *dev[] = {oc->list,   oc->count,  oc->cell_count, oc->cell_slot, oc->ctrl, oc->ctrl_snap,
                       oc->snap_r, oc->snap_v, oc->snap_a,     oc->rw0,       oc->rw1,  oc->scratch};
        for (void *p : dev)
            gpu_release(p);
        if (oc->ctrl_host) CUDA_CHECK(cudaFreeHost(oc->ctrl_host));
        if (oc->ctrl_stage) CUDA_CHECK(cudaFreeHost(oc->ctrl_stage));
        if (oc->device_mode) CUDA_CHECK(cudaEventDestroy(oc->done));
    }
    memset(oc, 0, sizeof *oc);
}
