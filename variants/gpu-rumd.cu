/* gpu-rumd - RUMD's GPU methods (Bailey et al., SciPost Phys. 2017) on nbrlab's GPU harness.
 * It composes:
 *   forces  the pair-force family (kernels/cuda/pair_force.cuh, gpu-layer's too) in RUMD's Fig. 3
 *           layout: t_p lanes per particle (--tp) in blocks of p_b (--pb), --prefetch, --read,
 *           over the row list W[m * N + i] or all pairs (--list none);
 *   lists   RUMD's builders (kernels/cuda/rumd_lists.cuh): n2 (Fig. 4 tiles, in the force layout)
 *           or sort (Fig. 5: atoms sorted by cells of edge >= r_n / 2 at every build, 125 cells);
 *           auto: n2 below N = 8000 or where sort's 5 cells per axis do not fit, else sort; n2 and
 *           none sort the atoms so every --sort-every steps (r and v move together: no fixed slot);
 *   decide  --decide device: every rebuild kernel gated (RUMD's updateRequired), sorts by counting;
 *   launch  --launch stage (a kernel per stage) or chunk (every step between two sample points in
 *           one cooperative launch of the same device code: kernels/cuda/rumd_chunk.cuh);
 *   tune    --autotune: RUMD's phased search (common/tune.c's tune_rumd);
 *   the rest from the shared GPU harness (kernels/cuda/gpu_sim.cuh). */
#include "../kernels/autotune.h"
#include "../kernels/cuda/rumd_chunk.cuh"

#include <string.h>

/* The program's own state, beside GpuSim (its prog): made by init, gone at finish. */
struct RumdProgram {
    int method;               /* LIST_NONE / LIST_N2 / LIST_SORT, resolved */
    TpLayout lay;             /* force kernel and n2 build */
    SortCells cells;          /* the sort's cells (any method may sort) */
    int force_blocks, force_group;   /* blocks of p_b particles; of them per partial of the per-atom launch */
    RumdChunkKind chunk;      /* --launch chunk: the instance, */
    int chunk_blocks;         /* its resident grid */
};

static RumdProgram &prog_of(Sim *s) { return *(RumdProgram *)gpu_of(s)->prog; }

/* Its own options (Variant.opts: no other program has them), listed with the common ones where
 * they stood, after --list; read as opts_of(s). The row's pb is what ran (Sim.ran_opts: 0
 * resolved to RUMD's default by N). */
struct RumdOpts {
    int pb;           /* particles per block p_b; 0 = RUMD's default for N */
    int prefetch;     /* 1: the force loop loads the next neighbour index ahead */
    int sort_every;   /* lists n2 / none: sort atoms by cell every this many steps, at the next
                         rebuild (0 = never); the sort list sorts at every build */
};
static const RumdOpts *opts_of(const Sim *s) { return (const RumdOpts *)s->opts; }

/* The block sums land in the per-atom launch's partials, R.force_group force blocks to one. */
static void rumd_forces(Sim *s)
{
    RumdProgram &R = prog_of(s);
    GpuSim *g = gpu_of(s);
    PairForceArgs A = pair_force_args(s, g);
    A.lay = R.lay;
    A.group = R.force_group;
    A.force_blocks = R.force_blocks;
    const PairForceKind k = {s->p.read, WLAYOUT_ROW, s->pot.kind, R.lay.tp, 0, opts_of(s)->prefetch,
                             R.method == LIST_NONE};
    pair_force_launch(A, k, R.force_blocks, R.lay.threads, g->stream);
}

static void sort_atoms(Sim *s, GpuSim *g, const int *gate, int bounds)
{
    RumdProgram &R = prog_of(s);
    sort_cells_sort(&R.cells, g->r, g->r_alt, g->v, g->v_alt, s->n, gate, bounds, g->threads, g->stream);
    g->v_parts_valid = 0;
}

