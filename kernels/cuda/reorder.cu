/* reorder.cu - storing atoms in cell order (Rapaport 2011: "the sequence in which atoms are
 * stored in memory is periodically reordered to ensure that the occupants of each cell are
 * kept together"; the neighbours a thread gathers then sit in few cache lines). Called by
 * the loop every N_R steps at the next rebuild, after the periodic wrap and before the
 * build; the new order is the scan of the most recent H(c,l) in cell order, as in the
 * paper. Only r and v move: forces are recomputed after the build that follows.
 *   --reorder-at host    the paper: r, v, k_c and H copied down, the cell order read from H
 *                        there (layers_cell_order, kernels/cpu/layers.h, shared with
 *                        cpu-layer), r and v permuted through a temporary array, copied
 *                        back. The copies are part of the reorder stage.
 *   --reorder-at device  new index of atom i = (exclusive prefix sum of k over cells
 *                        before c_i) + l_i, scattered into second arrays that are then
 *                        swapped in (the cell sort's scan and scatter, cellsort.cuh). */
#include "gpu_sim.cuh"

#include "../cpu/layers.h"

#include <utility>

/* The new order is a counting sort whose slots are the layers: new index of atom i =
 * start[c_i] + l_i, start the exclusive scan of k_c, the arrays scattered there
 * (kernels/cuda/cellsort.cuh). */
static void reorder_on_device(Sim *s, GpuSim *g)
{
    const int nc = g->grid.ncells;
    cellsort_reserve(&g->sort, g, 0, nc, CELLSORT_SCAN, 0, g->stream);   /* host decision: never captured */
    s->stats.bytes = g->bytes;
    cellsort_scan(&g->sort, g->cell_count, g->sort.start, nullptr, nc, nullptr, g->stream);
    cellsort_scatter(g->cell_of, g->layer_of, g->sort.start, s->n, cell_moves(g->r, g->r_alt, g->v, g->v_alt),
                     nullptr, g->threads, g->stream);
    std::swap(g->r, g->r_alt);
    std::swap(g->v, g->v_alt);
    std::swap(g->tex_r, g->tex_r_alt);
}

/* The device decision's reordering. Kernels cannot be skipped from the host here, so each
 * one returns at once unless its gate is set: the cell starts by one block (CUB's block scan),
 * the scatter into the second arrays, then the copy back (no pointer swap: a captured graph
 * keeps its pointers) and, whenever the step rebuilds, the zeroing of k_c for the layer
 * assignment. */
void gpu_launch_device_reorder(Sim *s, GpuSim *g)
{
    const int nc = g->grid.ncells, *now = &g->ctrl->reorder_now;
    cellsort_scan(&g->sort, g->cell_count, g->sort.start, nullptr, nc, now, g->stream);
    cellsort_scatter(g->cell_of, g->layer_of, g->sort.start, s->n, cell_moves(g->r, g->r_alt, g->v, g->v_alt), now,
                     g->threads, g->stream);
    cellsort_copy_back(cell_moves(g->r_alt, g->r, g->v_alt, g->v), s->n, g->cell_count, nc, now, &g->ctrl->due,
                       g->threads, g->stream);
}

static void reorder_on_host(Sim *s, GpuSim *g)
{
    const int n = s->n, nc = g->grid.ncells, cap = g->layer_cap;
    const size_t hlen = (size_t)nc * cap;
    if (!g->stage_r2) {
        g->stage_r2 = (real4 *)gpu_pinned(sizeof(real4) * n, "reordering");
        g->stage_v2 = (real4 *)gpu_pinned(sizeof(real4) * n, "reordering");
    }
    gpu_ensure_stage(g, n);
    if (!g->host_order) g->host_order = (int *)nbr_alloc(sizeof(int) * n, "the cell order");
    if (!g->host_counts) g->host_counts = (int *)gpu_pinned(sizeof(int) * nc, "cell occupancies");
    if (g->host_H_len < hlen) {
        if (g->host_H) CUDA_CHECK(cudaFreeHost(g->host_H));
        g->host_H = (int *)gpu_pinned(sizeof(int) * hlen, "the cell-layer matrix H");
        g->host_H_len = hlen;
    }
    CUDA_CHECK(cudaMemcpyAsync(g->stage_r, g->r, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->stage_v, g->v, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->host_counts, g->cell_count, sizeof(int) * nc, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->host_H, g->H, sizeof(int) * hlen, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    const int held = layers_cell_order(g->host_H, g->host_counts, nc, cap, g->host_order);
    if (held != n)
        nbr_fail(EXIT_INTERNAL, "%s: internal: the cell-layer matrix holds %d atoms, not %d", s->variant->name, held,
                 n);
    for (int k = 0; k < n; k++) {
        g->stage_r2[k] = g->stage_r[g->host_order[k]];
        g->stage_v2[k] = g->stage_v[g->host_order[k]];
    }
    CUDA_CHECK(cudaMemcpyAsync(g->r, g->stage_r2, sizeof(real4) * n, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->v, g->stage_v2, sizeof(real4) * n, cudaMemcpyHostToDevice, g->stream));
}

int gpu_reorder(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (!g->built) return 0;   /* no H describes the current atoms yet: nothing done */
    if (s->ran.reorder_at == WHERE_DEVICE) reorder_on_device(s, g);
    else reorder_on_host(s, g);
    g->built = 0;              /* H, c_i, l_i refer to the old order until the next build */
    g->v_parts_valid = 0;
    return 1;
}
