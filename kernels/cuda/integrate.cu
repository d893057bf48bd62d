/* integrate.cu - leapfrog, periodic wrap, velocity rescaling and the property reductions
 * (the paper's stages (a), (b) wrap, (d), (e), (f)), one thread per atom.
 *
 * Reductions (paper: EvalPropsGPU, partial sums per block on the GPU, final sum on the
 * host). The per-block partials are produced where the data already passes through
 * registers, so no extra pass over memory is needed: the force kernel leaves the block
 * sums of u_i and of the per-atom virial w_i = (1/2) sum_j r_ij . f_ij, the second
 * half-kick leaves the block sums and maxima of v_i^2 (gpu_sim.cuh: PART_*). props()
 * then finishes them: --reduce host copies the partials down and sums them in double
 * (the paper), --reduce device sums them in one more single-block kernel that writes the
 * four numbers into mapped (zero-copy) host memory, so no copy has to be started and
 * waited for each step. U and the virial are those of the last force evaluation (zero
 * before the first); when the v partials are stale (step 0, the check, after a rescale)
 * props() recomputes them from v. Partials are kept in double in both precisions. */
#include "gpu_sim.cuh"
#include "leapfrog.cuh"
#include "decide.cuh"

#include <math.h>

/* The split kernels and the fused one (leapfrog_kernel) run the same per-atom arithmetic in the
 * same order (leapfrog.cuh). Their trajectories were meant to agree bit for bit; on the H200
 * (74c9736) they differ at the rounding level (float: the first sample's E/N in its 8th digit),
 * so tests compare them within a tolerance. */

/* gate (device decision): where *gate, the step rebuilds; with wrap, the periodic wrap that
 * opens a rebuild is done here, on the positions in registers (--leapfrog split; fused wraps in
 * the rebuild, gpu_device_rebuild). set_cond (--graph cond): the graph's rebuild IF node takes
 * the same decision (device_loop.cu). halt (gpu-dd running ahead): nothing while the device is
 * stopped for a host rebuild (dd_run.cu). */
__global__ void kick_drift_kernel(real4 *r, real4 *v, const real4 *a, int n, real half_dt, real dt,
                                  const int *gate, int wrap, real L, int set_cond, cudaGraphConditionalHandle cond,
                                  const int *halt)
{
    if (halt && *halt) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (set_cond && i == 0) cudaGraphSetConditional(cond, *gate);
    if (i >= n) return;
    real4 ri = r[i], vi = v[i];
    const real4 ai = a[i];
    half_kick(vi, ai, half_dt);
    drift(ri, vi, dt);
    if (wrap && gate && *gate) {
        wrap_position(ri, L);
    }
    r[i] = ri;
    v[i] = vi;
}

/* Kick = true: v += a dt/2 first (stage d). Either way leaves the block's sum and maximum
 * of v^2 in part_ukin / part_vvmax. */
template <bool Kick>
__global__ void kick_props_kernel(real4 *v, const real4 *a, int n, real half_dt, double *part_ukin,
                                  double *part_vvmax, unsigned long long *vvmax_bits, const int *halt)
{
    if (halt && *halt) return;   /* uniform: no block splits before the reductions */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double vv = 0;
    if (i < n) {
        real4 vi = v[i];
        if (Kick) {
            const real4 ai = a[i];
            half_kick(vi, ai, half_dt);
            v[i] = vi;
        }
        vv = speed2(vi);
    }
    const double sum = block_reduce(vv, SumOp(), 0.0);
    const double most = block_reduce(vv, MaxOp(), 0.0);
    if (threadIdx.x == 0) {
        part_ukin[blockIdx.x] = sum;
        part_vvmax[blockIdx.x] = most;
        if (vvmax_bits) atomicMax(vvmax_bits, (unsigned long long)__double_as_longlong(most));
    }
}

__global__ void decide_kernel(DeviceControl *c, BuildStatus *st, double dt, double threshold, int equil,
                              int reorder_every)
{
    const double vv = __longlong_as_double((long long)c->vvmax_bits);
    c->vvmax_bits = 0;
    decide_step(c, st, vv, dt, threshold, equil, reorder_every);
}

/* --leapfrog fused: kick_props<true>, decide_kernel and the next step's kick_drift in one
 * kernel, per atom the same arithmetic in the same order (half_kick, speed2, drift); the
 * trajectory agrees with the split kernels' to rounding (not bit for bit on the H200):
 *   every atom: v += a dt/2 (step k's second half-kick), v^2;
 *   every block: max v^2 into c->vvmax_bits (atomicMax); with sums (the chunk's last step,
 *     a sample point) the kinetic and max v^2 partials as kick_props leaves them (energies
 *     are read at sample points only);
 *   the last block to finish (a fence, then a ticket): decide_step, and with set_cond the
 *     value of step k + 1's rebuild IF node (kick_drift's job when split);
 *   with drift (not the chunk's last step): v += a dt/2, r += v dt for step k + 1 (a is the
 *     same: no forces between), without the wrap: the decision is not known to every block
 *     yet, so a rebuilding step wraps in its rebuild (gated_wrap_kernel), on the same
 *     positions (the wrap of a stored value is the wrap of the register it came from). */
