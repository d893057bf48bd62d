/* list_sort.cu - RUMD's sort-125 list build and its cells (Fig. 5; see rumd_lists.cuh). */
#include "rumd_lists.cuh"

#include <string.h>

/* The 125 cells around particle i's (edge >= r_n / 2, so every j within r_n is in one of
 * them), each a range [cellStart, cellEnd) of the sorted particles; one thread per particle. */
template <int Mode>
__global__ void __launch_bounds__(1024) build_sort_kernel(PosSource pos, const int *__restrict__ start,
                                                          const int *__restrict__ end, CellGrid grid, int n, real rn2,
                                                          int *__restrict__ W, int *__restrict__ nbr_count,
                                                          int nbr_cap, BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = 0;
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        const int G = grid.G;
        const real L = grid.L;
        const int cx = cell_coord(ri.x, L, grid.inv_w, G), cy = cell_coord(ri.y, L, grid.inv_w, G),
                  cz = cell_coord(ri.z, L, grid.inv_w, G);
        int *w = W + w_index<WLAYOUT_ROW>(0, i, n, nbr_cap);
        walk_cells<2>(cx, cy, cz, G, L, ri, [&](int c, const real4 &rs) {
            const int j_end = end[c];
            for (int j = start[c]; j < j_end; j++)
                record_candidate(i, j, fetch_pos<Mode>(pos, j), rs, rn2, w, (size_t)n, m, nbr_cap);
        });
        nbr_count[i] = m;
    }
    record_nbr_stats(m, status);
}

int sort_cells_init(SortCells *sc, GpuSim *g, int n, real L, real rn, int need, const char *who)
{
    memset(sc, 0, sizeof *sc);
    if (L >= 2.5 * rn) sc->grid = cells_init(L, 0.5 * (double)rn, n, who);
    if (sc->grid.G < 5 && need)   /* a dilute grid may have widened the cells */
        nbr_fail(EXIT_INPUT, "%s: --list sort: the box holds fewer than 5 cells of edge >= r_n/2 per axis: use "
                             "--list n2", who);
    if (sc->grid.G < 5) return 0;
    sc->cell_bits = cellsort_bits(sc->grid.ncells);
    cellsort_reserve(&sc->sort, g, n, sc->grid.ncells, CELLSORT_RADIX | CELLSORT_COUNT | CELLSORT_START | CELLSORT_END,
                     sc->cell_bits, g->stream);
    return 1;
}

void sort_cells_free(SortCells *sc, GpuSim *g)
{
    CUDA_CHECK(cudaStreamSynchronize(g->stream));   /* nothing queued still uses them */
    cellsort_free(&sc->sort, g);
}

void sort_cells_sort(SortCells *sc, real4 *r, real4 *r_alt, real4 *v, real4 *v_alt, int n, const int *gate, int bounds,
                     int threads, cudaStream_t stream)
{
    CellSort *cs = &sc->sort;
    const int nc = sc->grid.ncells, T = threads;
    if (!gate) {
        cellsort_keys(cs, PeriodicCells{sc->grid}, r, n, T, stream);
        cellsort_radix(cs, n, sc->cell_bits, stream);
        if (bounds) cellsort_bounds(cs, n, nc, T, stream);
    } else {
        cellsort_count(PeriodicCells{sc->grid}, r, n, cs->key, cs->slot, cs->count, gate, T, stream);
        cellsort_scan(cs, cs->count, cs->start, cs->end, nc, gate, stream);   /* cellStart, cellEnd */
        cellsort_place(cs->key, cs->slot, cs->start, n, cs->perm, gate, T, stream);
    }
    cellsort_gather(cs->perm, n, cell_moves(r, r_alt, v, v_alt), gate, T, stream);
    cellsort_copy_back(cell_moves(r_alt, r, v_alt, v), n, gate ? cs->count : nullptr, nc, gate, gate, T, stream);
}

void list_sort_launch(const SortCells *sc, int read, PosSource pos, int n, real rn2, ListTarget out, const int *gate,
                      int threads, cudaStream_t stream)
{
    dispatch_read_layout(read, WLAYOUT_ROW, [&](auto rd, auto) {
        build_sort_kernel<decltype(rd)::value><<<blocks_for(n, threads), threads, 0, stream>>>(
            pos, sc->sort.start, sc->sort.end, sc->grid, n, rn2, out.W, out.nbr_count, out.nbr_cap, out.status, gate);
    });
    LAUNCH_CHECK("build_sort_kernel");
}

double sort_cells_bytes(double n, double ncells)
{
    const double r4 = sizeof(real4);
    return n * (r4 + 8) + 16 * n + 8 * ncells + 4 * n + 8 * r4 * n;
}

double list_sort_bytes(double n, double np, double ncells)
{
    return sort_cells_bytes(n, ncells) + n * sizeof(real4) + 8 * ncells + 4 * np + 4 * n;
}

double rumd_list_bytes(int method, double n, double np, double ncells)
{
    return method == LIST_N2 ? list_n2_bytes(n, np) : method == LIST_SORT ? list_sort_bytes(n, np, ncells) : 0;
}
