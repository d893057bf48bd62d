/* onchip_stages.cu - gpu-onchip's host path (--decide host, --check, --verify-lists,
 * --stage-reps): the chunk kernel's build and forces as stage kernels (atom_rows.cu); the leapfrog,
 * wrap and download are the shared GPU stages. The rows' and cells' capacities follow
 * kernels/capacity.h: a build that overflows grows them and builds again (or a hard --max-nbr
 * stops the run). Also --list: the n2 or cell build, and the cells' M and slots. */
#include "onchip.cuh"

void onchip_alloc_lists(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    Rows16 &R = oc->rows;
    R.cap = (int)oc->capacity.cap;
    R.list = (row16 *)gpu_alloc(g, sizeof(row16) * (size_t)R.cap * s->n, "the neighbour lists");
    R.count = (int *)gpu_alloc(g, sizeof(int) * s->n, "neighbour counts");
    CUDA_CHECK(cudaMemsetAsync(R.count, 0, sizeof(int) * s->n, g->stream));
    s->stats.bytes = g->bytes;
}

/* After a build that needed `need` entries per atom: 1 if the capacity grew (lists reallocated,
 * build again), 0 if it fitted; a hard --max-nbr stops the run (capacity.c). */
int onchip_fit_lists(Sim *s, OnchipState *oc, int need)
{
    GpuSim *g = gpu_of(s);
    if (!capacity_short(s, &oc->capacity, (size_t)need)) return 0;
    gpu_free(g, oc->rows.list, sizeof(row16) * (size_t)oc->rows.cap * s->n);
    gpu_free(g, oc->rows.count, sizeof(int) * s->n);
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
    RowCells<row16> &c = oc->cells;
    c.m = kind == LIST_CELLS ? M : 0;
    if (!c.m) return;
    GpuSim *g = gpu_of(s);
    const size_t ncell = (size_t)M * M * M;
    capacity_init(&oc->cell_capacity, s->variant->name, "cell grid", "atoms per cell", "grow-from", 0,
                  nbr_start_estimate(s, poisson_max((double)s->n / ncell)), 1);
    c.cap = (int)oc->cell_capacity.cap;
    c.inv_h = (real)(M / s->L);
    c.count = (int *)gpu_alloc(g, 2 * sizeof(int) * ncell, "the cells' counts");
    c.slot = (row16 *)gpu_alloc(g, sizeof(row16) * ncell * c.cap, "the cells' slots");
    s->stats.cells_per_axis = M;
    s->stats.bytes = g->bytes;
}

int onchip_fit_cells(Sim *s, OnchipState *oc, int need)
{
    GpuSim *g = gpu_of(s);
    RowCells<row16> &c = oc->cells;
    if (!c.m || !capacity_short(s, &oc->cell_capacity, (size_t)need)) return 0;
    const size_t ncell = (size_t)c.m * c.m * c.m;
    gpu_free(g, c.slot, sizeof(row16) * ncell * c.cap);
    c.cap = (int)oc->cell_capacity.cap;
    c.slot = (row16 *)gpu_alloc(g, sizeof(row16) * ncell * c.cap, "the cells' slots");
    s->stats.bytes = g->bytes;
    return 1;
}

void onchip_build(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        rows_build_launch(g->r, s->n, s->L, s->rn * s->rn, oc->cells, oc->rows, oc->tp, s->p.threads, g->status,
                          g->stream);
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (onchip_fit_cells(s, oc, g->status_host->layers_needed)) continue;   /* a truncated cell: bin again */
        if (!onchip_fit_lists(s, oc, g->status_host->nbr_max)) break;
    }
    if (g->device_mode) onchip_choose_tier(s, oc);   /* a grown capacity may no longer fit one block */
    s->stats.nbr_entries = (double)g->status_host->nbr_total;
    s->stats.list_threads = s->p.threads;
}

void onchip_forces(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    double *upot = g->parts + PART_UPOT * g->blocks, *virial = g->parts + PART_VIRIAL * g->blocks;
    CUDA_CHECK(cudaMemsetAsync(upot, 0, sizeof(double), g->stream));
    CUDA_CHECK(cudaMemsetAsync(virial, 0, sizeof(double), g->stream));
    rows_force_launch(g->r, s->n, s->L, s->pot, oc->rows, oc->tp, s->p.threads, g->a, g->u, upot, virial, g->stream);
}

void onchip_for_each_pair(Sim *s, OnchipState *oc, PairFn fn, void *arg)
{
    rows_for_each_pair(oc->rows, s->n, fn, arg, gpu_of(s)->stream);
}