__global__ void leapfrog_kernel(real4 *r, real4 *v, const real4 *a, int n, real half_dt, real dt, int drift_next,
                                double *part_ukin, double *part_vvmax, DeviceControl *c, BuildStatus *st,
                                unsigned *ticket, double ddt, double threshold, int equil, int reorder_every,
                                int set_cond, cudaGraphConditionalHandle cond)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    double vv = 0;
    if (i < n) {
        real4 vi = v[i];
        const real4 ai = a[i];
        vv = leapfrog_end(vi, ai, half_dt, dt, drift_next, r + i);
        v[i] = vi;
    }
    const double sum = drift_next ? 0.0 : block_reduce(vv, SumOp(), 0.0);   /* drift_next: uniform */
    const double most = block_reduce(vv, MaxOp(), 0.0);
    if (threadIdx.x != 0) return;
    if (!drift_next) {
        part_ukin[blockIdx.x] = sum;
        part_vvmax[blockIdx.x] = most;
    }
    atomicMax(&c->vvmax_bits, (unsigned long long)__double_as_longlong(most));
    __threadfence();
    if (atomicInc(ticket, gridDim.x - 1) != gridDim.x - 1) return;
    __threadfence();
    const double vvmax = __longlong_as_double((long long)atomicExch(&c->vvmax_bits, 0ull));
    decide_step(c, st, vvmax, ddt, threshold, equil, reorder_every);
    if (set_cond) cudaGraphSetConditional(cond, c->due);
}

/* The wrap that opens a rebuild, where --leapfrog fused moved it (first in the step's rebuild). */
__global__ void gated_wrap_kernel(real4 *r, int n, real L, const int *gate)
{
    if (!*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) wrap_atom(r, i, L);
}

void gpu_launch_gated_wrap(Sim *s, GpuSim *g, const int *gate)
{
    gated_wrap_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, s->n, s->L, gate ? gate : &g->ctrl->due);
    LAUNCH_CHECK("gated_wrap_kernel");
}

/* A handle for step k + 1's rebuild IF node, made in the capture before the kernel that sets it. */
static void make_cond_handle(GpuSim *g)
{
    cudaStreamCaptureStatus status;
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamGetCaptureInfo(g->stream, &status, nullptr, &graph, nullptr, nullptr, nullptr));
    CUDA_CHECK(cudaGraphConditionalHandleCreate(&g->rebuild_cond, graph, 0, cudaGraphCondAssignDefault));
    g->cond_pending = 1;
}

void gpu_leapfrog(Sim *s, int drift_next)
{
    GpuSim *g = gpu_of(s);
    if (!g->device_mode)
        nbr_fail(EXIT_INTERNAL, "%s: internal: --leapfrog fused outside the device loop", s->variant->name);
    if (!g->leap_ticket)   /* allocated by gpu_device_begin, before any capture */
        nbr_fail(EXIT_INTERNAL, "%s: internal: the fused leapfrog without its ticket", s->variant->name);
    const int set_cond = g->cond_capture && drift_next;
    if (set_cond) make_cond_handle(g);
    leapfrog_kernel<<<g->blocks, g->threads, 0, g->stream>>>(
        g->r, g->v, g->a, s->n, (real)(0.5 * s->p.dt), (real)s->p.dt, drift_next, g->parts + PART_UKIN * g->blocks,
        g->parts + PART_VVMAX * g->blocks, g->ctrl, g->status, g->leap_ticket, s->p.dt,
        s->p.rebuild_frac * s->p.delta, s->p.equil, s->ran.reorder, set_cond, set_cond ? g->rebuild_cond : 0);
    LAUNCH_CHECK("leapfrog_kernel");
    g->v_parts_valid = !drift_next;
}

void gpu_launch_decide(Sim *s, GpuSim *g)
{
    decide_kernel<<<1, 1, 0, g->stream>>>(g->ctrl, g->status, s->p.dt, s->p.rebuild_frac * s->p.delta, s->p.equil,
                                          s->ran.reorder);
    LAUNCH_CHECK("decide_kernel");
}

/* parts (NPARTS arrays of nb) -> out[PART_*] = the sums (the maximum for VVMAX); one block. */
__global__ void final_reduce_kernel(const double *parts, int nb, double *out)
{
    double upot = 0, ukin = 0, most = 0, virial = 0;
    for (int k = threadIdx.x; k < nb; k += blockDim.x) {
        upot += parts[PART_UPOT * nb + k];
        ukin += parts[PART_UKIN * nb + k];
        most = fmax(most, parts[PART_VVMAX * nb + k]);
        virial += parts[PART_VIRIAL * nb + k];
    }
    upot = block_reduce(upot, SumOp(), 0.0);
    ukin = block_reduce(ukin, SumOp(), 0.0);
    most = block_reduce(most, MaxOp(), 0.0);
    virial = block_reduce(virial, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        out[PART_UPOT] = upot;
        out[PART_UKIN] = ukin;
        out[PART_VVMAX] = most;
        out[PART_VIRIAL] = virial;
    }
}

