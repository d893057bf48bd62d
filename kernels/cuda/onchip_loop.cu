/* onchip_loop.cu - the host side of gpu-onchip's device loop (onchip.cuh): with --decide device
 * one launch per chunk (the loop's Variant.chunk_run), the host seeing only sample points.
 *
 * Never a truncated list: a build that finds more than the capacity stores what fits and
 * records the need (so does a bin that finds a cell fuller than its slots); at the sample
 * point the host grows the capacity (or stops at a hard --max-nbr with one line), restores the
 * snapshot the kernel wrote at the chunk's start (r, v, a and the control block) and replays
 * the chunk with a rebuild forced first: the stage-by-stage device loop's control block,
 * snapshot and replay (device_loop.cu). A block or cluster tier that no longer fits stops
 * (--tier block, --tier cluster; auto is the grid). */
#include "onchip.cuh"

#include <string.h>

void onchip_device_begin(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int first = !g->device_mode;
    if (first) {
        const size_t b = sizeof(real4) * (size_t)s->n;
        oc->rw0 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc->rw1 = (real4 *)gpu_alloc(g, b, "the grid tier's positions");
        oc->scratch = (ChunkScratch *)gpu_alloc(g, sizeof(ChunkScratch), "the grid tier's reductions");
    }
    gpu_device_begin(s);   /* the control block as the host's step 0 left it, and the snapshot */
    if (first) {
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&oc->ctrl_host_dev, (void *)g->ctrl_host, 0));
        onchip_choose_tier(s, oc);
    }
}

ChunkArgs onchip_chunk_args(Sim *s, OnchipState *oc, int nsteps)
{
    GpuSim *g = gpu_of(s);
    ChunkArgs A;
    A.r = g->r; A.v = g->v; A.a = g->a; A.u = g->u;
    A.snap_r = g->snap_r; A.snap_v = g->snap_v; A.snap_a = g->snap_a;
    A.rows = oc->rows; A.cells = oc->cells; A.rw0 = oc->rw0; A.rw1 = oc->rw1;
    A.ctrl = g->ctrl; A.ctrl_snap = g->ctrl_snap; A.ctrl_host = oc->ctrl_host_dev; A.props = g->props_dev;
    A.scratch = oc->scratch;
    A.pot = s->pot;
    A.stage = 0;   /* the grid's plan sets it at the launch */
    A.n = s->n; A.tp = oc->tp; A.nsteps = nsteps; A.equil = s->p.equil;
    A.box = pbc_box(s->L); A.rn2 = s->rn * s->rn; A.dt = (real)s->p.dt; A.half_dt = (real)(0.5 * s->p.dt);
    A.ddt = s->p.dt; A.threshold = s->p.rebuild_frac * s->p.delta;
    return A;
}

/* The chunk kernel wrote the control block and the sums into mapped memory: one event, then the
 * device loop's sample point, which replays from the snapshot the kernel took if a build or a
 * bin overflowed. */
int onchip_sample(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    CUDA_CHECK(cudaEventRecord(g->sample_done, g->stream));
    CUDA_CHECK(cudaEventSynchronize(g->sample_done));
    const DeviceControl &c = *g->ctrl_host;
    const int grew = onchip_fit_lists(s, oc, c.nbr_max_seen) | onchip_fit_cells(s, oc, c.cell_max_seen);
    if (grew) onchip_choose_tier(s, oc);
    return gpu_sample_done(s, grew);
}

void onchip_free(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    if (g) {
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        void *dev[] = {oc->rows.list, oc->rows.count, oc->cells.count, oc->cells.slot, oc->rw0, oc->rw1, oc->scratch};
        for (void *p : dev)
            gpu_release(p);
    }
    memset(oc, 0, sizeof *oc);
}
