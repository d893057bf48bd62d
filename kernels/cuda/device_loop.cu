/* device_loop.cu - the GPU running ahead of the host (--decide device).
 *
 * With host decisions (the paper) the host reads max v^2 after every step, decides whether
 * the next step rebuilds, and so waits for the device every step: below about a million
 * atoms the step is then launch gaps and round trips, not kernels. Here the decision moves
 * onto the device. Every step the loop enqueues, without waiting:
 *   kick_drift (which also wraps the positions when the step rebuilds),
 *   the rebuild kernels (reorder scan, scatter, copy back; layer assignment; the variant's
 *     W build), each returning at once unless the control block says this step rebuilds,
 *   forces, kick (which also leaves max v^2 in the control block), and
 *   decide: the host's rebuild test and bookkeeping, one thread (integrate.cu).
 * The host reads the device only at sample points (gpu_sample): the final reduction of the
 * properties and the control block, one event wait every --sample-every steps.
 *
 * Nothing lost when the device runs ahead: a build that needed more neighbour or layer
 * capacity than it had is seen at the next sample point (the kernels never write past a
 * capacity; they record what they needed). Then the capacity grows (or, set by the user,
 * the run stops with its one-line message), the state of the previous sample point (its
 * snapshot: r, v, a and the control block) is restored, a rebuild is forced and the loop
 * replays from there. The replayed steps differ from an overflow-free run only by that
 * extra rebuild and the order of summation it brings.
 *
 * --graph on: the steps between two sample points are captured once as a CUDA graph per
 * chunk length and replayed; a capacity growth invalidates the graphs (they hold the old
 * arrays' addresses). Each step is then 9 kernel nodes, 5 of them the gated rebuild kernels
 * that mostly return at once: each still costs a node launch and, at a million atoms, a full
 * grid of threads that read the gate. --graph cond puts those 5 into the body of a
 * conditional (IF) node whose value kick_drift sets from ctrl->due (the gate the kernels
 * read), so a step that does not rebuild is 4 kernel nodes and an empty IF. A handle serves
 * one conditional node, so each step makes its own (gpu_kick_drift), default 0 at every
 * launch of the graph.
 *
 * --leapfrog fused: after the forces one kernel (leapfrog_kernel, integrate.cu) does the
 * kick, the decision (its last block) and the next step's kick_drift, so a step that does not
 * rebuild is 2 kernel nodes (forces, leapfrog) and the empty IF; a chunk starts with one
 * kick_drift (the state at a sample point is after the kick, as split: rescales, snapshots
 * and replays are unchanged), and the fused kernel of the chunk's last step does not drift.
 * The fused kernel's blocks do not know the decision when they drift, so the wrap that
 * kick_drift did on a rebuilding step is the first kernel of the rebuild
 * (gpu_launch_gated_wrap): the same wrap, at another place in the step. The fused kernel's last block sets the next
 * step's IF handle, made before it in the capture (gpu_leapfrog). */
#include "gpu_sim.cuh"

#include <string.h>

__global__ void force_rebuild_kernel(DeviceControl *c, BuildStatus *st)
{
    c->due = 1;
    c->prune_now = c->prune_threshold > 0;
    c->reorder_now = 0;
    st->nbr_total = 0;
    st->nbr_max = 0;
    st->layers_needed = 0;
}