/* The list kernel of the method (none has none), gated or not. */
static void launch_list(Sim *s, GpuSim *g, const int *gate)
{
    RumdProgram &R = prog_of(s);
    const real rn2 = s->rn * s->rn;
    const ListTarget W = gpu_list_target(g);
    if (R.method == LIST_N2)
        list_n2_launch(R.lay, s->p.read, WLAYOUT_ROW, gpu_pos(g), s->n, s->L, rn2, W, gate, g->stream);
    else list_sort_launch(&R.cells, s->p.read, gpu_pos(g), s->n, rn2, W, gate, g->threads, g->stream);
    s->stats.list_threads = R.method == LIST_N2 ? R.lay.threads : g->threads;
}

/* The host decision's build: sort (method sort), list kernel (none: no list), grown and redone. */
static void launch_host(Sim *s, GpuSim *g) { launch_list(s, g, nullptr); }
static void rumd_build(Sim *s)
{
    RumdProgram &R = prog_of(s);
    if (R.method == LIST_SORT) sort_atoms(s, gpu_of(s), nullptr, 1);
    gpu_build_list(s, R.method == LIST_NONE ? nullptr : launch_host);
}

/* The loop's reordering (every --sort-every steps, lists n2 and none; sort sorts in its build). */
static int rumd_reorder(Sim *s)
{
    RumdProgram &R = prog_of(s);
    if (R.method != LIST_SORT) sort_atoms(s, gpu_of(s), nullptr, 0);
    return R.method != LIST_SORT;
}

/* The device decision: the sort (gated by this step's rebuild for the sort method, by the
 * reordering decision for n2 and none; reorder_now implies due), then the list, gated. */
static void rumd_rebuild_kernels(Sim *s, GpuSim *g)
{
    RumdProgram &R = prog_of(s);
    if (R.method == LIST_SORT) sort_atoms(s, g, &g->ctrl->due, 1);
    else if (s->ran.reorder > 0) sort_atoms(s, g, &g->ctrl->reorder_now, 0);
    if (R.method != LIST_NONE) launch_list(s, g, &g->ctrl->due);
}

static void rumd_device_rebuild(Sim *s) { gpu_device_rebuild_with(s, rumd_rebuild_kernels); }

/* --launch chunk: the steps from here to the sample point as cooperative launches, each of at
 * most --sort-every steps (so that at most one step of it reorders), each followed by the wrap
 * and sort gated on its stop and the launch that resumes after them (rumd_chunk.cuh). */
static int rumd_chunk_run(Sim *s, int nsteps)
{
    if (s->p.launch != LAUNCH_CHUNK) return 0;
    RumdProgram &R = prog_of(s);
    GpuSim *g = gpu_of(s);
    const Params *p = &s->p;
    RumdChunkArgs A = {};
    A.F = pair_force_args(s, g);
    A.F.lay = R.lay;
    A.F.group = R.force_group;
    A.F.force_blocks = R.force_blocks;
    A.list = gpu_list_target(g);
    A.rn2 = (real)(s->rn * s->rn);
    A.r = g->r;
    A.v = g->v;
    A.L = (real)s->L;
    A.half_dt = (real)(0.5 * p->dt);
    A.dt = (real)p->dt;
    A.atom_threads = g->threads;
    A.atom_blocks = g->blocks;
    A.part_ukin = g->parts + PART_UKIN * g->blocks;
    A.part_vvmax = g->parts + PART_VVMAX * g->blocks;
    A.c = g->ctrl;
    A.st = g->status;
    A.ddt = p->dt;
    A.threshold = p->rebuild_frac * p->delta;
    A.equil = p->equil;
    A.reorder_every = s->ran.reorder;
    const size_t smem = R.chunk.all_pairs ? 0 : list_n2_smem(R.lay);
    for (int done = 0; done < nsteps;) {
        const int piece = s->ran.reorder > 0 ? std::min(nsteps - done, s->ran.reorder) : nsteps - done;
        A.nsteps = piece;
        A.drift_first = done == 0;
        A.sample_last = done + piece == nsteps;
        A.resume = 0;
        rumd_chunk_launch(A, R.chunk, R.chunk_blocks, R.lay.threads, smem, g->stream);
        if (s->ran.reorder > 0) {
            gpu_launch_gated_wrap(s, g, &g->ctrl->chunk_stop);
            sort_atoms(s, g, &g->ctrl->chunk_stop, 0);
            A.resume = 1;
            rumd_chunk_launch(A, R.chunk, R.chunk_blocks, R.lay.threads, smem, g->stream);
        }
        done += piece;
    }
    g->v_parts_valid = 1;   /* the launch ending at the sample point left the kinetic partials */
    s->stats.list_threads = R.lay.threads;
    return 1;
}

