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
 * (pair_of_kind, gpu_sim.cuh).
 *
 * --tp (TP lanes per atom, a template parameter: 1, 2, 4, 8, 16 or 32; 0 = 1): the TP
 * consecutive lanes of a warp take one atom and stride over its row, lane k reading
 * m = k, k + TP, ...; their partial f_i, u_i, w_i are summed with warp shuffles (rumd.cuh's
 * group_sum, gpu-rumd's t_p sum) and lane 0 writes a[i], u[i]. At small N one thread per atom
 * leaves too few threads to hide the chain of dependent gathers; TP lanes shorten each chain
 * TP times. The grid is ceil(n TP / threads) blocks of --threads, so a block holds threads/TP
 * atoms: the TP blocks that hold the atoms of one per-atom block (the block partials are per
 * block of the per-atom launch, which the other kernels and the reductions share) each leave
 * their sums in a scratch slot, and the last of them to finish (a fence and a ticket per
 * slot) adds the TP slots in a fixed order into the per-atom block's partial: the same sum
 * every run. TP = 1 is the kernel as it was (the one-thread-per-atom loop, the partial written
 * directly). A TP > 1 launch must cover every block (gpu-dd's launches of some blocks only
 * take TP = 1: gpu-dd has no --tp). Summing f_i in TP pieces changes the order of the float
 * additions, so forces agree with TP = 1 to rounding, not bit for bit. */
#include "gpu_sim.cuh"
#include "rumd.cuh"

template <int Mode, int Layout, int Kind, int TP>
__global__ void __launch_bounds__(1024) force_kernel(PosSource pos, const int *__restrict__ W,
                                                     const int *__restrict__ nbr_count, int n, int nbr_cap, real L,
                                                     PairPotential pot, real4 *a, real *u, double *part_upot,
                                                     double *part_virial, int block0, double *tp_parts,
                                                     unsigned *tp_tickets)
{
    const int block = blockIdx.x + block0;   /* a launch may cover some blocks only (gpu_forces_blocks) */
    const long t = (long)block * blockDim.x + threadIdx.x;
    const int i = (int)(t / TP), sub = (int)(t % TP);   /* atom, and this lane's rank among its TP */
    real ui = 0, wi = 0;
    ForceSum f = {0, 0, 0, 0, 0};
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        real fx = 0, fy = 0, fz = 0, usum = 0, wsum = 0;
        const int count = min(nbr_count[i], nbr_cap);
#pragma unroll 4   /* several W reads, then several gathers, in flight per thread */
        for (int m = sub; m < count; m += TP) {
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
        f = ForceSum{fx, fy, fz, usum, wsum};
    }
    if (TP > 1) {   /* every lane of the warp: the shuffles take the whole warp */
        const TpLayout lanes = {TP, 32 / TP, 0, 0, 0};
        f = group_sum(f, lanes, sub);
    }
    if (i < n && sub == 0) {
        ui = (real)0.5 * f.u;
        wi = (real)0.5 * f.w;
        a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        u[i] = ui;
    }
    const double usum_block = block_reduce((double)ui, SumOp(), 0.0);
    const double wsum_block = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x != 0) return;
    if (TP == 1) {
        part_upot[block] = usum_block;
        part_virial[block] = wsum_block;
        return;
    }
    /* the TP blocks of per-atom block `slot`: the last to finish adds their sums in order */
    const int slot = block / TP;
    tp_parts[2 * block] = usum_block;
    tp_parts[2 * block + 1] = wsum_block;
    __threadfence();
    if (atomicInc(&tp_tickets[slot], TP - 1) != TP - 1) return;
    __threadfence();
    double su = 0, sw = 0;
    for (int k = 0; k < TP; k++) {
        su += __ldcg(tp_parts + 2 * (slot * TP + k));
        sw += __ldcg(tp_parts + 2 * (slot * TP + k) + 1);
    }
    part_upot[slot] = su;
    part_virial[slot] = sw;
}

void gpu_forces(Sim *s) { gpu_forces_blocks(s, 0, gpu_of(s)->blocks, gpu_of(s)->stream); }

/* Calls f(std::integral_constant<int, TP>{}) for the lanes per atom of the W force kernel. */
template <class F>
static void dispatch_tp(int tp, F f)
{
    switch (tp) {
    case 1: f(std::integral_constant<int, 1>{}); break;
    case 2: f(std::integral_constant<int, 2>{}); break;
    case 4: f(std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, 16>{}); break;
    default: f(std::integral_constant<int, 32>{}); break;
    }
}

/* The lanes per atom of the W force kernel (--tp; 0 = 1, written back for the CSV); its
 * scratch for TP > 1 is allocated here at the first call (step 0, before any capture). */
static int force_tp(Sim *s, GpuSim *g)
{
    if (s->p.tp == 0) s->p.tp = 1;
    const int tp = s->p.tp;
    if (tp != 1 && tp != 2 && tp != 4 && tp != 8 && tp != 16 && tp != 32)
        nbr_fail(EXIT_INPUT, "%s: --tp %d: the W force kernel takes 1, 2, 4, 8, 16 or 32 lanes per atom",
                 s->variant->name, tp);
    if (tp > 1 && !g->tp_parts) {
        g->tp_parts = (double *)gpu_alloc(g, sizeof(double) * 2 * (size_t)g->blocks * tp, "the --tp force partials");
        g->tp_tickets = (unsigned *)gpu_alloc(g, sizeof(unsigned) * (size_t)g->blocks, "the --tp force tickets");
        CUDA_CHECK(cudaMemset(g->tp_tickets, 0, sizeof(unsigned) * (size_t)g->blocks));
        CUDA_CHECK(cudaDeviceSynchronize());
    }
    return tp;
}

void gpu_forces_blocks(Sim *s, int first_block, int nblocks, cudaStream_t stream)
{
    GpuSim *g = gpu_of(s);
    if (nblocks <= 0) return;
    const int tp = force_tp(s, g);
    if (tp > 1 && (first_block != 0 || nblocks != g->blocks))
        nbr_fail(EXIT_INPUT, "%s: --tp %d: the W force kernel with several lanes per atom covers all atoms in one "
                             "launch (a launch of some blocks only, as gpu-dd's overlap, needs --tp 1)",
                 s->variant->name, tp);
    const PosSource pos = gpu_pos(g);
    dispatch_read_layout(s->p.read, s->p.wlayout, [&](auto read, auto layout) {
        dispatch_potential(s->pot.kind, [&](auto kind) {
            dispatch_tp(tp, [&](auto lanes) {
                constexpr int TP = decltype(lanes)::value;
                force_kernel<decltype(read)::value, decltype(layout)::value, decltype(kind)::value, TP>
                    <<<nblocks * TP, g->threads, 0, stream>>>(pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot,
                                                              g->a, g->u, g->parts + PART_UPOT * g->blocks,
                                                              g->parts + PART_VIRIAL * g->blocks, first_block * TP,
                                                              g->tp_parts, g->tp_tickets);
            });
        });
    });
    LAUNCH_CHECK("force_kernel");
}
