/* cellsort.cuh - atoms sorted by cell and the per-atom arrays permuted to that order: the one
 * sort of every GPU program (gpu-rumd's sort by cell, gpu-layer's device reordering, gpu-dd's
 * migration, inner-first and cell sorts and its cell lists).
 *
 * Two ways to the order, both stable (atoms of a cell keep their order of index or of slot):
 *   radix     the host decides: keys (cell of each atom, or any key < 2^bits) and indices
 *             0..n-1, cub::DeviceRadixSort on the (key, index) pairs -> perm (old index at each
 *             new place), key_sorted; cell bounds where the sorted keys change (RUMD's
 *             cellStart / cellEnd; empty cells 0, 0).
 *   counting  the device decides (a device-wide radix sort cannot be skipped from the device):
 *             an atomic slot per atom in its cell, an exclusive scan of the counts (CUB's block
 *             scan in one block, gated; CUB's device scan where nothing is gated), then each
 *             atom's place start[cell] + slot -> perm (place), or the arrays written there
 *             directly (scatter: gpu-layer's reordering, whose slots are its layers l_i).
 * Every kernel that takes a gate returns at once unless *gate (NULL: always runs), so a
 * captured CUDA graph can hold them. The arrays then move by perm (gather) into second arrays
 * and back (copy_back: no pointer swap, a captured graph keeps its pointers).
 *
 * A CellSort owns its scratch: cellsort_reserve grows it, before a capture (it refuses to
 * allocate while the stream is being captured); kernels take explicit arrays, so a user may
 * pass its own counts, slots or starts (gpu-layer's k_c, l_i); `threads` is the block size of
 * the per-atom launches (the program's --threads). */
#ifndef NBR_CELLSORT_CUH
#define NBR_CELLSORT_CUH

#include "../cells.h"
#include "cuda_check.cuh"
#include "real4.cuh"

#include <cuda_runtime.h>

struct GpuSim;

/* What a CellSort holds (cellsort_reserve's parts). */
enum {
    CELLSORT_RADIX = 1,   /* key, key_sorted, index, perm and the radix sort's workspace */
    CELLSORT_COUNT = 2,   /* key, slot, perm and count (zero: the counting sort's atomics start there) */
    CELLSORT_START = 4,   /* start (per cell) */
    CELLSORT_END = 8,     /* end (per cell) */
    CELLSORT_SCAN = 16,   /* the device scan's workspace */
};

struct CellSort {
    int n_cap, cell_cap, parts;
    int *key, *key_sorted, *index, *perm, *slot;   /* per atom */
    int *count, *start, *end;                      /* per cell */
    int *tiles;                                    /* per SCAN tile of cells: the wide gated scan's sums */
    void *tmp;                                     /* CUB workspace (radix sort, device scan) */
    size_t tmp_bytes;
};

/* The arrays a permutation moves: src[q] -> dst[q] for q < count. */
enum { CELLSORT_MOVES = 3 };
struct CellMoves {
    int count;
    const real4 *src[CELLSORT_MOVES];
    real4 *dst[CELLSORT_MOVES];
};

static inline CellMoves cell_moves(const real4 *r, real4 *r_to, const real4 *v = nullptr, real4 *v_to = nullptr)
{
    CellMoves m = {v ? 2 : 1, {r, v, nullptr}, {r_to, v_to, nullptr}};
    return m;
}

/* Room for n atoms and ncells cells in the given parts (added to those held), the radix sort's
 * workspace for keys of up to `bits` bits; device memory counted in g's total (gpu_alloc).
 * Grown arrays hold nothing (count: zeros). */
void cellsort_reserve(CellSort *cs, GpuSim *g, int n, int ncells, int parts, int bits, cudaStream_t stream);
void cellsort_free(CellSort *cs, GpuSim *g);

/* Key bits for cells 0..ncells-1 (the radix sort's end bit). */
int cellsort_bits(int ncells);

/* Radix: (key, index)[0..n) -> (key_sorted, perm), stable, keys below 2^bits. */
void cellsort_radix(CellSort *cs, int n, int bits, cudaStream_t stream);
/* start/end of each cell from key_sorted (every cell zeroed first). */
void cellsort_bounds(CellSort *cs, int n, int ncells, int threads, cudaStream_t stream);
/* start[c] = sum of count[0..c), end[c] = start[c] + count[c] where end is given. With a gate
 * or an end: cell_scan.cuh's block scans (returning at once unless *gate), one block walking the
 * tiles of cells or three launches, whichever costs less a step; else CUB's device scan
 * (CELLSORT_SCAN reserved). */
void cellsort_scan(CellSort *cs, const int *count, int *start, int *end, int ncells, const int *gate,
                   cudaStream_t stream);
/* perm[start[key[i]] + slot[i]] = i */
void cellsort_place(const int *key, const int *slot, const int *start, int n, int *perm, const int *gate,
                    int threads, cudaStream_t stream);
/* dst[q][start[key[i]] + slot[i]] = src[q][i] (place and gather in one) */
void cellsort_scatter(const int *key, const int *slot, const int *start, int n, CellMoves m, const int *gate,
                      int threads, cudaStream_t stream);
/* dst[q][k] = src[q][perm[k]] */
void cellsort_gather(const int *perm, int n, CellMoves m, const int *gate, int threads, cudaStream_t stream);
/* dst[q][i] = src[q][i] where copy_gate (NULL: always); count[0..ncells) zeroed where count
 * and zero_gate (NULL: always), for the next counting sort */
void cellsort_copy_back(CellMoves m, int n, int *count, int ncells, const int *copy_gate, const int *zero_gate,
                        int threads, cudaStream_t stream);

/* ---- the cell of an atom (template: each grid is a functor, cell(r) -> index) ----------- */

/* The periodic cubic grid of kernels/cells.h (gpu-rumd's cells of edge >= r_n / 2). */
struct PeriodicCells {
    CellGrid grid;
    __device__ __forceinline__ int operator()(const real4 &r) const
    {
        return cell_index(cell_coord(r.x, grid.L, grid.inv_w, grid.G), cell_coord(r.y, grid.L, grid.inv_w, grid.G),
                          cell_coord(r.z, grid.L, grid.inv_w, grid.G), grid.G);
    }
};

template <class CellOf>
__global__ void cellsort_keys_kernel(CellOf cell, const real4 *r, int n, int *key, int *index)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    key[i] = cell(r[i]);
    index[i] = i;
}

template <class CellOf>
__global__ void cellsort_count_kernel(CellOf cell, const real4 *r, int n, int *key, int *slot, int *count,
                                      const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = cell(r[i]);
    key[i] = c;
    slot[i] = atomicAdd(&count[c], 1);
}

/* Radix: key[i] = cell of atom i, index[i] = i (cs->key, cs->index). */
template <class CellOf>
void cellsort_keys(CellSort *cs, CellOf cell, const real4 *r, int n, int threads, cudaStream_t stream)
{
    if (n <= 0) return;
    cellsort_keys_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(cell, r, n, cs->key, cs->index);
    LAUNCH_CHECK("cellsort_keys_kernel");
}

/* Counting: key[i] = cell of atom i, slot[i] = its place in the cell, count[c] += 1 (count
 * zero before). */
template <class CellOf>
void cellsort_count(CellOf cell, const real4 *r, int n, int *key, int *slot, int *count, const int *gate,
                    int threads, cudaStream_t stream)
{
    if (n <= 0) return;
    cellsort_count_kernel<<<(n + threads - 1) / threads, threads, 0, stream>>>(cell, r, n, key, slot, count, gate);
    LAUNCH_CHECK("cellsort_count_kernel");
}

#endif
