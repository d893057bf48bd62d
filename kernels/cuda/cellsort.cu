/* cellsort.cu - the sort by cell and the permutation of the per-atom arrays (cellsort.cuh). */
#include "cellsort.cuh"
#include "cell_scan.cuh"
#include "gpu_sim.cuh"

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

static inline int blocks_of(int n, int threads) { return n > 0 ? (n + threads - 1) / threads : 0; }

int cellsort_bits(int ncells)
{
    int bits = 1;
    while (bits < 31 && (1 << bits) < ncells) bits++;
    return bits;
}

static void grow(GpuSim *g, int **p, size_t old_len, size_t len, const char *what)
{
    gpu_free(g, *p, sizeof(int) * old_len);
    *p = (int *)gpu_alloc(g, sizeof(int) * len, what);
}

void cellsort_reserve(CellSort *cs, GpuSim *g, int n, int ncells, int parts, int bits, cudaStream_t stream)
{
    const int want = cs->parts | parts;
    const int atoms = want & (CELLSORT_RADIX | CELLSORT_COUNT);
    const int grow_n = atoms && (n > cs->n_cap || (want & ~cs->parts & (CELLSORT_RADIX | CELLSORT_COUNT)));
    const int grow_c = ncells > cs->cell_cap || (want & ~cs->parts & (CELLSORT_COUNT | CELLSORT_START | CELLSORT_END));
    size_t tmp = 0;
    const int nn = n > cs->n_cap ? n : cs->n_cap, nc = ncells > cs->cell_cap ? ncells : cs->cell_cap;
    if (want & CELLSORT_RADIX) {
        size_t b = 0;
        CUDA_CHECK(cub::DeviceRadixSort::SortPairs(nullptr, b, (const int *)nullptr, (int *)nullptr,
                                                   (const int *)nullptr, (int *)nullptr, nn, 0, bits, stream));
        tmp = b;
    }
    if (want & CELLSORT_SCAN) {
        size_t b = 0;
        CUDA_CHECK(cub::DeviceScan::ExclusiveSum(nullptr, b, (const int *)nullptr, (int *)nullptr, nc, stream));
        if (b > tmp) tmp = b;
    }
    if (!grow_n && !grow_c && tmp <= cs->tmp_bytes) return;
    cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
    CUDA_CHECK(cudaStreamIsCapturing(stream, &capturing));
    if (capturing != cudaStreamCaptureStatusNone)
        nbr_fail(EXIT_INTERNAL, "internal: the cell sort's scratch would grow while a CUDA graph is captured");
    CUDA_CHECK(cudaStreamSynchronize(stream));   /* nothing in flight still uses the old arrays */
    if (grow_n) {
        const size_t old = (size_t)cs->n_cap;
        if (want & (CELLSORT_RADIX | CELLSORT_COUNT)) grow(g, &cs->key, old, nn, "cell sort keys");
        if (want & CELLSORT_RADIX) {
            grow(g, &cs->key_sorted, old, nn, "sorted keys");
            grow(g, &cs->index, old, nn, "sort indices");
        }
        if (want & (CELLSORT_RADIX | CELLSORT_COUNT)) grow(g, &cs->perm, old, nn, "the sort permutation");
        if (want & CELLSORT_COUNT) grow(g, &cs->slot, old, nn, "slots in cells");
        cs->n_cap = nn;
    }
    if (grow_c) {
        const size_t old = (size_t)cs->cell_cap;
        if (want & CELLSORT_COUNT) {
            grow(g, &cs->count, old, nc, "cell counts");
            CUDA_CHECK(cudaMemsetAsync(cs->count, 0, sizeof(int) * nc, stream));
        }
        if (want & CELLSORT_START) grow(g, &cs->start, old, nc, "cell starts");
        if (want & CELLSORT_END) grow(g, &cs->end, old, nc, "cell ends");
        if (want & CELLSORT_START) grow(g, &cs->tiles, cell_scan_tiles(old), cell_scan_tiles(nc), "the scan's tile sums");
        cs->cell_cap = nc;
    }
    if (tmp > cs->tmp_bytes) {
        gpu_free(g, cs->tmp, cs->tmp_bytes);
        cs->tmp = gpu_alloc(g, tmp, "sort and scan workspace");
        cs->tmp_bytes = tmp;
    }
    cs->parts = want;
}

void cellsort_free(CellSort *cs, GpuSim *g)
{
    const size_t n = (size_t)cs->n_cap, c = (size_t)cs->cell_cap;
    int *atom_arrays[] = {cs->key, cs->key_sorted, cs->index, cs->perm, cs->slot};
    int *cell_arrays[] = {cs->count, cs->start, cs->end};
    for (int *p : atom_arrays) gpu_free(g, p, sizeof(int) * n);
    for (int *p : cell_arrays) gpu_free(g, p, sizeof(int) * c);
    gpu_free(g, cs->tiles, sizeof(int) * cell_scan_tiles(c));
    gpu_free(g, cs->tmp, cs->tmp_bytes);
    *cs = CellSort();
}

/* ---- radix ------------------------------------------------------------------------------- */

