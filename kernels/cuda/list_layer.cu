/* list_layer.cu - Rapaport 2011's W build over the cell-layer matrix H (the harness's cells of
 * edge r_n and their layers), one thread per atom: thread i loops over the 27 cells around c_i
 * (walk_27_cells) and over each cell's layers l < k_c, and records every j = H(c,l) within r_n,
 * so the thread count is N_a whatever the cutoff, in blocks of --threads (recorded in
 * stats.list_threads). Composed by gpu-layer (and any program that wants the layer build). */
#include "gpu_sim.cuh"

/* The rows of H are read four entries at a time (one int4, rows padded to a multiple of 4),
 * and the four positions are fetched before any is tested, so a thread has several loads
 * in flight; slots past the cell's occupancy stand for atom i itself and are rejected. */
template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) build_w_layer_kernel(PosSource pos, IntSource H, IntSource counts,
                                                             const int *__restrict__ cell_of, int n, int G,
                                                             int layer_cap, int nbr_cap, real L, real rn2,
                                                             int *__restrict__ W, int *__restrict__ nbr_count,
                                                             BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;   /* device decision: no rebuild this step */
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = 0;
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        int *w = W + w_index<Layout>(0, i, n, nbr_cap);
        const size_t w_step = w_index<Layout>(1, i, n, nbr_cap) - w_index<Layout>(0, i, n, nbr_cap);
        walk_27_cells(cell_of[i], G, L, ri, [&](int cell, const real4 &rs) {
            const int occupancy = min(fetch_int<Mode>(counts, cell), layer_cap);
            const size_t row4 = (size_t)cell * (layer_cap / 4);
            for (int l = 0; l < occupancy; l += 4) {
                const int4 q = fetch_int4<Mode>(H, row4 + l / 4);
                const int j0 = q.x, j1 = l + 1 < occupancy ? q.y : i, j2 = l + 2 < occupancy ? q.z : i,
                          j3 = l + 3 < occupancy ? q.w : i;
                const real4 r0 = fetch_pos<Mode>(pos, j0), r1 = fetch_pos<Mode>(pos, j1),
                            r2 = fetch_pos<Mode>(pos, j2), r3 = fetch_pos<Mode>(pos, j3);
                record_candidate(i, j0, r0, rs, rn2, w, w_step, m, nbr_cap);
                record_candidate(i, j1, r1, rs, rn2, w, w_step, m, nbr_cap);
                record_candidate(i, j2, r2, rs, rn2, w, w_step, m, nbr_cap);
                record_candidate(i, j3, r3, rs, rn2, w, w_step, m, nbr_cap);
            }
        });
        nbr_count[i] = m;
    }
    record_nbr_stats(m, status);
}

static void launch_w_layer(Sim *s, GpuSim *g)
{
    const PosSource pos = gpu_pos(g);
    const IntSource H = gpu_H(g), counts = gpu_counts(g);
    const real rn2 = s->rn * s->rn;
    dispatch_read_layout(s->p.read, s->p.wlayout, [&](auto read, auto layout) {
        build_w_layer_kernel<decltype(read)::value, decltype(layout)::value><<<g->blocks, g->threads, 0, g->stream>>>(
            pos, H, counts, g->cell_of, s->n, g->grid.G, g->layer_cap, g->nbr_cap, s->L, rn2, g->W, g->nbr_count,
            g->status, g->gate);
    });
    LAUNCH_CHECK("build_w_layer_kernel");
    s->stats.list_threads = g->threads;   /* one thread per atom in blocks of --threads */
}

const WBuilder W_LAYER = {launch_w_layer, 0};
