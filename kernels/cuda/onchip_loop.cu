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
    ChunkArgs A;
    static_cast<ChunkState &>(A) = chunk_state(s, nsteps, oc->ctrl_host_dev, oc->scratch);
    A.rows = oc->store.rows; A.cells = oc->store.cells; A.rw0 = oc->rw0; A.rw1 = oc->rw1;
    A.stage = 0;   /* the grid's plan sets it at the launch */
    A.tp = oc->tp; A.rn2 = s->rn * s->rn;
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
    const int grew = rows_store_fit(s, &oc->store, c.nbr_max_seen, c.cell_max_seen);
    if (grew) onchip_choose_tier(s, oc);
    return gpu_sample_done(s, grew);
}

void onchip_free(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    if (g) {
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        rows_store_free(&oc->store);
        for (void *p : {(void *)oc->rw0, (void *)oc->rw1, (void *)oc->scratch})
            gpu_release(p);
    }
    memset(oc, 0, sizeof *oc);
}
