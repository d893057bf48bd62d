/* cell_scan.cuh - the gated exclusive scan of per-cell counts (start[c] = sum of count[0..c),
 * end[c] = start[c] + count[c]): the counting sort's middle step (cellsort.cu) for every program
 * whose device decides when to sort, and so a component of its own (tested on its own in
 * tests/comp_scan.cuh). Each kernel returns at once unless *gate (NULL: always runs), so that a
 * captured CUDA graph can hold the scan in every step and run it on the steps that sort.
 *
 * Two ways, chosen by the number of tiles T of CELL_SCAN_THREADS cells:
 *   one block       CUB's block scan walks the tiles carrying the running total: one launch,
 *                   ~0.65 us a tile when it runs (inferred, H100: gpu-rumd SP at 1M atoms,
 *                   1 907 tiles sorted at every build, 111 us a step faster over 11.1 steps a
 *                   build with three launches)
 *   three launches  the tiles' sums, their scan in one block, each tile from its offset: a few
 *                   us whatever T (assumed, not measured), but two more launches, which a graph
 *                   runs on every step even where the gate is off (~1 us each, inferred from
 *                   +1.9 us, 7%, on gpu-rumd SP at 4 096 atoms, 8 tiles, a sort every 208 steps)
 * Ungated, a scan runs only when wanted: three launches above CELL_SCAN_WIDE_TILES. Gated, with
 * a scan every k steps the walk costs 0.65 T / k a step and the two launches ~1.9 us, so the
 * walk wins up to T ~ 45 at k = 11 (a sort at every build; with ~8 us for the three launches
 * when they run) and far beyond at rarer sorts: three launches above CELL_SCAN_WIDE_TILES_GATED. */
#ifndef NBR_CELL_SCAN_CUH
#define NBR_CELL_SCAN_CUH

#include "../component_plant.h"
#include "cuda_check.cuh"

#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>
#include <stddef.h>

enum { CELL_SCAN_THREADS = 1024, CELL_SCAN_WIDE_TILES = 4, CELL_SCAN_WIDE_TILES_GATED = 64 };

static inline size_t cell_scan_tiles(size_t ncells) { return (ncells + CELL_SCAN_THREADS - 1) / CELL_SCAN_THREADS; }

/* The three launches where the cells span more tiles than the way's limit (and the tile sums
 * have room); else the one block. */
static inline bool cell_scan_wide(size_t ncells, size_t tiles_room, bool gated)
{
    const size_t t = cell_scan_tiles(ncells);
    return t > (size_t)(gated ? CELL_SCAN_WIDE_TILES_GATED : CELL_SCAN_WIDE_TILES) && t <= tiles_room;
}

/* One block walks every tile (CUB's block scan), carrying the running total. */
static __global__ void __launch_bounds__(CELL_SCAN_THREADS) cell_scan_block_kernel(const int *count, int *start, int *end,
                                                                            int ncells, const int *gate)
{
    bool off = gate && !*gate;
    NBR_PLANT(18, off = false);   /* the gate ignored: a step that does not sort overwrites start */
    if (off) return;
    typedef cub::BlockScan<int, CELL_SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    int carry = 0;
    for (int base = 0; base < ncells; base += CELL_SCAN_THREADS) {
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

/* The wide scan's first launch: each tile's sum. */
static __global__ void __launch_bounds__(CELL_SCAN_THREADS) cell_scan_tile_sums_kernel(const int *count, int ncells,
                                                                                int *tiles, const int *gate)
{
    if (gate && !*gate) return;
    typedef cub::BlockReduce<int, CELL_SCAN_THREADS> Reduce;
    __shared__ typename Reduce::TempStorage tmp;
    const int c = blockIdx.x * CELL_SCAN_THREADS + (int)threadIdx.x;
    const int sum = Reduce(tmp).Sum(c < ncells ? count[c] : 0);
    if (threadIdx.x == 0) tiles[blockIdx.x] = sum;
}

/* Its third: each tile scanned from its offset (the tile sums, scanned in place). */
static __global__ void __launch_bounds__(CELL_SCAN_THREADS) cell_scan_tiles_kernel(const int *count, int *start, int *end,
                                                                            int ncells, const int *tiles,
                                                                            const int *gate)
{
    if (gate && !*gate) return;
    typedef cub::BlockScan<int, CELL_SCAN_THREADS> Scan;
    __shared__ typename Scan::TempStorage tmp;
    const int c = blockIdx.x * CELL_SCAN_THREADS + (int)threadIdx.x;
    const int k = c < ncells ? count[c] : 0;
    int x, off = tiles[blockIdx.x];
    NBR_PLANT(17, if (blockIdx.x == gridDim.x - 1) off = tiles[blockIdx.x - 1]);   /* the last tile's offset one tile short */
    Scan(tmp).ExclusiveSum(k, x);
    if (c < ncells) {
        start[c] = off + x;
        if (end) end[c] = off + x + k;
    }
}

/* The scan on `stream`: start (and end, if given) from count over ncells cells, gated; tiles:
 * room for tiles_room tile sums (the wide scan's; NULL and 0: the one block always). */
static inline void cell_scan_gated(const int *count, int *start, int *end, int ncells, int *tiles, size_t tiles_room,
                                   const int *gate, cudaStream_t stream)
{
    if (tiles && cell_scan_wide((size_t)ncells, tiles_room, gate != nullptr)) {
        const int nt = (int)cell_scan_tiles((size_t)ncells);
        cell_scan_tile_sums_kernel<<<nt, CELL_SCAN_THREADS, 0, stream>>>(count, ncells, tiles, gate);
        LAUNCH_CHECK("cell_scan_tile_sums_kernel");
        cell_scan_block_kernel<<<1, CELL_SCAN_THREADS, 0, stream>>>(tiles, tiles, nullptr, nt, gate);
        LAUNCH_CHECK("cell_scan_block_kernel");
        cell_scan_tiles_kernel<<<nt, CELL_SCAN_THREADS, 0, stream>>>(count, start, end, ncells, tiles, gate);
        LAUNCH_CHECK("cell_scan_tiles_kernel");
        return;
    }
    cell_scan_block_kernel<<<1, CELL_SCAN_THREADS, 0, stream>>>(count, start, end, ncells, gate);
    LAUNCH_CHECK("cell_scan_block_kernel");
}

#endif
