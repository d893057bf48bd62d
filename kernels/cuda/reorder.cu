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
 *                        swapped in (the scan is CUB's DeviceScan). */
#include "gpu_sim.cuh"

#include "../cpu/layers.h"

#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>
#include <utility>

__global__ void reorder_kernel(const real4 *r, const real4 *v, const int *cell_of, const int *layer_of,
                               const int *cell_start, int n, real4 *r_new, real4 *v_new, const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = cell_start[cell_of[i]] + layer_of[i];
    r_new[k] = r[i];
    v_new[k] = v[i];
}

static void reorder_on_device(Sim *s, GpuSim *g)
{
    const int nc = g->grid.ncells;
    if (!g->scan_tmp) {
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, g->scan_tmp_bytes, g->cell_count, g->cell_start, nc,
                                                 g->stream));
        g->scan_tmp = gpu_alloc(g, g->scan_tmp_bytes, "prefix-sum workspace");
        s->stats.bytes = g->bytes;
    }
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(g->scan_tmp, g->scan_tmp_bytes, g->cell_count, g->cell_start, nc,
                                             g->stream));
    reorder_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, g->v, g->cell_of, g->layer_of, g->cell_start,
                                                            s->n, g->r_alt, g->v_alt, nullptr);
    LAUNCH_CHECK("reorder_kernel");
    std::swap(g->r, g->r_alt);
    std::swap(g->v, g->v_alt);
    std::swap(g->tex_r, g->tex_r_alt);
}

/* The device decision's reordering. Kernels cannot be skipped from the host here, so each
 * one returns at once unless its gate is set: the cell starts by one block (CUB's
 * BlockScan over tiles of 1024 cells, carrying the running total), the scatter into the
 * second arrays, then the copy back (no pointer swap: a captured graph keeps its pointers)
 * and, whenever the step rebuilds, the zeroing of k_c for the layer assignment. */
enum { SCAN_THREADS = 1024 };

/* start[c] = atoms in cells before c (and, where end is given, end[c] = start[c] + count[c]):
 * one block, CUB's block scan over tiles of cells; gated. Shared with gpu-rumd's cell sort
 * (gpu_launch_cell_scan). */
__global__ void __launch_bounds__(SCAN_THREADS) scan_cells_kernel(const int *count, int *start, int *end, int ncells,
                                                                  const int *gate)
{
    if (!*gate) return;
    typedef cub::BlockScan<int, SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    int carry = 0;
    for (int base = 0; base < ncells; base += SCAN_THREADS) {
        const int c = base + (int)threadIdx.x;
        int x = c < ncells ? count[c] : 0, total;
        const int k = x;
        Scan(tmp).ExclusiveSum(x, x, total);
        if (c < ncells) {
            start[c] = carry + x;
            if (end) end[c] = carry + x + k;
        }
        carry += total;
        __syncthreads();   /* tmp is reused by the next tile */
    }
}

void gpu_launch_cell_scan(GpuSim *g, const int *count, int *start, int *end, int ncells, const int *gate)
{
    scan_cells_kernel<<<1, SCAN_THREADS, 0, g->stream>>>(count, start, end, ncells, gate);
    LAUNCH_CHECK("scan_cells_kernel");
}

__global__ void finish_reorder_kernel(real4 *r, real4 *v, const real4 *r_new, const real4 *v_new, int n,
                                      int *count, int ncells, const DeviceControl *c)
{
    if (!c->due) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (c->reorder_now && i < n) {
        r[i] = r_new[i];
        v[i] = v_new[i];
    }
    for (int k = i; k < ncells; k += gridDim.x * blockDim.x) count[k] = 0;
}

void gpu_launch_device_reorder(Sim *s, GpuSim *g)
{
    const int nc = g->grid.ncells;
    gpu_launch_cell_scan(g, g->cell_count, g->cell_start, nullptr, nc, &g->ctrl->reorder_now);
    reorder_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, g->v, g->cell_of, g->layer_of, g->cell_start,
                                                            s->n, g->r_alt, g->v_alt, &g->ctrl->reorder_now);
    LAUNCH_CHECK("reorder_kernel");
    finish_reorder_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, g->v, g->r_alt, g->v_alt, s->n,
                                                                   g->cell_count, nc, g->ctrl);
    LAUNCH_CHECK("finish_reorder_kernel");
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
    if (s->p.reorder_at == WHERE_DEVICE) reorder_on_device(s, g);
    else reorder_on_host(s, g);
    g->built = 0;              /* H, c_i, l_i refer to the old order until the next build */
    g->v_parts_valid = 0;
    return 1;
}