/* --launch chunk: what it cannot run refused with one line; the instance and its resident grid. */
static void chunk_setup(Sim *s, RumdProgram &R)
{
    const char *who = s->variant->name;
    if (s->p.read != READ_PLAIN)
        nbr_fail(EXIT_INPUT, "%s: --launch chunk reads positions the same launch wrote: needs --read plain (the "
                             "texture and read-only caches are not coherent within a launch)", who);
    if (R.method == LIST_SORT)
        nbr_fail(EXIT_INPUT, "%s: --launch chunk builds lists n2 and none (--list sort sorts at every build, with "
                             "CUB passes of their own): use --list n2", who);
    R.chunk = RumdChunkKind{s->pot.kind, R.lay.tp == 1, opts_of(s)->prefetch, R.method == LIST_NONE};
    const size_t smem = R.chunk.all_pairs ? 0 : list_n2_smem(R.lay);
    const int per_sm = rumd_chunk_per_sm(R.chunk, R.lay.threads, smem);
    if (per_sm < 1)
        nbr_fail(EXIT_CAPACITY, "%s: --launch chunk: no block of %d threads with %zu bytes of shared memory fits an SM "
                                "(lower --pb or --tp)", who, R.lay.threads, smem);
    R.chunk_blocks = std::min(R.force_blocks, per_sm * gpu_of(s)->prop.multiProcessorCount);
}

/* RUMD's defaults (the appendix, kernels/autotune.c): list, p_b and t_p by N, recorded in
 * Sim.ran and Sim.ran_opts (the row names what ran; --list, --pb and --tp stay as given). */
static int rumd_init(Sim *s)
{
    const Params *p = &s->p;
    Ran *ran = &s->ran;
    RumdOpts *ran_own = (RumdOpts *)s->ran_opts;
    const TuneParams d = autotune_defaults(s->n);
    const int sort_fits = s->L >= 2.5 * s->rn;   /* 5 cells of edge >= r_n / 2 per axis */
    /* --launch chunk builds n2 (and none): auto is n2 there */
    if (ran->list_method == LIST_AUTO)
        ran->list_method = d.list == LIST_N2 || !sort_fits || p->launch == LAUNCH_CHUNK ? LIST_N2 : LIST_SORT;
    if (ran->list_method == LIST_SORT && !sort_fits)
        nbr_fail(EXIT_INPUT, "%s: --list sort needs 5 cells of edge >= r_n/2 = %.4g per axis, but L = %.4g < 2.5 r_n: "
                             "use --list n2 or raise --ne", s->variant->name, 0.5 * s->rn, s->L);
    if (ran_own->pb == 0) ran_own->pb = d.pb;
    if (ran->tp == 0) ran->tp = d.tp;
    const int method = ran->list_method;
    ran->reorder = method == LIST_SORT ? 0 : opts_of(s)->sort_every;   /* the sort method sorts in its build */
    ran->reorder_at = WHERE_DEVICE;   /* the sort runs on the device (no --layers: no layer step) */
    const int rc = gpu_init_opts(s, 0);         /* no cells of edge r_n: boxes under 3 r_n are fine */
    GpuSim *g = gpu_of(s);
    g->prog = new RumdProgram();
    RumdProgram &R = prog_of(s);
    R.method = method;
    R.lay = tp_layout(ran->tp, ran_own->pb, s->variant->name);
    R.force_blocks = blocks_for(s->n, R.lay.ppb);
    if (R.lay.tp == 1) R.lay.threads = R.lay.ppb;   /* one thread per particle */
    /* ceil(force blocks / partials) force blocks share one of the reductions' partials */
    R.force_group = (R.force_blocks + g->blocks - 1) / g->blocks;
    if (R.force_group > 1) pair_force_reserve(g, R.force_blocks, g->blocks);
    const int sorts = sort_cells_init(&R.cells, g, s->n, s->L, s->rn, R.method == LIST_SORT, s->variant->name);
    if (!sorts) ran->reorder = 0;   /* no room for the sort's cells: lists n2 / none never sort */
    s->stats.cells_per_axis = sorts ? R.cells.grid.G : 0;
    if (p->launch == LAUNCH_CHUNK) chunk_setup(s, R);
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    s->stats.bytes = g->bytes;
    if (!p->quiet)
        printf("# gpu-rumd: list %s, t_p %d, p_b %d (%d per block, %d threads), prefetch %s, sort every %d steps%s, "
               "launch %s%s\n", list_names[R.method], R.lay.tp, ran_own->pb, R.lay.ppb, R.lay.threads,
               onoff_names[opts_of(s)->prefetch], ran->reorder, R.method == LIST_SORT ? " (every build)" : "",
               launch_names[p->launch], p->launch == LAUNCH_CHUNK ? " (a cooperative grid)" : "");
    return rc;
}

