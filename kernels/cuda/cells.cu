/* cells.cu - cell assignment, layer assignment, the cell-layer matrix H(c,l), and the
 * build stage that ends with the variant's neighbour-matrix kernel (Rapaport 2011,
 * "organizing both the cell contents and the neighbor pairs as matrices").
 *
 * Cell assignment: one thread per atom computes c_i (the paper's CellAtomAssignGPU).
 * Layer assignment, l_i = k_{c_i}++ with N_l = max k_c:
 *   --layers host    the paper's choice: c_i copied to the host, the sequential loop there
 *                    (layers_assign, kernels/cpu/layers.h, shared with cpu-layer), l_i (and,
 *                    here, the occupancies k_c, which the kernels use to stop at the last
 *                    layer of a cell) copied back; H filled on the device. The copies are
 *                    part of the list stage (the loop times the stage as a whole).
 *   --layers device  one atomicAdd per atom on k_{c_i} returns l_i and H is written in the
 *                    same kernel; N_l by a block maximum and one atomicMax per block. The
 *                    order of atoms within a cell then varies from run to run.
 * H is cell-major (H[c * layer_cap + l]): a thread scanning a neighbour cell reads its
 * occupants from consecutive words.
 *
 * gpu_build reads the build status back once per build (the only synchronisation): if N_l
 * exceeded the layer capacity or some m_i the neighbour capacity, the array is grown and
 * the build redone (automatic capacities) or the run stops with a message (hard limits). */
#include "gpu_sim.cuh"

#include "../cpu/layers.h"

__global__ void assign_cells_kernel(const real4 *r, int n, CellGrid grid, int *cell_of)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) cell_of[i] = cell_of_position(r[i], grid.L, grid.inv_w, grid.G);
}

/* gate (device decision): run only if *gate (uniform over the grid, so no block is split). */
__global__ void assign_cells_layers_kernel(const real4 *r, int n, CellGrid grid, int *cell_of, int *layer_of,
                                           int *cell_count, int *H, int layer_cap, BuildStatus *status,
                                           const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int occupancy = 0;
    if (i < n) {
        const int c = cell_of_position(r[i], grid.L, grid.inv_w, grid.G);
        occupancy = cell_bin(i, c, cell_count, H, layer_cap);
        cell_of[i] = c;
        layer_of[i] = occupancy - 1;
    }
    const int most = block_reduce(occupancy, MaxOp(), 0);
    if (threadIdx.x == 0) atomicMax(&status->layers_needed, most);
}

__global__ void fill_H_kernel(const int *cell_of, const int *layer_of, int n, int *H, int layer_cap)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) H[(size_t)cell_of[i] * layer_cap + layer_of[i]] = i;
}

/* The device decision's layer assignment: k_c was zeroed by the reordering step
 * (gpu_launch_device_reorder); N_l and any overflow of the capacity reach the host through
 * the control block at the next sample point. */
void gpu_launch_device_layers(Sim *s, GpuSim *g)
{
    assign_cells_layers_kernel<<<g->blocks, g->threads, 0, g->stream>>>(
        g->r, s->n, g->grid, g->cell_of, g->layer_of, g->cell_count, g->H, g->layer_cap, g->status, &g->ctrl->due);
    LAUNCH_CHECK("assign_cells_layers_kernel");
}

void gpu_fill_H(GpuSim *g, int n)
{
    fill_H_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->cell_of, g->layer_of, n, g->H, g->layer_cap);
    LAUNCH_CHECK("fill_H_kernel");
}

void gpu_assign_layers(Sim *s, GpuSim *g)
{
    const int n = s->n, nc = g->grid.ncells;
    if (s->ran.layers == WHERE_DEVICE) {
        CUDA_CHECK(cudaMemsetAsync(g->cell_count, 0, sizeof(int) * nc, g->stream));
        assign_cells_layers_kernel<<<g->blocks, g->threads, 0, g->stream>>>(
            g->r, n, g->grid, g->cell_of, g->layer_of, g->cell_count, g->H, g->layer_cap, g->status, nullptr);
        LAUNCH_CHECK("assign_cells_layers_kernel");
        return;   /* N_l arrives with the build status */
    }
    assign_cells_kernel<<<g->blocks, g->threads, 0, g->stream>>>(g->r, n, g->grid, g->cell_of);
    LAUNCH_CHECK("assign_cells_kernel");
    if (!g->host_cells) {
        g->host_cells = (int *)gpu_pinned(sizeof(int) * n, "cell of each atom");
        g->host_layers = (int *)gpu_pinned(sizeof(int) * n, "layer of each atom");
    }
    if (!g->host_counts) g->host_counts = (int *)gpu_pinned(sizeof(int) * nc, "cell occupancies");
    CUDA_CHECK(cudaMemcpyAsync(g->host_cells, g->cell_of, sizeof(int) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->layers = layers_assign(g->host_cells, n, nc, g->host_counts, g->host_layers);
    CUDA_CHECK(cudaMemcpyAsync(g->layer_of, g->host_layers, sizeof(int) * n, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->cell_count, g->host_counts, sizeof(int) * nc, cudaMemcpyHostToDevice, g->stream));
    gpu_fit_layers(s, g, g->layers);
    gpu_fill_H(g, n);
}

static void read_status(GpuSim *g)
{
    CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
}

static void clear_status(GpuSim *g)
{
    CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
}

/* Device layer assignment: N_l from the status; grows H and refills it if needed. */
static void settle_device_layers(Sim *s, GpuSim *g)
{
    g->layers = g->status_host->layers_needed;
    if (gpu_fit_layers(s, g, g->layers)) gpu_fill_H(g, s->n);
}

void gpu_build(Sim *s, WBuilder builder)
{
    GpuSim *g = gpu_of(s);
    const int device_layers = s->ran.layers == WHERE_DEVICE;
    g->builder = builder;
    g->built = 0;
    clear_status(g);
    gpu_assign_layers(s, g);
    int layers_settled = !device_layers;
    if (builder.needs_layers && !layers_settled) {
        read_status(g);
        settle_device_layers(s, g);
        layers_settled = 1;
        clear_status(g);
    }
    for (;;) {
        builder.launch(s, g);
        g->w_launches++;
        read_status(g);
        if (!layers_settled) {
            layers_settled = 1;
            const int grew = g->status_host->layers_needed > g->layer_cap;
            settle_device_layers(s, g);
            if (grew) {
                clear_status(g);
                continue;
            }
        }
        if (gpu_fit_nbr(s, g, g->status_host->nbr_max)) {
            clear_status(g);
            continue;
        }
        break;
    }
    s->stats.nbr_entries = (double)g->status_host->nbr_total;
    s->stats.layers = g->layers;
    s->stats.bytes = g->bytes;
    g->built = 1;
}

void gpu_build_list(Sim *s, void (*launch)(Sim *s, GpuSim *g))
{
    GpuSim *g = gpu_of(s);
    while (launch) {
        clear_status(g);
        launch(s, g);
        g->w_launches++;
        read_status(g);
        if (gpu_fit_nbr(s, g, g->status_host->nbr_max)) continue;
        s->stats.bytes = g->bytes;
        break;
    }
    s->stats.nbr_entries = launch ? (double)g->status_host->nbr_total : 0;
    g->built = 1;
}