void cellsort_radix(CellSort *cs, int n, int bits, cudaStream_t stream)
{
    if (n <= 0) return;
    if (!(cs->parts & CELLSORT_RADIX) || n > cs->n_cap)
        nbr_fail(EXIT_INTERNAL, "internal: cellsort_radix: %d keys, room reserved for %d", n,
                 cs->parts & CELLSORT_RADIX ? cs->n_cap : 0);
    size_t bytes = cs->tmp_bytes;
    CUDA_CHECK(cub::DeviceRadixSort::SortPairs(cs->tmp, bytes, cs->key, cs->key_sorted, cs->index, cs->perm, n, 0,
                                               bits, stream));
}

/* start / end where the sorted keys change */
__global__ void cellsort_bounds_kernel(const int *key_sorted, int n, int *start, int *end)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int c = key_sorted[k];
    if (k == 0 || key_sorted[k - 1] != c) start[c] = k;
    if (k == n - 1 || key_sorted[k + 1] != c) end[c] = k + 1;
}

void cellsort_bounds(CellSort *cs, int n, int ncells, int threads, cudaStream_t stream)
{
    CUDA_CHECK(cudaMemsetAsync(cs->start, 0, sizeof(int) * ncells, stream));
    CUDA_CHECK(cudaMemsetAsync(cs->end, 0, sizeof(int) * ncells, stream));
    if (n <= 0) return;
    cellsort_bounds_kernel<<<blocks_of(n, threads), threads, 0, stream>>>(cs->key_sorted, n, cs->start, cs->end);
    LAUNCH_CHECK("cellsort_bounds_kernel");
}

/* ---- counting ---------------------------------------------------------------------------- */

void cellsort_scan(CellSort *cs, const int *count, int *start, int *end, int ncells, const int *gate,
                   cudaStream_t stream)
{
    if (gate || end) {   /* the tile sums have room for the cells reserved */
        cell_scan_gated(count, start, end, ncells, cs->tiles, cs->tiles ? cell_scan_tiles(cs->cell_cap) : 0, gate,
                        stream);
        return;
    }
    if (!(cs->parts & CELLSORT_SCAN)) nbr_fail(EXIT_INTERNAL, "internal: cellsort_scan: no CELLSORT_SCAN reserved");
    size_t bytes = cs->tmp_bytes;
    CUDA_CHECK(cub::DeviceScan::ExclusiveSum(cs->tmp, bytes, count, start, ncells, stream));
}

__device__ __forceinline__ int place_of(const int *key, const int *slot, const int *start, int i)
{
    return start[key[i]] + slot[i];
}

__global__ void cellsort_place_kernel(const int *key, const int *slot, const int *start, int n, int *perm,
                                      const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) perm[place_of(key, slot, start, i)] = i;
}

void cellsort_place(const int *key, const int *slot, const int *start, int n, int *perm, const int *gate,
                    int threads, cudaStream_t stream)
{
    if (n <= 0) return;
    cellsort_place_kernel<<<blocks_of(n, threads), threads, 0, stream>>>(key, slot, start, n, perm, gate);
    LAUNCH_CHECK("cellsort_place_kernel");
}

/* ---- the permutation --------------------------------------------------------------------- */

__global__ void cellsort_scatter_kernel(const int *key, const int *slot, const int *start, int n, CellMoves m,
                                        const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int k = place_of(key, slot, start, i);
#pragma unroll
    for (int q = 0; q < CELLSORT_MOVES; q++)
        if (q < m.count) m.dst[q][k] = m.src[q][i];
}

void cellsort_scatter(const int *key, const int *slot, const int *start, int n, CellMoves m, const int *gate,
                      int threads, cudaStream_t stream)
{
    if (n <= 0) return;
    cellsort_scatter_kernel<<<blocks_of(n, threads), threads, 0, stream>>>(key, slot, start, n, m, gate);
    LAUNCH_CHECK("cellsort_scatter_kernel");
}

__global__ void cellsort_gather_kernel(const int *perm, int n, CellMoves m, const int *gate)
{
    if (gate && !*gate) return;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int i = perm[k];
#pragma unroll
    for (int q = 0; q < CELLSORT_MOVES; q++)
        if (q < m.count) m.dst[q][k] = m.src[q][i];
}

void cellsort_gather(const int *perm, int n, CellMoves m, const int *gate, int threads, cudaStream_t stream)
{
    if (n <= 0) return;
    cellsort_gather_kernel<<<blocks_of(n, threads), threads, 0, stream>>>(perm, n, m, gate);
    LAUNCH_CHECK("cellsort_gather_kernel");
}

__global__ void cellsort_copy_back_kernel(CellMoves m, int n, int *count, int ncells, const int *copy_gate,
                                          const int *zero_gate)
{
    const bool copy = !copy_gate || *copy_gate, zero = count && (!zero_gate || *zero_gate);
    if (!copy && !zero) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (copy && i < n)
#pragma unroll
        for (int q = 0; q < CELLSORT_MOVES; q++)
            if (q < m.count) m.dst[q][i] = m.src[q][i];
    if (zero)
        for (int c = i; c < ncells; c += gridDim.x * blockDim.x) count[c] = 0;
}

void cellsort_copy_back(CellMoves m, int n, int *count, int ncells, const int *copy_gate, const int *zero_gate,
                        int threads, cudaStream_t stream)
{
    const int nb = blocks_of(n > 0 ? n : 1, threads);
    cellsort_copy_back_kernel<<<nb, threads, 0, stream>>>(m, n, count, ncells, copy_gate, zero_gate);
    LAUNCH_CHECK("cellsort_copy_back_kernel");
}
