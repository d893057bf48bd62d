/* force.cu - forces from the neighbour matrix W(m,i): one thread per atom, no Newton's
 * third law (Rapaport 2011: random read-modify-write of f_j would cost more than computing
 * every pair twice), f_i and u_i held in registers and written once. Shared by every
 * variant that fills W (gpu-layer, gpu-old).
 *
 * Row layout W[m * n + i]: at each m the threads of a warp read consecutive words, so the
 * reads of W coalesce; the positions r_j are gathered through the --read path. The entries
 * hold every atom within r_n = r_c + delta; pairs beyond r_c are skipped here.
 *
 * Alongside u_i = (1/2) sum_j u(r_ij) the thread accumulates the virial of its atom,
 * w_i = (1/2) sum_j r_ij . f_ij = (1/2) sum_j fr r_ij^2 (pair_lj's fr; each pair is seen
 * from both ends of the full list, hence the halves). The block sums of u_i and w_i are
 * left in the reduction partials (PART_UPOT, PART_VIRIAL; see integrate.cu); w_i itself is
 * not stored.
 *
 * Charges travel in r.w (gpu_upload puts q_i there; the reorderings move whole real4s), so
 * the charged potential costs no extra gather. The potential kind is a template parameter:
 * the uncharged kernel keeps pair_lj's body alone, the charged one calls pair_u
 * (pair_of_kind, gpu_sim.cuh). */
#include "gpu_sim.cuh"

template <int Mode, int Layout, int Kind>
__global__ void __launch_bounds__(1024) force_kernel(PosSource pos, const int *__restrict__ W,
                                                     const int *__restrict__ nbr_count, int n, int nbr_cap, real L,
                                                     PairPotential pot, real4 *a, real *u, double *part_upot,
                                                     double *part_virial, int block0)
{
    const int block = blockIdx.x + block0;   /* a launch may cover some blocks only (gpu_forces_blocks) */
    const int i = block * blockDim.x + threadIdx.x;
    real ui = 0, wi = 0;
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        real fx = 0, fy = 0, fz = 0, usum = 0, wsum = 0;
        const int count = min(nbr_count[i], nbr_cap);
#pragma unroll 4   /* several W reads, then several gathers, in flight per thread */
        for (int m = 0; m < count; m++) {
            const int j = W[w_index<Layout>(m, i, n, nbr_cap)];
            const real4 rj = fetch_pos<Mode>(pos, j);
            real dx, dy, dz;
            const real r2 = min_image_r2(ri, rj, L, dx, dy, dz);
            if (r2 < pot.rc2) {
                real fr;
                usum += pair_of_kind<Kind>(pot, r2, ri.w * rj.w, &fr);
                fx += fr * dx; fy += fr * dy; fz += fr * dz;
                wsum += fr * r2;
            }
        }
        ui = (real)0.5 * usum;
        wi = (real)0.5 * wsum;
        a[i] = make_real4(fx, fy, fz, 0);
        u[i] = ui;
    }
    const double usum_block = block_reduce((double)ui, SumOp(), 0.0);
    const double wsum_block = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        part_upot[block] = usum_block;
        part_virial[block] = wsum_block;
    }
}

void gpu_forces(Sim *s) { gpu_forces_blocks(s, 0, gpu_of(s)->blocks, gpu_of(s)->stream); }

void gpu_forces_blocks(Sim *s, int first_block, int nblocks, cudaStream_t stream)
{
    GpuSim *g = gpu_of(s);
    if (nblocks <= 0) return;
    const PosSource pos = gpu_pos(g);
    dispatch_read_layout(s->p.read, s->p.wlayout, [&](auto read, auto layout) {
        dispatch_potential(s->pot.kind, [&](auto kind) {
            force_kernel<decltype(read)::value, decltype(layout)::value, decltype(kind)::value>
                <<<nblocks, g->threads, 0, stream>>>(pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot, g->a, g->u,
                                                     g->parts + PART_UPOT * g->blocks,
                                                     g->parts + PART_VIRIAL * g->blocks, first_block);
        });
    });
    LAUNCH_CHECK("force_kernel");
}