__global__ void wrap_kernel(real4 *r, int n, real L)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) wrap_atom(r, i, L);
}

__global__ void rescale_kernel(real4 *v, int n, real factor)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    real4 vi = v[i];
    vi.x *= factor; vi.y *= factor; vi.z *= factor;
    v[i] = vi;
}

void gpu_kick_drift(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g->cond_capture) make_cond_handle(g);   /* --graph cond: this step's IF handle, set below */
    const int *gate = g->device_mode ? &g->ctrl->due : nullptr;
    const int wrap = s->p.leapfrog != LEAPFROG_FUSED;   /* fused: the rebuild wraps */
    kick_drift_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, g->v, g->a, s->n, (real)(0.5 * s->p.dt),
                                                               (real)s->p.dt, gate, wrap, s->L, g->cond_capture,
                                                               g->rebuild_cond, nullptr);
    LAUNCH_CHECK("kick_drift_kernel");
    g->v_parts_valid = 0;
}

void gpu_kick_drift_halted(Sim *s, const int *halt)
{
    GpuSim *g = gpu_of(s);
    kick_drift_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, g->v, g->a, s->n, (real)(0.5 * s->p.dt),
                                                               (real)s->p.dt, nullptr, 0, s->L, 0, 0, halt);
    LAUNCH_CHECK("kick_drift_kernel");
    g->v_parts_valid = 0;
}

void gpu_kick_halted(Sim *s, unsigned long long *vvmax_bits, const int *halt)
{
    GpuSim *g = gpu_of(s);
    kick_props_kernel<true><<<g->blocks, g->threads, 0, g->stream>>>(
        g->v, g->a, s->n, (real)(0.5 * s->p.dt), g->parts + PART_UKIN * g->blocks, g->parts + PART_VVMAX * g->blocks,
        vvmax_bits, halt);
    LAUNCH_CHECK("kick_props_kernel");
    g->v_parts_valid = 1;
}

void gpu_kick(Sim *s)
{
    GpuSim *g = gpu_of(s);
    gpu_kick_halted(s, g->device_mode ? &g->ctrl->vvmax_bits : nullptr, nullptr);
}

void gpu_wrap(Sim *s)
{
    GpuSim *g = gpu_of(s);
    wrap_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, s->n, s->L);
    LAUNCH_CHECK("wrap_kernel");
}

void gpu_rescale(Sim *s, double factor)
{
    GpuSim *g = gpu_of(s);
    rescale_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->v, s->n, (real)factor);
    LAUNCH_CHECK("rescale_kernel");
    g->v_parts_valid = 0;
}

void gpu_final_reduce(GpuSim *g)
{
    final_reduce_kernel<<<1, 1024, 0, g->stream>>>(g->parts, g->blocks, g->props_dev);
    LAUNCH_CHECK("final_reduce_kernel");
}

void gpu_props(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const int nb = g->blocks;
    if (!g->v_parts_valid) {
        kick_props_kernel<false><<<nb, g->threads, 0, g->stream>>>(g->v, g->a, s->n, 0, g->parts + PART_UKIN * nb,
                                                                   g->parts + PART_VVMAX * nb, nullptr, nullptr);
        LAUNCH_CHECK("kick_props_kernel");
        g->v_parts_valid = 1;
    }
    double upot = 0, ukin = 0, most = 0, virial = 0;
    if (s->p.reduce == WHERE_DEVICE) {
        /* writes the four numbers straight into mapped host memory: no copy to wait for */
        final_reduce_kernel<<<1, 1024, 0, g->stream>>>(g->parts, nb, g->props_dev);
        LAUNCH_CHECK("final_reduce_kernel");
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        upot = g->props_host[PART_UPOT];
        ukin = g->props_host[PART_UKIN];
        most = g->props_host[PART_VVMAX];
        virial = g->props_host[PART_VIRIAL];
    } else {
        CUDA_CHECK(cudaMemcpyAsync(g->parts_host, g->parts, NPARTS * sizeof(double) * nb, cudaMemcpyDeviceToHost,
                                   g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        const double *part = g->parts_host;
        for (int k = 0; k < nb; k++) {
            upot += part[PART_UPOT * nb + k];
            ukin += part[PART_UKIN * nb + k];
            most = fmax(most, part[PART_VVMAX * nb + k]);
            virial += part[PART_VIRIAL * nb + k];
        }
    }
    s->props.upot_sum = upot;
    s->props.ukin_sum = ukin;
    s->props.vv_max = most;
    s->props.virial_sum = virial;
}
