/* rumd_lists.cuh - RUMD 2017's two neighbour-list builders (Bailey et al., SciPost Phys. 2017,
 * Figs. 4 and 5) as components any GPU program composes (gpu-rumd; gpu-n2 puts the n2 build
 * under gpu-layer's harness). Each takes its inputs as arguments, fills a ListTarget for every
 * atom (W in either layout, nbr_count, nbr_total / nbr_max in status), never writes W past
 * nbr_cap (an overflow records what it needed: the caller grows and redoes), returns at once
 * unless *gate where a gate is given (the device decision), and states the bytes it moves
 * (the fewest through device memory, per build, as kernels/cuda/stage_bytes.cu counts them).
 *
 *   n2    list_n2.cu, Fig. 4: each block holds p_b particles with t_p lanes each (TpLayout),
 *         reads the system in tiles of p_b positions through shared memory, the lanes of a
 *         particle test a tile's entries, a shared atomic slot counter per particle places each
 *         neighbour found. No state: the layout is the caller's (gpu-rumd: the force kernel's).
 *   sort  list_sort.cu, Fig. 5: SortCells owns cells of edge >= r_n / 2 (so 5 x 5 x 5 = 125
 *         cells are searched), the sort of the atoms by cell with every particle array (r, v)
 *         rearranged to that order (cellsort.cuh: cub::DeviceRadixSort where the host decides,
 *         a gated counting sort where the device does), each cell then two integers
 *         cellStart / cellEnd; the list kernel is one thread per particle over its 125 cells. */
#ifndef NBR_RUMD_LISTS_CUH
#define NBR_RUMD_LISTS_CUH

#include "pair_force.cuh"

/* Where a build writes: W(m, i), m_i, and the build's statistics (gpu_sim.cuh's BuildStatus). */
struct ListTarget {
    int *W, *nbr_count;
    int nbr_cap;
    BuildStatus *status;
};

static inline ListTarget gpu_list_target(const GpuSim *g)
{
    return ListTarget{g->W, g->nbr_count, g->nbr_cap, g->status};
}

/* ---- n2 (list_n2.cu) ---------------------------------------------------------------------- */

/* The shared memory of one n2 block: a tile of ppb positions and ppb slot counters. */
static inline size_t list_n2_smem(const TpLayout &lay) { return (size_t)lay.ppb * (sizeof(real4) + sizeof(int)); }

/* Block `block` of the n2 build (the atoms block x ppb, ...), by the calling thread block of
 * lay.threads, in `smem` (list_n2_smem bytes): the system read in tiles of ppb positions, the
 * lanes of a particle testing a tile's entries, a shared slot counter per particle placing each
 * neighbour found. The kernel of list_n2.cu and gpu-rumd's chunk kernel (rumd_chunk.cu). */
template <int Mode, int Layout>
__device__ __forceinline__ void build_n2_block(const TpLayout &lay, const PosSource &pos, int n, const PbcBox &box,
                                               real rn2, const ListTarget &out, int block, unsigned char *smem)
{
    real4 *tile = (real4 *)smem;                  /* ppb positions */
    int *slots = (int *)(tile + lay.ppb);         /* ppb slot counters */
    int local, sub;
    bool idle;
    tp_place(lay, local, sub, idle);
    const int i = block * lay.ppb + local;
    const bool active = !idle && i < n;
    for (int k = threadIdx.x; k < lay.ppb; k += blockDim.x) slots[k] = 0;
    const real4 ri = active ? fetch_pos<Mode>(pos, i) : make_real4(0, 0, 0, 0);
    for (int base = 0; base < n; base += lay.ppb) {
        const int len = min(lay.ppb, n - base);
        __syncthreads();   /* the previous tile is no longer read (and the counters are zeroed) */
        for (int k = threadIdx.x; k < len; k += blockDim.x) tile[k] = fetch_pos<Mode>(pos, base + k);
        __syncthreads();
        if (active)
            for (int k = sub; k < len; k += lay.tp) {
                const int j = base + k;
                real dx, dy, dz, cut = rn2;
                NBR_PLANT(11, if (j == n - 1) continue);
                NBR_PLANT(13, cut *= (real)1.02);
                if (j != i && min_image_r2(ri, tile[k], box, dx, dy, dz) < cut) {
                    const int m = atomicAdd(&slots[local], 1);
                    if (m < out.nbr_cap) out.W[w_index<Layout>(m, i, n, out.nbr_cap)] = j;
                    NBR_PLANT(12, if (m == 0) out.W[w_index<Layout>(atomicAdd(&slots[local], 1), i, n, out.nbr_cap)] = j);
                }
            }
    }
    __syncthreads();
    const int m = active && sub == 0 ? slots[local] : 0;
    if (active && sub == 0) out.nbr_count[i] = m;
    record_nbr_stats(m, out.status);   /* its barriers order the counters' reads before a next block's zeroing */
}

