/* onchip_stages.cu - gpu-onchip's host path (onchip.cuh): with --decide host (and for --check,
 * --verify-lists, --stage-reps) the same build (n2, or the cell bin and cell build) and forces
 * as the chunk kernels, as per-stage kernels over global memory; the leapfrog, wrap, rescale and
 * download are the shared GPU stages (gpu_sim.cuh). The lists' and the cells' capacities follow
 * kernels/capacity.h: never truncated, a build that overflows grows them and builds again (or a
 * hard --max-nbr stops the run). Also the cell grid of --list cells: its M and its slots. */
#include "onchip.cuh"

#include <stdlib.h>

namespace {

/* The cells' occupancy: the largest into status->layers_needed (the largest cell occupancy). */
__global__ void bin_kernel(const real4 *r, int n, real L, OnchipCells g, BuildStatus *status)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int most = block_reduce(i < n ? onchip_cells_bin(i, r[i], L, g) : 0, MaxOp(), 0);
    if (threadIdx.x == 0) atomicMax(&status->layers_needed, most);
}

__global__ void build_kernel(const real4 *r, int n, int lanes, PbcBox box, real rn2, OnchipCells g, onchip_idx *list,
                             int *count, int cap, BuildStatus *status)
{
    const int ltp = oc_log2(lanes), tp = 1 << ltp, rank = blockIdx.x * blockDim.x + threadIdx.x,
              sub = rank & (tp - 1), i = rank >> ltp;
    const bool act = i < n;
    const int m = onchip_build_list(i, act, sub, tp, r, n, box, rn2, g, list + (size_t)(act ? i : 0) * cap, cap);
    if (act && sub == 0) count[i] = m;
    record_nbr_stats(act && sub == 0 ? m : 0, status);
}

template <int Kind>
__global__ void force_kernel(const real4 *r, int n, int lanes, PbcBox box, PairPotential pot, const onchip_idx *list,
                             const int *count, int cap, real4 *a, real *u, double *upot, double *virial)
{
    const int ltp = oc_log2(lanes), tp = 1 << ltp, rank = blockIdx.x * blockDim.x + threadIdx.x,
              sub = rank & (tp - 1), i = rank >> ltp;
    const bool act = i < n;
    const ForceSum f = onchip_force_atom<Kind>(i, act, sub, tp, r, list + (size_t)(act ? i : 0) * cap,
                                                act ? min(count[i], cap) : 0, box, pot);
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

/* auto takes cells above this N where 4 cells fit per axis: below it the n2 build is a small
 * part of a chunk (results/h200/onchip.md: the n2 build's cost shows above ~2000 atoms), and
 * with 3 per axis the 27 cells are the whole box, every atom tested as by n2. */
enum { CELLS_AUTO_MIN_N = 2048 };

int onchip_list_kind(const Sim *s, int *cells_per_axis)
{
    /* the margin: the cell of (x + L/2) M / L, rounded, never two apart for atoms within r_n */
    const int M = (int)floor(s->L / (s->rn * (1 + 1e-5)));
    int kind = s->p.list_method;
    if (kind == LIST_AUTO) kind = s->n > CELLS_AUTO_MIN_N && M >= 4 ? LIST_CELLS : LIST_N2;
    if (kind == LIST_CELLS && M < 3)
        nbr_fail(EXIT_INPUT, "%s: --list cells needs 3 cells of edge >= r_n = %.4g per axis, but L = %.4g < 3 r_n: use "
                 "--list n2 or raise --ne", s->variant->name, s->rn, s->L);
    *cells_per_axis = M;
    return kind;
}

void onchip_init_cells(Sim *s, OnchipState *oc)
{
    int M;
    const int kind = onchip_list_kind(s, &M);
    oc->list_kind = s->ran.list_method = kind;   /* the CSV row's list_method: what ran */
    oc->cm = kind == LIST_CELLS ? M : 0;
    if (!oc->cm) return;
    GpuSim *g = gpu_of(s);
    const size_t ncell = (size_t)M * M * M;
    capacity_init(&oc->cell_capacity, s->variant->name, "cell grid", "atoms per cell", "grow-from", 0,
                  nbr_start_estimate(s, poisson_max((double)s->n / ncell)), 1);
    oc->ccap = (int)oc->cell_capacity.cap;
    oc->cell_count = (int *)gpu_alloc(g, 2 * sizeof(int) * ncell, "the cells' counts");
    oc->cell_slot = (onchip_idx *)gpu_alloc(g, sizeof(onchip_idx) * ncell * oc->ccap, "the cells' slots");
    s->stats.cells_per_axis = M;
    s->stats.bytes = g->bytes;
}

int onchip_fit_cells(Sim *s, OnchipState *oc, int need)
{
    GpuSim *g = gpu_of(s);
    if (!oc->cm || !capacity_short(s, &oc->cell_capacity, (size_t)need)) return 0;
    const size_t ncell = (size_t)oc->cm * oc->cm * oc->cm;
    gpu_free(g, oc->cell_slot, sizeof(onchip_idx) * ncell * oc->ccap);
    oc->ccap = (int)oc->cell_capacity.cap;
    oc->cell_slot = (onchip_idx *)gpu_alloc(g, sizeof(onchip_idx) * ncell * oc->ccap, "the cells' slots");
    s->stats.bytes = g->bytes;
    return 1;
}

OnchipCells onchip_cells(const Sim *s, const OnchipState *oc)
{
    OnchipCells c = {oc->cm, oc->ccap, (real)(oc->cm / s->L), oc->cell_count, oc->cell_slot};
    return c;
}

void onchip_build(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int tp = oc->tp, threads = s->p.threads;
    for (;;) {
        const OnchipCells cells = onchip_cells(s, oc);
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        if (cells.m) {
            CUDA_CHECK(cudaMemsetAsync(cells.count, 0, sizeof(int) * cells.m * cells.m * cells.m, g->stream));
            bin_kernel<<<blocks_for(s->n, threads), threads, 0, g->stream>>>(g->r, s->n, s->L, cells, g->status);
            LAUNCH_CHECK("bin_kernel");
        }
        build_kernel<<<blocks_for((long)s->n * tp, threads), threads, 0, g->stream>>>(
            g->r, s->n, tp, pbc_box(s->L), s->rn * s->rn, cells, oc->list, oc->count, oc->cap, g->status);
        LAUNCH_CHECK("build_kernel");
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (onchip_fit_cells(s, oc, g->status_host->layers_needed)) continue;   /* a truncated cell: bin again */
        if (!onchip_fit_lists(s, oc, g->status_host->nbr_max)) break;
    }
    if (g->device_mode) onchip_choose_tier(s, oc);   /* a grown capacity may no longer fit one block */
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
            g->r, s->n, tp, pbc_box(s->L), s->pot, oc->list, oc->count, oc->cap, g->a, g->u, upot, virial);
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
