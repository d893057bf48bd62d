/* dd_run.cu - gpu-dd running ahead of the host (--decide device; nccl, p2p, nvshmem).
 *
 * With host decisions every step ends in a host reduction of the properties over ranks (MPI),
 * which the host needs for the rebuild test: every step waits for the device. Here the test
 * moves onto the devices, as for one GPU (device_loop.cu): each step, after the kick, each
 * rank's largest v^2 is combined over ranks on the device (dd_comm_vote: an NCCL all-reduce,
 * p2p peer writes and a wait, an NVSHMEM max-reduce; all on the stream), and a one-thread
 * kernel sums the displacement exactly as the host does (the same doubles: the same rebuild
 * steps as --decide host).
 *
 * A rebuild cannot run ahead: migration and the ghost lists need counts on the host to size
 * buffers and sends. So when the test finds a rebuild due at step h, every rank's device stops
 * (ctrl->halted = h, the same step on every rank since the combined value is the same): the
 * kernels of the later steps the host has already launched return at once (kick, drift, halo
 * packs and waits: gated; the forces, which would only repeat the last ones, the host leaves
 * out once it sees the stop in mapped memory). At the next sample point the host finds the
 * stop, returns h to the loop, which replays from h + 1 (md_loop.c: sample's return), and
 * this time step h + 1 rebuilds on the host (it may wait: it is a rebuild step). A step that
 * does not rebuild never waits. The whole system's properties are reduced over ranks (MPI) at
 * sample points only. The rebuild bookkeeping (counts, hash of the steps) is the host's, as in
 * md_loop.c's rebuild(), since the host does the rebuilds.
 *
 * The force kernel (force.cu, shared) has no gate: its launches go through a small CUDA graph per
 * build, a kernel that reads the gate and a conditional (IF) node around the force launch, so
 * the steps a stopped device still has queued (up to a sample interval of them when the GPU is
 * the bottleneck) cost a node each, not a force evaluation. Where the driver refuses the node,
 * or with --dd-force-gate off, the forces run ungated: correct (nothing moved, the same forces
 * again), only slower. */
#include "dd_halo.cuh"
#include "../rebuild_rule.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

namespace {

/* md_loop.c's rebuild test on the combined largest v^2; a rebuild due stops the device. */
__global__ void run_decide_kernel(DdCtrl *c, unsigned long long *vv_local, const unsigned long long *vv_all, int step,
                                  double dt, double threshold, int *halt_host)
{
    if (c->halted) return;
    const double vv = __longlong_as_double((long long)*vv_all);
    *vv_local = 0;
    if (rebuild_after_step(&c->disp, vv, dt, threshold)) {
        c->halted = step;
        *(volatile int *)halt_host = step;
    }
}

__global__ void run_gate_cond_kernel(cudaGraphConditionalHandle h, const int *gate)
{
    cudaGraphSetConditional(h, *gate ? 0u : 1u);
}

}   // namespace

/* The force launch of blocks [first, first + nblocks) as a graph: the gate kernel, then an IF
 * node whose body is the launch (captured from gpu_forces_blocks). NULL where the driver
 * refuses a step (a note, once). */
