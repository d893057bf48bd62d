/* atom_rows_store.cu - the 16-bit rows and their cells as a program keeps them on the device
 * (atom_rows.cuh): allocation at the capacities kernels/capacity.h gives, growth after a build
 * that overflowed, and the host path's build and forces through the stage kernels. */
#include "atom_rows.cuh"

#include <string.h>

static void alloc_rows(Sim *s, RowsStore *st)
{
    GpuSim *g = gpu_of(s);
    Rows16 &R = st->rows;
    R.cap = (int)st->capacity.cap;
    R.list = (row16 *)gpu_alloc(g, sizeof(row16) * (size_t)R.cap * s->n, "the neighbour lists");
    R.count = (int *)gpu_alloc(g, sizeof(int) * s->n, "neighbour counts");
    CUDA_CHECK(cudaMemsetAsync(R.count, 0, sizeof(int) * s->n, g->stream));
    s->stats.bytes = g->bytes;
}

static size_t ncells(const RowCells<row16> &c) { return (size_t)c.m * c.m * c.m; }

void rows_store_init(Sim *s, RowsStore *st, int M)
{
    /* a full row holds at most n - 1 entries */
    capacity_init(&st->capacity, s->variant->name, "neighbour lists", "neighbours per atom", "max-nbr", s->p.max_nbr,
                  nbr_start_estimate(s, fmin(poisson_max(neighbours_within(s, s->rn)), (double)s->n)), 2);
    alloc_rows(s, st);
    RowCells<row16> &c = st->cells;
    c.m = M;
    if (!M) return;
    GpuSim *g = gpu_of(s);
    capacity_init(&st->cell_capacity, s->variant->name, "cell grid", "atoms per cell", "grow-from", 0,
                  nbr_start_estimate(s, poisson_max((double)s->n / ncells(c))), 1);
    c.cap = (int)st->cell_capacity.cap;
    c.inv_h = (real)(M / s->L);
    c.count = (int *)gpu_alloc(g, 2 * sizeof(int) * ncells(c), "the cells' counts");
    c.slot = (row16 *)gpu_alloc(g, sizeof(row16) * ncells(c) * c.cap, "the cells' slots");
    s->stats.cells_per_axis = M;
    s->stats.bytes = g->bytes;
}

static int grow_rows(Sim *s, RowsStore *st, int need)
{
    GpuSim *g = gpu_of(s);
    if (!capacity_short(s, &st->capacity, (size_t)need)) return 0;
    gpu_free(g, st->rows.list, sizeof(row16) * (size_t)st->rows.cap * s->n);
    gpu_free(g, st->rows.count, sizeof(int) * s->n);
    alloc_rows(s, st);
    return 1;
}

static int grow_cells(Sim *s, RowsStore *st, int need)
{
    GpuSim *g = gpu_of(s);
    RowCells<row16> &c = st->cells;
    if (!c.m || !capacity_short(s, &st->cell_capacity, (size_t)need)) return 0;
    gpu_free(g, c.slot, sizeof(row16) * ncells(c) * c.cap);
    c.cap = (int)st->cell_capacity.cap;
    c.slot = (row16 *)gpu_alloc(g, sizeof(row16) * ncells(c) * c.cap, "the cells' slots");
    s->stats.bytes = g->bytes;
    return 1;
}

int rows_store_fit(Sim *s, RowsStore *st, int rows, int cells)
{
    return grow_rows(s, st, rows) | grow_cells(s, st, cells);
}

void rows_store_build(Sim *s, RowsStore *st, int tp)
{
    GpuSim *g = gpu_of(s);
    const BuildStatus &b = *g->status_host;
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        rows_build_launch(g->r, s->n, s->L, s->rn * s->rn, st->cells, st->rows, tp, s->p.threads, g->status, g->stream);
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (grow_cells(s, st, b.layers_needed)) continue;   /* a truncated cell: bin again */
        if (!grow_rows(s, st, b.nbr_max)) break;
    }
    s->stats.nbr_entries = (double)b.nbr_total;
    s->stats.list_threads = s->p.threads;
}

void rows_store_forces(Sim *s, RowsStore *st, int tp)
{
    GpuSim *g = gpu_of(s);
    double *upot = g->parts + PART_UPOT * g->blocks, *virial = g->parts + PART_VIRIAL * g->blocks;
    CUDA_CHECK(cudaMemsetAsync(upot, 0, sizeof(double), g->stream));
    CUDA_CHECK(cudaMemsetAsync(virial, 0, sizeof(double), g->stream));
    rows_force_launch(g->r, s->n, s->L, s->pot, st->rows, tp, s->p.threads, g->a, g->u, upot, virial, g->stream);
}

void rows_store_free(RowsStore *st)
{
    for (void *p : {(void *)st->rows.list, (void *)st->rows.count, (void *)st->cells.count, (void *)st->cells.slot})
        gpu_release(p);
    memset(st, 0, sizeof *st);
}