static void copy_state(GpuSim *g, int n, real4 *r, real4 *v, real4 *a, DeviceControl *c, const real4 *r0,
                       const real4 *v0, const real4 *a0, const DeviceControl *c0)
{
    const size_t b = sizeof(real4) * (size_t)n;
    CUDA_CHECK(cudaMemcpyAsync(r, r0, b, cudaMemcpyDeviceToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(v, v0, b, cudaMemcpyDeviceToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(a, a0, b, cudaMemcpyDeviceToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(c, c0, sizeof(DeviceControl), cudaMemcpyDeviceToDevice, g->stream));
}

static void take_snapshot(Sim *s, GpuSim *g)
{
    copy_state(g, s->n, g->snap_r, g->snap_v, g->snap_a, g->ctrl_snap, g->r, g->v, g->a, g->ctrl);
    g->snap_step = s->step;
}

void gpu_release_graphs(GpuSim *g)
{
    for (int k = 0; k < g->ngraphs; k++) CUDA_CHECK(cudaGraphExecDestroy(g->graphs[k].exec));
    g->ngraphs = 0;
}

void gpu_device_begin(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (!g->device_mode) {
        const size_t b = sizeof(real4) * (size_t)s->n;
        g->ctrl = (DeviceControl *)gpu_alloc(g, sizeof(DeviceControl), "the control block");
        g->ctrl_snap = (DeviceControl *)gpu_alloc(g, sizeof(DeviceControl), "the control block's snapshot");
        g->snap_r = (real4 *)gpu_alloc(g, b, "the snapshot of positions");
        g->snap_v = (real4 *)gpu_alloc(g, b, "the snapshot of velocities");
        g->snap_a = (real4 *)gpu_alloc(g, b, "the snapshot of accelerations");
        g->ctrl_host = (DeviceControl *)gpu_pinned(sizeof(DeviceControl), "the device control block");
        if (s->p.leapfrog == LEAPFROG_FUSED) {   /* back at 0 after each fused kernel */
            g->leap_ticket = (unsigned *)gpu_alloc(g, sizeof(unsigned), "the fused leapfrog's ticket");
            CUDA_CHECK(cudaMemsetAsync(g->leap_ticket, 0, sizeof(unsigned), g->stream));
        }
        CUDA_CHECK(cudaEventCreateWithFlags(&g->sample_done, cudaEventDisableTiming));
        g->device_mode = 1;
        s->stats.bytes = g->bytes;
    }
    /* the state after step 0, built and decided by the host: its step, displacement since the
     * last build, rebuild counts and list statistics; the rest zero */
    DeviceControl *c = g->ctrl_host;
    memset(c, 0, sizeof *c);
    c->step = s->step;
    c->disp = s->disp_acc;
    c->builds_total = s->stats.builds_total;
    c->rebuild_hash = s->stats.rebuild_hash;
    c->nbr_last = (unsigned long long)s->stats.nbr_entries;
    c->layers_last = s->stats.layers;
    c->layers_max = s->stats.layers_max;
    c->prune_threshold = g->prune_threshold;
    c->prune_now = c->prune_threshold > 0;   /* the host's steps left no inner rows the device knows of */
    CUDA_CHECK(cudaMemcpyAsync(g->ctrl, c, sizeof *c, cudaMemcpyHostToDevice, g->stream));
    take_snapshot(s, g);
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

static void launch_rebuild_kernels(Sim *s, GpuSim *g)
{
    if (s->p.leapfrog == LEAPFROG_FUSED) gpu_launch_gated_wrap(s, g);   /* split: kick_drift wrapped */
    gpu_launch_device_reorder(s, g);
    gpu_launch_device_layers(s, g);
    g->gate = &g->ctrl->due;
    g->builder.launch(s, g);
    g->gate = nullptr;
}

/* The launches of one step's rebuild (launch: kernels gated by ctrl->due, on g->stream); while
 * a --graph cond chunk is captured, inside the body of an IF node on the handle this step's
 * kick_drift sets (gpu_kick_drift made it: a handle serves one conditional node only). The
 * body is captured on body_stream, which stands in for g->stream while launch runs. */
void gpu_device_rebuild_with(Sim *s, void (*launch)(Sim *s, GpuSim *g))
{
    GpuSim *g = gpu_of(s);
    if (!g->cond_capture) {
        launch(s, g);
        return;
    }
    if (!g->cond_pending)
        nbr_fail(EXIT_INTERNAL, "%s: --graph cond: a rebuild without a kick_drift before it in the step",
                 s->variant->name);
    g->cond_pending = 0;
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    const cudaGraphNode_t *deps;
    size_t ndeps;
    CUDA_CHECK(cudaStreamGetCaptureInfo(g->stream, &status, nullptr, &graph, &deps, nullptr, &ndeps));
    cudaGraphNodeParams params = {};
    params.type = cudaGraphNodeTypeConditional;
    params.conditional.handle = g->rebuild_cond;
    params.conditional.type = cudaGraphCondTypeIf;
    params.conditional.size = 1;
    cudaGraphNode_t node;
    const cudaError_t err = cudaGraphAddNode(&node, graph, deps, nullptr, ndeps, &params);
    if (err != cudaSuccess)
        nbr_fail(EXIT_INPUT, "%s: --graph cond: this driver refuses a conditional node in a stream capture (%s): "
                             "use --graph on", s->variant->name, cudaGetErrorString(err));
    CUDA_CHECK(cudaStreamUpdateCaptureDependencies(g->stream, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
    const cudaStream_t main_stream = g->stream;
    CUDA_CHECK(cudaStreamBeginCaptureToGraph(g->body_stream, params.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                             cudaStreamCaptureModeThreadLocal));
    g->stream = g->body_stream;
    launch(s, g);
    g->stream = main_stream;
    CUDA_CHECK(cudaStreamEndCapture(g->body_stream, nullptr));
}

void gpu_device_rebuild(Sim *s) { gpu_device_rebuild_with(s, launch_rebuild_kernels); }

void gpu_device_decide(Sim *s) { gpu_launch_decide(s, gpu_of(s)); }

int gpu_sample_done(Sim *s, int grew)
{
    GpuSim *g = gpu_of(s);
    if (grew) {   /* a build since the last sample point overflowed: restore, replay */
        gpu_release_graphs(g);
        copy_state(g, s->n, g->r, g->v, g->a, g->ctrl, g->snap_r, g->snap_v, g->snap_a, g->ctrl_snap);
        force_rebuild_kernel<<<1, 1, 0, g->stream>>>(g->ctrl, g->status);
        LAUNCH_CHECK("force_rebuild_kernel");
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        s->step = g->snap_step;
        return g->snap_step;
    }
    const DeviceControl &c = *g->ctrl_host;
    s->props.upot_sum = g->props_host[PART_UPOT];
    s->props.ukin_sum = g->props_host[PART_UKIN];
    s->props.vv_max = g->props_host[PART_VVMAX];
    s->props.virial_sum = g->props_host[PART_VIRIAL];
    Stats *st = &s->stats;
    st->builds_total = c.builds_total;
    st->builds = c.builds_prod;
    st->reorders = c.reorders_prod;
    st->nbr_sum = c.nbr_sum_prod;
    st->nbr_entries = (double)c.nbr_last;
    st->layers = c.layers_last;
    st->layers_max = c.layers_max;
    st->rebuild_hash = c.rebuild_hash;
    st->bytes = g->bytes;
    g->layers = c.layers_last;
    g->snap_step = s->step;
    return -1;
}

int gpu_sample(Sim *s)
{
    GpuSim *g = gpu_of(s);
    gpu_final_reduce(g);
    CUDA_CHECK(cudaMemcpyAsync(g->ctrl_host, g->ctrl, sizeof(DeviceControl), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaEventRecord(g->sample_done, g->stream));
    CUDA_CHECK(cudaEventSynchronize(g->sample_done));
    const DeviceControl &c = *g->ctrl_host;
    int grew = 0;
    if (c.layers_max > g->layer_cap) grew |= gpu_fit_layers(s, g, c.layers_max);
    if (c.nbr_max_seen > g->nbr_cap) grew |= gpu_fit_nbr(s, g, c.nbr_max_seen);
    const int replay = gpu_sample_done(s, grew);
    if (replay < 0) take_snapshot(s, g);   /* in stream order: the next steps run after the copies */
    return replay;
}

int gpu_chunk_replay(Sim *s, int nsteps)
{
    GpuSim *g = gpu_of(s);
    for (int k = 0; k < g->ngraphs; k++)
        if (g->graphs[k].nsteps == nsteps) {
            CUDA_CHECK(cudaGraphLaunch(g->graphs[k].exec, g->stream));
            return 1;
        }
    return 0;
}

void gpu_chunk_begin(Sim *s, int nsteps)
{
    GpuSim *g = gpu_of(s);
    CUDA_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
    if (s->p.graph == GRAPH_COND) {   /* each step's handle is made by its kick_drift */
        if (!g->body_stream) CUDA_CHECK(cudaStreamCreateWithFlags(&g->body_stream, cudaStreamNonBlocking));
        g->cond_capture = 1;
    }
}

void gpu_chunk_end(Sim *s, int nsteps)
{
    GpuSim *g = gpu_of(s);
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaStreamEndCapture(g->stream, &graph));
    g->cond_capture = 0;
    g->cond_pending = 0;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
    if (g->ngraphs == GRAPH_CACHE) {   /* chunk lengths are few (sample, block, rescale); keep the first */
        CUDA_CHECK(cudaGraphExecDestroy(g->graphs[GRAPH_CACHE - 1].exec));
        g->ngraphs--;
    }
    g->graphs[g->ngraphs].nsteps = nsteps;
    g->graphs[g->ngraphs++].exec = exec;
    CUDA_CHECK(cudaGraphLaunch(exec, g->stream));
}