static void rumd_finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g && g->prog) {
        sort_cells_free(&prog_of(s).cells, g);
        delete &prog_of(s);
        g->prog = nullptr;
    }
    gpu_finish(s);
}

/* GB/s of the kernel-level timing: the list and the sort move their own bytes (rumd_lists.cuh) */
static double rumd_stage_bytes(Sim *s, Stage st)
{
    RumdProgram &R = prog_of(s);
    const double n = s->n, nc = R.cells.grid.ncells;
    if (st == STAGE_LIST) return rumd_list_bytes(R.method, n, s->stats.nbr_entries, nc);
    if (st == STAGE_REORDER) return R.method == LIST_SORT ? 0 : sort_cells_bytes(n, nc);
    return gpu_stage_bytes(s, st);
}

static const Option own_rows[] = {
    {"pb", T_INT, offsetof(RumdOpts, pb), 0, 1024, NULL, 0, "pb",
     "particles per block p_b (RUMD; 0 = its default: 32 for N <= 10000, else 64), rounded up to fill whole warps"},
    {"prefetch", T_ENUM, offsetof(RumdOpts, prefetch), 0, 0, onoff_names, 0, "prefetch",
     "the force loop loads the next neighbour's index (and position) before it works on the current one"},
    {"sort-every", T_INT, offsetof(RumdOpts, sort_every), 0, 1e9, NULL, 0, "sort_every",
     "lists none and n2: sort the atoms by cell every this many steps, at the next rebuild (0 = never); the sort "
     "list sorts at every build"},
};
static const RumdOpts own_defaults = {0, 1, 200};
/* listed before --autotune: where they stood in the common table, after --list */
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(RumdOpts), &own_defaults, NULL,
                               "autotune"};

int main(int argc, char **argv)
{
    /* its own sort as the reordering (--sort-every), the shared device loop with its own gated
     * rebuild, and --launch chunk's one launch per chunk */
    static const Variant variant = gpu_variant({
        .name = "gpu-rumd",
        .summary = "RUMD 2017 (Bailey et al.): t_p threads per particle in blocks of p_b, neighbour lists none / n2 "
                   "(shared-memory tiles) / sort (atoms sorted by cell, 125 cells), prefetch, rebuilds decided on the "
                   "device",
        .knobs = KNOB_THREADS | KNOB_READ | KNOB_REDUCE | KNOB_TP | KNOB_LIST | KNOB_DECIDE | KNOB_GRAPH | KNOB_DEVICE |
                 KNOB_LISTMETHOD | KNOB_AUTOTUNE | KNOB_LAUNCH,
        .opts = &own,
        .lists = 1u << LIST_AUTO | 1u << LIST_NONE | 1u << LIST_N2 | 1u << LIST_SORT,
        .init = rumd_init,
        .finish = rumd_finish,
        .reorder = rumd_reorder,
        .build = rumd_build,
        .forces = rumd_forces,
        .device_rebuild = rumd_device_rebuild,
        .chunk_run = rumd_chunk_run,
        .stage_bytes = rumd_stage_bytes,
        .compiler = NBR_COMPILER,
        .tune = &tune_rumd,
    });
    return nbr_main(argc, argv, &variant);
}
