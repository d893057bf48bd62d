/* list_cell_block.cu - the W build of Anderson, Lorenz & Travesset, J. Comput. Phys. 227 (2008)
 * 5342 (Rapaport 2011's "old method") over the harness's cells and layers: one thread block per
 * cell, one thread per layer of that cell, so the block size is the largest cell occupancy N_l
 * rounded up to a warp (recomputed at every build; --threads does not apply, the size used is
 * stats.list_threads). For each of the 27 neighbour cells in turn (walk_27_cells), each thread
 * loads one occupant into shared memory, the block synchronises, and each thread tests its own
 * atom against all of them, appending to its row of W. The parallelism per block is N_l: small
 * when r_c is short (SP: ~10 layers in 32-thread blocks), Rapaport's criticism (Table 3).
 * Composed by gpu-old. */
#include "gpu_sim.cuh"

template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) build_w_old_kernel(PosSource pos, IntSource H, IntSource counts, int n,
                                                           int G, int layer_cap, int nbr_cap, real L, real rn2,
                                                           int *__restrict__ W, int *__restrict__ nbr_count,
                                                           BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;   /* device decision: no rebuild this step */
    extern __shared__ unsigned char shared_raw[];
    real4 *shared_r = (real4 *)shared_raw;
    int *shared_j = (int *)(shared_r + blockDim.x);
    const int c = blockIdx.x, t = threadIdx.x;
    const int home_occupancy = min(fetch_int<Mode>(counts, c), layer_cap);
    const bool active = t < home_occupancy;
    const int i = active ? fetch_int_of4<Mode>(H, (size_t)c * layer_cap + t) : -1;
    const real4 ri = active ? fetch_pos<Mode>(pos, i) : make_real4(0, 0, 0, 0);
    int *w = active ? W + w_index<Layout>(0, i, n, nbr_cap) : W;
    const size_t w_step = Layout == WLAYOUT_ROW ? (size_t)n : 1;
    int m = 0;
    walk_27_cells(c, G, L, ri, [&](int cell, const real4 &rs) {
        const int occupancy = min(fetch_int<Mode>(counts, cell), layer_cap);
        __syncthreads();   /* the previous cell's occupants are no longer read */
        if (t < occupancy) {
            const int j = fetch_int_of4<Mode>(H, (size_t)cell * layer_cap + t);
            shared_j[t] = j;
            shared_r[t] = fetch_pos<Mode>(pos, j);
        }
        __syncthreads();
        if (active)
            for (int k = 0; k < occupancy; k++)
                record_candidate(i, shared_j[k], shared_r[k], rs, rn2, w, w_step, m, nbr_cap);
    });
    if (active) nbr_count[i] = m;
    record_nbr_stats(m, status);
}

static void launch_w_old(Sim *s, GpuSim *g)
{
    /* the block must hold a cell: N_l, known to the host after a host-decided build; under the
     * device decision the host does not see N_l, so the layer capacity (>= N_l, or the
     * overflow is found at the next sample point and the steps replayed) */
    const int layers = g->gate ? g->layer_cap : g->layers;
    if (layers > 1024)
        nbr_fail(EXIT_CAPACITY,
                 "%s: a cell holds %d atoms, more than the 1024 threads of a block that the old method "
                 "gives each cell: lower --delta or --rho",
                 s->variant->name, layers);
    const int threads = (layers + 31) / 32 * 32;
    const size_t shared = threads * (sizeof(real4) + sizeof(int));
    const PosSource pos = gpu_pos(g);
    const IntSource H = gpu_H(g), counts = gpu_counts(g);
    const real rn2 = s->rn * s->rn;
    dispatch_read_layout(s->p.read, s->p.wlayout, [&](auto read, auto layout) {
        build_w_old_kernel<decltype(read)::value, decltype(layout)::value>
            <<<g->grid.ncells, threads, shared, g->stream>>>(pos, H, counts, s->n, g->grid.G, g->layer_cap,
                                                             g->nbr_cap, s->L, rn2, g->W, g->nbr_count, g->status,
                                                             g->gate);
    });
    LAUNCH_CHECK("build_w_old_kernel");
    s->stats.list_threads = threads;   /* what the list kernel used, not --threads */
}

/* needs_layers: the block size is N_l, known before the launch */
const WBuilder W_CELL_BLOCK = {launch_w_old, 1};
