/* force.cu - the launcher of the pair-force kernel family (pair_force.cuh) and the W force
 * stage of gpu-layer, gpu-old and gpu-dd.
 *
 * The W stage: the per-atom launch's geometry (--threads per block, g->blocks blocks), the
 * --read path, the --wlayout of W (row W[m * n + i]: at each m the threads of a warp read
 * consecutive words, so the reads of W coalesce; col W[i * nbr_cap + m]); the entries hold
 * every atom within r_n = r_c + delta, pairs beyond r_c are skipped by the kernel.
 *
 * --tp (TP lanes per atom, a template parameter: 1, 2, 4, 8, 16 or 32; 0 = 1): the TP
 * consecutive lanes of a warp take one atom and stride over its row, lane k reading
 * m = k, k + TP, ...; their partial f_i, u_i, w_i are summed with warp shuffles (group_sum)
 * and lane 0 writes a[i], u[i]. At small N one thread per atom leaves too few threads to hide
 * the chain of dependent gathers; TP lanes shorten each chain TP times. The grid is
 * ceil(n TP / threads) blocks of --threads, so a block holds threads/TP atoms: the TP blocks
 * that hold the atoms of one per-atom block share its partial (Group = TP, pair_force.cuh's
 * ticket per slot). TP = 1 is one thread per atom, the partial written directly. A TP > 1
 * launch must cover every block (gpu-dd's launches of some blocks only take TP = 1: gpu-dd has
 * no --tp). Summing f_i in TP pieces changes the order of the float additions, so forces agree
 * with TP = 1 to rounding, not bit for bit. */
#include "pair_force.cuh"

/* Calls f(std::integral_constant<int, TP>{}) for the lanes per atom of a fixed-lane kernel. */
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

void pair_force_reserve(GpuSim *g, int force_blocks, int parts)
{
    if (force_blocks > g->force_scratch_blocks) {
        gpu_free(g, g->force_scratch, sizeof(double) * 2 * (size_t)g->force_scratch_blocks);
        g->force_scratch = (double *)gpu_alloc(g, sizeof(double) * 2 * (size_t)force_blocks, "the force blocks' sums");
        g->force_scratch_blocks = force_blocks;
    }
    if (parts > g->force_ticket_slots) {
        gpu_free(g, g->force_tickets, sizeof(unsigned) * (size_t)g->force_ticket_slots);
        g->force_tickets = (unsigned *)gpu_alloc(g, sizeof(unsigned) * (size_t)parts, "the force tickets");
        CUDA_CHECK(cudaMemset(g->force_tickets, 0, sizeof(unsigned) * (size_t)parts));
        CUDA_CHECK(cudaDeviceSynchronize());
        g->force_ticket_slots = parts;
    }
}

void pair_force_launch(const PairForceArgs &A, const PairForceKind &k, int grid, int threads, cudaStream_t stream)
{
    typedef std::integral_constant<bool, true> On;
    typedef std::integral_constant<bool, false> Off;
    if (k.tp_fixed ? (k.prefetch || k.all_pairs) : k.wlayout != WLAYOUT_ROW)
        nbr_fail(EXIT_INTERNAL, "pair_force_launch: no instance for %s lanes with %s layout, prefetch %d, all pairs %d",
                 k.tp_fixed ? "fixed" : "run-time", k.wlayout == WLAYOUT_ROW ? "row" : "col", k.prefetch, k.all_pairs);
    dispatch_read_layout(k.read, k.wlayout, [&](auto read, auto layout) {
        constexpr int M = decltype(read)::value, Lay = decltype(layout)::value;
        dispatch_potential(k.potential, [&](auto kind) {
            constexpr int K = decltype(kind)::value;
            if (k.tp_fixed) {
                dispatch_tp(k.tp, [&](auto lanes) {
                    constexpr int TP = decltype(lanes)::value;
                    pair_force_kernel<M, Lay, K, TP, TP, false, false><<<grid, threads, 0, stream>>>(A);
                });
            } else if constexpr (Lay == WLAYOUT_ROW) {
                auto run = [&](auto pre, auto all) {
                    constexpr bool P = decltype(pre)::value, All = decltype(all)::value;
                    if (k.tp == 1) pair_force_kernel<M, Lay, K, 1, 0, P, All><<<grid, threads, 0, stream>>>(A);
                    else pair_force_kernel<M, Lay, K, 0, 0, P, All><<<grid, threads, 0, stream>>>(A);
                };
                if (k.prefetch) k.all_pairs ? run(On{}, On{}) : run(On{}, Off{});
                else k.all_pairs ? run(Off{}, On{}) : run(Off{}, Off{});
            }
        });
    });
    LAUNCH_CHECK("pair_force_kernel");
}

PairForceArgs pair_force_args(Sim *s, GpuSim *g)
{
    PairForceArgs A = {};
    A.pos = gpu_pos(g);
    A.W = g->W;
    A.nbr_count = g->nbr_count;
    A.n = s->n;
    A.nbr_cap = g->nbr_cap;
    A.box = pbc_box(s->L);
    A.pot = s->pot;
    A.a = g->a;
    A.u = g->u;
    A.part_upot = g->parts + PART_UPOT * g->blocks;
    A.part_virial = g->parts + PART_VIRIAL * g->blocks;
    A.scratch = g->force_scratch;
    A.tickets = g->force_tickets;
    return A;
}

void gpu_forces(Sim *s) { gpu_forces_blocks(s, 0, gpu_of(s)->blocks, gpu_of(s)->stream); }

/* The lanes per atom of the W force stage (--tp; 0 = 1, recorded in Sim.ran for the CSV); the
 * reduction's scratch for TP > 1 is reserved at the first call (step 0, before any capture). */
static int force_tp(Sim *s, GpuSim *g)
{
    if (s->ran.tp == 0) s->ran.tp = 1;
    const int tp = s->ran.tp;
    if (tp != 1 && tp != 2 && tp != 4 && tp != 8 && tp != 16 && tp != 32)
        nbr_fail(EXIT_INPUT, "%s: --tp %d: the W force kernel takes 1, 2, 4, 8, 16 or 32 lanes per atom",
                 s->variant->name, tp);
    if (tp > 1) pair_force_reserve(g, g->blocks * tp, g->blocks);
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
    PairForceArgs A = pair_force_args(s, g);
    A.block0 = first_block * tp;
    A.group = tp;
    A.force_blocks = g->blocks * tp;
    const PairForceKind k = {s->p.read, s->p.wlayout, s->pot.kind, tp, 1, 0, 0};
    pair_force_launch(A, k, nblocks * tp, g->threads, stream);
}
