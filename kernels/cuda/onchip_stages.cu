/* onchip_stages.cu - gpu-onchip's host path (onchip.cuh): with --decide host (and for --check,
 * --verify-lists, --stage-reps) the same n2 build and forces as the chunk kernels, as per-stage
 * kernels over global memory; the leapfrog, wrap, rescale and download are the shared GPU
 * stages (gpu_sim.cuh). The lists' capacity follows kernels/capacity.h: never a truncated list,
 * a build that overflows grows it and builds again (or a hard --max-nbr stops the run). */
#include "onchip.cuh"

#include <stdlib.h>

namespace {

__global__ void build_kernel(const real4 *r, int n, int tp, real L, real rn2, onchip_idx *list, int *count, int cap,
                             BuildStatus *status)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x, sub = rank & (tp - 1), i = rank / tp;
    const bool act = i < n;
    const int m = onchip_build_atom(i, act, sub, tp, r, n, L, rn2, list + (size_t)(act ? i : 0) * cap, cap);
    if (act && sub == 0) count[i] = m;
    record_nbr_stats(act && sub == 0 ? m : 0, status);
}

template <int Kind>
__global__ void force_kernel(const real4 *r, int n, int tp, real L, PairPotential pot, const onchip_idx *list,
                             const int *count, int cap, real4 *a, real *u, double *upot, double *virial)
{
    const int rank = blockIdx.x * blockDim.x + threadIdx.x, sub = rank & (tp - 1), i = rank / tp;
    const bool act = i < n;
    const ForceSum f = onchip_force_atom<Kind>(i, act, sub, tp, r, list + (size_t)(act ? i : 0) * cap,
                                                act ? min(count[i], cap) : 0, L, pot);
    real ui = 0, wi = 0;
    if (act && sub == 0) {
        ui = (real)0.5 * f.u;
        wi = (real)0.5 * f.w;
        a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        u[i] = ui;
    }
    const double su = block_reduce((double)ui, SumOp(), 0.0), sw = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        atomicAdd(upot, su);
        atomicAdd(virial, sw);
    }
}

}  // namespace

void onchip_alloc_lists(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    oc->cap = (int)oc->capacity.cap;
    oc->list = (onchip_idx *)gpu_alloc(g, sizeof(onchip_idx) * (size_t)oc->cap * s->n, "the neighbour lists");
    oc->count = (int *)gpu_alloc(g, sizeof(int) * s->n, "neighbour counts");
    CUDA_CHECK(cudaMemsetAsync(oc->count, 0, sizeof(int) * s->n, g->stream));
    s->stats.bytes = g->bytes;
}

/* After a build that needed `need` entries per atom: 1 if the capacity grew (lists reallocated,
 * build again), 0 if it fitted; a hard --max-nbr stops the run (capacity.c). */
int onchip_fit_lists(Sim *s, OnchipState *oc, int need)
{
    GpuSim *g = gpu_of(s);
    if (!capacity_short(s, &oc->capacity, (size_t)need)) return 0;
    gpu_free(g, oc->list, sizeof(onchip_idx) * (size_t)oc->cap * s->n);
    gpu_free(g, oc->count, sizeof(int) * s->n);
    onchip_alloc_lists(s, oc);
    return 1;
}

void onchip_build(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int tp = oc->tp, threads = s->p.threads;
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        build_kernel<<<blocks_for((long)s->n * tp, threads), threads, 0, g->stream>>>(
            g->r, s->n, tp, s->L, s->rn * s->rn, oc->list, oc->count, oc->cap, g->status);
        LAUNCH_CHECK("build_kernel");
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (!onchip_fit_lists(s, oc, g->status_host->nbr_max)) break;
    }
    if (oc->device_mode) onchip_choose_tier(s, oc);   /* a grown capacity may no longer fit one block */
    s->stats.nbr_entries = (double)g->status_host->nbr_total;
    s->stats.list_threads = threads;
}

void onchip_forces(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int tp = oc->tp, threads = s->p.threads;
    double *upot = g->parts + PART_UPOT * g->blocks, *virial = g->parts + PART_VIRIAL * g->blocks;
    CUDA_CHECK(cudaMemsetAsync(upot, 0, sizeof(double), g->stream));
    CUDA_CHECK(cudaMemsetAsync(virial, 0, sizeof(double), g->stream));
    dispatch_potential(s->pot.kind, [&](auto kind) {
        force_kernel<decltype(kind)::value><<<blocks_for((long)s->n * tp, threads), threads, 0, g->stream>>>(
            g->r, s->n, tp, s->L, s->pot, oc->list, oc->count, oc->cap, g->a, g->u, upot, virial);
    });
    LAUNCH_CHECK("force_kernel");
}

void onchip_for_each_pair(Sim *s, OnchipState *oc, PairFn fn, void *arg)
{
    GpuSim *g = gpu_of(s);
    const int n = s->n, cap = oc->cap;
    int *count = (int *)nbr_alloc(sizeof(int) * n, "neighbour counts (host copy)");
    onchip_idx *list = (onchip_idx *)nbr_alloc(sizeof(onchip_idx) * (size_t)cap * n, "neighbour lists (host copy)");
    CUDA_CHECK(cudaMemcpyAsync(count, oc->count, sizeof(int) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(list, oc->list, sizeof(onchip_idx) * (size_t)cap * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int i = 0; i < n; i++)
        for (int m = 0; m < (count[i] < cap ? count[i] : cap); m++) fn(i, list[(size_t)i * cap + m], arg);
    free(count);
    free(list);
}