/* The n2 build of n atoms in blocks_for(n, lay.ppb) blocks of lay.threads, the read path and W
 * layout as the run's knobs (ReadMode, WLayout); rn2 = r_n^2. */
void list_n2_launch(const TpLayout &lay, int read, int layout, PosSource pos, int n, real L, real rn2, ListTarget out,
                    const int *gate, cudaStream_t stream);
/* every position once from device memory (the other blocks' tiles come from L2), W and m_i
 * written: r4 n + 4 N_p + 4 n (np = N_p, the build's entries) */
double list_n2_bytes(double n, double np);

/* ---- sort (list_sort.cu) ------------------------------------------------------------------ */

struct SortCells {
    CellGrid grid;     /* cells of edge >= r_n / 2; G 0 where the box holds under 2.5 r_n */
    int cell_bits;     /* key bits of the radix sort */
    CellSort sort;     /* keys, permutation, cellStart / cellEnd */
};

/* The cells for a box of edge L and r_n, and room for n atoms (device memory counted in g);
 * returns 1 where the box holds 5 cells per axis (the sort can run), else 0 (nothing held), or
 * where need (--list sort) stops the run with one line. */
int sort_cells_init(SortCells *sc, GpuSim *g, int n, real L, real rn, int need, const char *who);
/* after what g->stream still has queued */
void sort_cells_free(SortCells *sc, GpuSim *g);
/* The atoms sorted by cell, r and v rearranged (through r_alt, v_alt and back). gate NULL (the
 * host decides): cub::DeviceRadixSort, then cellStart / cellEnd where bounds; else every kernel
 * gated (the counting sort, bounds included). threads: the per-atom launches' block size. */
void sort_cells_sort(SortCells *sc, real4 *r, real4 *r_alt, real4 *v, real4 *v_alt, int n, const int *gate, int bounds,
                     int threads, cudaStream_t stream);
/* The list kernel over the 125 cells, after a sort with bounds; one thread per atom in blocks
 * of threads; W in row layout (RUMD's). */
void list_sort_launch(const SortCells *sc, int read, PosSource pos, int n, real rn2, ListTarget out, const int *gate,
                      int threads, cudaStream_t stream);
/* what any sort of n atoms by cell must move, radix or counting: the keys (r read, cell and
 * index written: r4 n + 8n), one pass over the keys and values (read and written: 16n), the cell
 * bounds (8 G^3), the permutation read (4n), r and v gathered and copied back (8 r4 n) */
double sort_cells_bytes(double n, double ncells);
/* one build of the sort list: the sort, then r_i r4 n + cellStart / cellEnd 8 G^3 + W 4 N_p
 * + m_i 4n */
double list_sort_bytes(double n, double np, double ncells);
/* one build of ListMethod method (none: no list, 0) */
double rumd_list_bytes(int method, double n, double np, double ncells);

#endif