static cudaGraphExec_t gated_forces(Dd *d, int first, int nblocks)
{
    static int refused;
    if (nblocks <= 0 || refused) return NULL;
    cudaGraph_t graph;
    cudaGraphExec_t exec = NULL;
    cudaGraphConditionalHandle h;
    CUDA_CHECK(cudaGraphCreate(&graph, 0));
    cudaError_t err = cudaGraphConditionalHandleCreate(&h, graph, 0, cudaGraphCondAssignDefault);
    cudaGraphNode_t gate_node, if_node;
    cudaGraphNodeParams kp = {}, cp = {};
    const int *gate = d->gate;
    void *args[2] = {&h, &gate};
    kp.type = cudaGraphNodeTypeKernel;
    kp.kernel.func = (void *)run_gate_cond_kernel;
    kp.kernel.gridDim = dim3(1);
    kp.kernel.blockDim = dim3(1);
    kp.kernel.kernelParams = args;
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.handle = h;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    if (err == cudaSuccess) err = cudaGraphAddNode(&gate_node, graph, nullptr, nullptr, 0, &kp);
    if (err == cudaSuccess) err = cudaGraphAddNode(&if_node, graph, &gate_node, nullptr, 1, &cp);
    if (err == cudaSuccess)
        err = cudaStreamBeginCaptureToGraph(d->run_body, cp.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                            cudaStreamCaptureModeThreadLocal);
    if (err == cudaSuccess) {
        gpu_forces_blocks(&d->rows, first, nblocks, d->run_body);
        CUDA_CHECK(cudaStreamEndCapture(d->run_body, nullptr));
        err = cudaGraphInstantiate(&exec, graph, 0);
    }
    CUDA_CHECK(cudaGraphDestroy(graph));
    if (err != cudaSuccess) {
        cudaGetLastError();
        refused = 1;
        printf("# dd: the forces of a stopped device run ungated: this driver refuses the conditional node (%s)\n",
               cudaGetErrorString(err));
        return NULL;
    }
    return exec;
}

static void drop_force_graphs(Dd *d)
{
    for (int k = 0; k < 2; k++)
        if (d->force_exec[k]) {
            CUDA_CHECK(cudaGraphExecDestroy(d->force_exec[k]));
            d->force_exec[k] = NULL;
        }
}

void dd_run_capture_forces(Dd *d)
{
    GpuSim *g = d->g;
    CUDA_CHECK(cudaStreamSynchronize(g->stream));   /* a rebuild: the old graphs may still run */
    if (d->overlap) CUDA_CHECK(cudaStreamSynchronize(d->nonlocal));
    drop_force_graphs(d);
    if (!d->force_gate) return;   /* --dd-force-gate off */
    if (!d->run_body) CUDA_CHECK(cudaStreamCreateWithFlags(&d->run_body, cudaStreamNonBlocking));
    if (d->overlap) {
        d->force_exec[0] = gated_forces(d, 0, d->inner_blocks);
        d->force_exec[1] = gated_forces(d, d->inner_blocks, g->blocks - d->inner_blocks);
    } else {
        d->force_exec[0] = gated_forces(d, 0, g->blocks);
    }
}

void dd_run_forces(Dd *d, int part, int first, int nblocks, cudaStream_t st)
{
    if (d->run_ahead && d->force_exec[part]) CUDA_CHECK(cudaGraphLaunch(d->force_exec[part], st));
    else gpu_forces_blocks(&d->rows, first, nblocks, st);
}

void dd_run_free(Dd *d)
{
    drop_force_graphs(d);
    if (d->run_body) CUDA_CHECK(cudaStreamDestroy(d->run_body));
    d->run_body = NULL;
}

int dd_run_halted_seen(const Dd *d) { return d->halt_host && *(volatile const int *)d->halt_host; }

void dd_run_begin(Sim *s)
{
    Dd *d = dd_of(s);
    GpuSim *g = d->g;
    if (!d->ctrl) {
        d->ctrl = (DdCtrl *)gpu_alloc(g, sizeof(DdCtrl), "the device control block");
        d->ctrl_host = (DdCtrl *)gpu_pinned(sizeof(DdCtrl), "the device control block");
        CUDA_CHECK(cudaHostAlloc((void **)&d->halt_host, sizeof(int), cudaHostAllocMapped));
        CUDA_CHECK(cudaHostGetDevicePointer((void **)&d->halt_dev, d->halt_host, 0));
        d->vv_local = &d->ctrl->vv_local;
        d->vv_all = &d->ctrl->vv_all;
        if (d->halo->vote_buffers) d->halo->vote_buffers(d);   /* nvshmem: the symmetric heap */
        s->stats.bytes = g->bytes;
    }
    /* the state after step 0, built and decided by the host */
    memset(d->ctrl_host, 0, sizeof *d->ctrl_host);
    d->ctrl_host->disp = s->disp_acc;
    CUDA_CHECK(cudaMemcpyAsync(d->ctrl, d->ctrl_host, sizeof(DdCtrl), cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaMemsetAsync(d->vv_local, 0, sizeof(unsigned long long), g->stream));
    *d->halt_host = 0;
    d->rebuild_at = s->rebuild_due ? s->step + 1 : -1;
    d->gate = &d->ctrl->halted;
    d->run_ahead = 1;
    dd_comm_vote_open(d);
    dd_run_capture_forces(d);   /* step 0's build was the host's, before the gate existed */
    /* a halo graph of step 0 holds ungated packs and waits: consistent on every rank (both run
     * in a stopped step, writing the same ghosts again); the next rebuild captures gated ones */
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

/* integrate.cu's kick-drift and kick (the same arithmetic, so the same trajectory as --decide
 * host), gated: nothing while the device is stopped. The wrap of a rebuild is the host's
 * (dd_wrap), so none here. */
void dd_run_kick_drift(Dd *d) { gpu_kick_drift_halted(&d->dom, d->gate); }

void dd_run_kick(Dd *d) { gpu_kick_halted(&d->dom, d->vv_local, d->gate); }

/* The step the device found due rebuilds here, on the host (md_loop.c's rebuild, wrap first). */
void dd_run_rebuild(Sim *s)
{
    Dd *d = dd_of(s);
    if (s->step != d->rebuild_at) return;
    d->rebuild_at = -1;
    dd_wrap(d);
    dd_rebuild(s, d);
    loop_rebuild_done(s);
    CUDA_CHECK(cudaMemsetAsync(&d->ctrl->disp, 0, sizeof(double), d->g->stream));
}

void dd_run_decide(Sim *s)
{
    Dd *d = dd_of(s);
    dd_comm_vote(d);
    run_decide_kernel<<<1, 1, 0, d->g->stream>>>(d->ctrl, d->vv_local, d->vv_all, s->step, s->p.dt,
                                                 s->p.rebuild_frac * s->p.delta, d->halt_dev);
    LAUNCH_CHECK("run_decide_kernel");
}

/* Where the host looks next (Variant.run_horizon): the step at which the displacement test
 * would fire if every step moved the fastest atom as far as the last one did. Without it the
 * host queued gated steps up to the sample point after each stop, and since the loop replays
 * from the stopped step to the same sample point, a 100-step interval with a rebuild every
 * ~14 steps launched ~400 steps for 100 (at 1M atoms on 2 GPUs the device decision took 2.0x
 * the host's time per step with p2p, 2.5x with nvshmem; cc94dfe). Computed from values every
 * rank holds alike (the displacement and max v^2 combined over ranks at the last look), so
 * every rank looks at the same step. --dd-horizon off: no horizon (the sample points only). */
int dd_run_horizon(Sim *s)
{
    return dd_opts(s)->dd_horizon ? loop_horizon_estimate(s) : 0;
}

/* A sample point: the one wait of the chunk. A stop before its end sends the loop back to the
 * stopped step (nothing after it ran); the properties are then not needed. */
int dd_run_sample(Sim *s)
{
    Dd *d = dd_of(s);
    GpuSim *g = d->g;
    gpu_final_reduce(g);
    CUDA_CHECK(cudaMemcpyAsync(d->ctrl_host, d->ctrl, sizeof(DdCtrl), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    dd_comm_poll(d);
    const int h = d->ctrl_host->halted;
    if (h) {
        if (h > s->step) dd_fail(EXIT_INTERNAL, "internal: the device stopped at step %d, after the sample point %d", h, s->step);
        d->rebuild_at = h + 1;
        s->rebuild_due = 1;
        *d->halt_host = 0;
        CUDA_CHECK(cudaMemsetAsync(&d->ctrl->halted, 0, sizeof(int), g->stream));
        if (h < s->step) {
            s->step = h;
            return h;
        }
    }
    dd_reduce_props(&s->props, g->props_host[PART_UPOT], g->props_host[PART_UKIN], g->props_host[PART_VIRIAL],
                    g->props_host[PART_VVMAX]);
    s->disp_acc = d->ctrl_host->disp;
    s->stats.bytes = g->bytes;
    return -1;
}
