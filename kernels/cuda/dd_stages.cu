/* dd_stages.cu - gpu-dd's stages as the harness's Variant sees them (variants/gpu-dd.cu composes
 * them): the start of every rank (MPI, the options checked against the ranks, the device, the
 * domain, the halo backend), the loop's stages on the domain (dd_domain.cu) and the shared GPU
 * stages (integrate.cu, force.cu, gpu_sim.cu) through its shadow Sim, and the end (the halo and
 * the force kernel replayed on their own, the halo's bytes, teardown). */
#include "dd_halo.cuh"

#include "../../common/interrupt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int g_rank, g_size;

/* Every rank stops together (dd_fail) where this host has no usable GPU. Not a Variant.preflight:
 * gpu-dd's own bad-input refusals (grid, thin domains, backends) come first, exit 2, on any
 * machine (cases_90's refusal tests run on CI, which has MPI but no GPU). */
static void dd_preflight(const Sim *s)
{
    char why[300];
    if (cuda_unavailable(why, sizeof why)) dd_fail(EXIT_NO_DEVICE, "%s", why);
}

static void dd_init_device(Dd *d, GpuSim *g, Sim *s)
{
    int ndev = 0;
    dd_preflight(s);
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    int local_size = 1;
    d->local_device = dd_local_rank(&local_size) % ndev;
    /* backends that cannot put two ranks on one GPU (nccl; nvshmem's on-stream vote) say so */
    const char *one_per_gpu = d->halo->shared_gpu ? d->halo->shared_gpu(s->p.decide) : NULL;
    if (one_per_gpu && local_size > ndev)
        dd_fail(EXIT_INPUT, "%s: %d ranks on %d GPU(s) of this host; use --comm p2p", one_per_gpu, local_size, ndev);
    CUDA_CHECK(cudaSetDevice(d->local_device));
    CUDA_CHECK(cudaGetDeviceProperties(&g->prop, d->local_device));
    snprintf(g->device_name, sizeof g->device_name, "%s", g->prop.name);
    CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    for (int k = 0; k < TIMER_SLOTS; k++) CUDA_CHECK(cudaEventCreate(&g->marks[k]));
    g->threads = s->p.threads;
}

/* gpu-dd's options (its own, DdOpts, and the shared ones) checked against the ranks that run,
 * before any GPU is touched; the grid and the replays recorded in dd_ran for the CSV row. */
static void dd_options(Sim *s, Dd *d)
{
    const Params *p = &s->p;
    const DdOpts *o = dd_opts(s);
    d->comm_kind = o->comm;
    d->halo = dd_halo_for(o->comm);
    d->overlap = o->dd_overlap;
    d->graph = o->dd_graph;
    d->newton = o->dd_newton;
    int *g = d->dims;
    char tail;
    if (!o->dd_grid[0]) {
        g[0] = g_size;
        g[1] = g[2] = 1;
    } else if (sscanf(o->dd_grid, "%dx%dx%d%c", &g[0], &g[1], &g[2], &tail) != 3 || g[0] < 1 || g[1] < 1 || g[2] < 1)
        dd_fail(EXIT_INPUT, "--dd-grid %s: expected PXxPYxPZ, e.g. 2x1x1", o->dd_grid);
    if (d->graph && d->halo->host_steps)
        dd_fail(EXIT_INPUT, "--dd-graph on needs a backend without host steps (nccl, p2p, nvshmem): --comm mpi waits on "
                            "the host in every pulse");
    if (d->graph && d->overlap)
        dd_fail(EXIT_INPUT, "--dd-graph on with --dd-overlap on: not supported yet (the graph holds one stream)");
    if (d->newton && !d->halo->force_halo)
        dd_fail(EXIT_INPUT, "--dd-newton on: the force halo is not written for --comm %s yet (mpi, nccl and p2p have "
                            "it): use --comm p2p, or --dd-newton off", d->halo->name);
    if (d->newton && d->overlap)
        dd_fail(EXIT_INPUT, "--dd-newton on with --dd-overlap on: not supported yet (the ghosts' rows and the force halo "
                            "are not split into inner and border work)");
    /* --dd-halo-reps -1: as --stage-reps; the row records the count used */
    dd_ran(s)->dd_halo_reps = o->dd_halo_reps < 0 ? p->stage_reps : o->dd_halo_reps;
    d->timeout_s = o->dd_timeout;
    d->force_gate = o->dd_force_gate;
    /* --comm mpi is the CPU-driven schedule: its pulses wait on the host every step */
    if (p->decide == DECIDE_DEVICE && d->halo->host_steps)
        dd_fail(EXIT_INPUT, "--decide device needs a backend without host steps (nccl, p2p, nvshmem): --comm mpi waits on "
                            "the host in every pulse");
    if ((long)g[0] * g[1] * g[2] != g_size)
        dd_fail(EXIT_INPUT, "--dd-grid %dx%dx%d has %d domains, but %d rank(s) run: one domain per rank", g[0], g[1], g[2],
                g[0] * g[1] * g[2], g_size);
    snprintf(dd_ran(s)->dd_grid, sizeof dd_ran(s)->dd_grid, "%dx%dx%d", g[0], g[1], g[2]);
    /* --reorder N_R: the sort by cell runs on the device at a rebuild (dd_domain.cu); there is no
     * host copy of the atoms to sort, so the row says where it ran */
    if (s->ran.reorder > 0) s->ran.reorder_at = WHERE_DEVICE;
}

int dd_init(Sim *s)
{
    Dd *d = new Dd();
    s->ctx = d;
    d->rank = g_rank;
    d->size = g_size;
    dd_options(s, d);
    d->coord[0] = g_rank % d->dims[0];
    d->coord[1] = g_rank / d->dims[0] % d->dims[1];
    d->coord[2] = g_rank / (d->dims[0] * d->dims[1]);
    for (int a = 0; a < 3; a++)
        for (int side = 0; side < 2; side++) {
            int c[3] = {d->coord[0], d->coord[1], d->coord[2]};
            c[a] = (c[a] + (side ? 1 : -1) + d->dims[a]) % d->dims[a];
            d->nbr[a][side] = (c[2] * d->dims[1] + c[1]) * d->dims[0] + c[0];
        }
    dd_geometry(s, d);   /* bad geometry refused before any GPU is touched */
    /* a planted failure of one rank (tests): the others wait in a collective, as they would
     * in any exchange, and must be stopped, not left hanging */
    const DdPlant plant = dd_plant();   /* test-dd-plant only (dd.cuh); a fail_step plants it at a rebuild */
    if (dd_planted && plant.fail_rank >= 0 && plant.fail_step < 0) {
        if (plant.fail_rank == g_rank)
            dd_fail(EXIT_INTERNAL, "planted failure (NBR_DD_FAIL_RANK=%d) during initialisation", g_rank);
        dd_barrier();
    }
    GpuSim *g = new GpuSim();
    d->g = g;
    dd_init_device(d, g, s);
    d->dom = *s;          /* the domain as the shared stages see it */
    d->dom.ctx = g;
    dd_setup(s, d);
    dd_comm_init(d);
    if (!s->p.quiet)
        printf("# %-14s = %dx%dx%d domains, %d rank(s), --comm %s, --dd-overlap %s, --dd-graph %s, --dd-newton %s; rank 0: "
               "%d local atoms, domain %.4g x %.4g x %.4g, GPU %d\n", "dd", d->dims[0], d->dims[1], d->dims[2], g_size,
               comm_names[d->comm_kind], d->overlap ? "on" : "off", d->graph ? "on" : "off", d->newton ? "on" : "off",
               d->n_local, d->width[0],
               d->width[1], d->width[2], d->local_device);
    s->stats.bytes = g->bytes;
    return 0;
}

/* Microseconds per call of f, replayed `reps` times between two events (after the run). */
static double replay_us(Dd *d, int reps, void (*f)(Dd *))
{
    GpuSim *g = d->g;
    f(d);   /* warm-up */
    dd_comm_poll(d);
    dd_barrier();
    CUDA_CHECK(cudaEventRecord(g->marks[2], g->stream));
    for (int k = 0; k < reps; k++) f(d);
    CUDA_CHECK(cudaEventRecord(g->marks[3], g->stream));
    CUDA_CHECK(cudaEventSynchronize(g->marks[3]));
    dd_comm_poll(d);
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, g->marks[2], g->marks[3]));
    return 1e3 * ms / reps;
}

/* with --dd-newton on the halo is both ways: coordinates out, forces back */
static void halo_once(Dd *d)
{
    dd_halo(d);
    if (d->newton) dd_force_halo(d);
}
static void force_once(Dd *d) { gpu_forces(&d->rows); }

/* The halo exchange and the force kernel on their own (the stage replays time them together as
 * "force"), --dd-halo-reps times each: the halo's cost per step for each backend, the largest over
 * ranks and this rank's kept in Dd for the console line (dd_finish) and the row (dd_row_pairs).
 * Collective, once per run: a rank that writes the row (rank 0 with --csv) runs it from
 * dd_row_pairs, since the row is written before Variant.finish; every other rank, and rank 0
 * without a row, first thing in dd_finish. Either way every rank reaches it right after the
 * run's row and before dd_finish's other collectives, so the ranks' collectives stay in order. */
static void dd_halo_timing(Dd *d, int reps)
{
    if (d->halo_reps || reps <= 0) return;
    double t[2] = {replay_us(d, reps, halo_once), replay_us(d, reps, force_once)};
    d->halo_us_mine = t[0];
    d->force_us_mine = t[1];
    dd_allreduce_max_d(t, 2);
    d->halo_us = t[0];
    d->force_us = t[1];
    d->halo_reps = reps;
}

/* Variant.row_pairs: ranks (the ranks that ran; a row before init has none), then halo_us,
 * force_us (the largest over ranks), halo_us_rank0, force_us_rank0 (the rank writing the row:
 * rank 0) and replays, the numbers of the console line "# dd: halo
 * exchange ..."; none where the halo was not timed (--dd-halo-reps 0). Only the row loop_run
 * writes after every step (the loop's stepping cleared, s->step at --steps) times them here: the
 * other ranks then go on to dd_finish, which runs the same replays. A row of a run stopped early
 * (interrupted; unstable within the host loop) gets no timings: the other ranks are on their way out,
 * and a replay would wait for them. Two such rows cannot be told apart from the last one here (a
 * Variant hook on every rank before the row would): a device-decided run (which leaves stepping
 * 0) found unstable at its last sample point, and a --steps 0 run whose step 0 is not finite;
 * with several ranks the others then stop every rank (dd_comm.cu's exit hook) before this row is
 * written: the run fails either way (exit 3), then without its row. */
void dd_row_pairs(Sim *s, void (*put)(void *ctx, const char *name, const char *value), void *ctx)
{
    Dd *d = dd_of(s);
    if (!d) return;
    char v[32];
    snprintf(v, sizeof v, "%d", d->size);
    put(ctx, "ranks", v);
    if (!s->stepping && s->step == s->p.steps && !nbr_interrupted()) dd_halo_timing(d, dd_ran(s)->dd_halo_reps);
    if (!d->halo_reps) return;
    const double us[4] = {d->halo_us, d->force_us, d->halo_us_mine, d->force_us_mine};
    const char *const names[4] = {"halo_us", "force_us", "halo_us_rank0", "force_us_rank0"};
    for (int k = 0; k < 4; k++) {
        snprintf(v, sizeof v, "%.4g", us[k]);
        put(ctx, names[k], v);
    }
    snprintf(v, sizeof v, "%d", d->halo_reps);
    put(ctx, "replays", v);
}

void dd_finish(Sim *s)
{
    Dd *d = dd_of(s);
    if (!d) return;
    dd_halo_timing(d, dd_ran(s)->dd_halo_reps);   /* first: done already where this rank wrote the row */
    long long moved[2] = {d->migrated, dd_halo_bytes(d)};
    dd_allreduce_sum_ll(moved, 2);
    if (!s->p.quiet) {
        printf("# dd: %lld atoms migrated between domains over the run\n", moved[0]);
        printf("# dd: the halo (--comm %s) moves %lld bytes per step between ranks, all ranks (%s; the lists of the "
               "last rebuild)\n", d->halo->name, moved[1], d->newton ? "positions out, forces back" : "positions");
    }
    dd_prof_report(d);
    if (d->halo_reps)
        printf("# dd: halo exchange %.4g us/step, force kernel %.4g us/call (largest over ranks; rank 0: %.4g, "
               "%.4g; %d replays%s)\n", d->halo_us, d->force_us, d->halo_us_mine, d->force_us_mine, d->halo_reps,
               d->newton ? "; the halo both ways: coordinates out, forces back" : "");
    dd_drop_halo_graph(d);
    dd_comm_free(d);
    dd_free(d);
    delete d;
    s->ctx = NULL;
}

void dd_kick_drift(Sim *s)
{
    Dd *d = dd_of(s);
    if (d->run_ahead) dd_run_kick_drift(d);
    else gpu_kick_drift(&d->dom);
}
void dd_wrap_stage(Sim *s) { dd_wrap(dd_of(s)); }
void dd_build(Sim *s) { dd_rebuild(s, dd_of(s)); }
void dd_kick(Sim *s)
{
    Dd *d = dd_of(s);
    if (d->run_ahead) dd_run_kick(d);
    else gpu_kick(&d->dom);
}
void dd_rescale(Sim *s, double factor) { gpu_rescale(&dd_of(s)->dom, factor); }
void dd_download(Sim *s) { dd_gather(s, dd_of(s), 1); }
void dd_pairs(Sim *s, PairFn fn, void *arg) { dd_for_each_pair(s, dd_of(s), fn, arg); }
void dd_mark(Sim *s, int slot) { gpu_timer_mark(&dd_of(s)->dom, slot); }
double dd_seconds(Sim *s, int from, int to) { return gpu_timer_seconds(&dd_of(s)->dom, from, to); }
const char *dd_device(Sim *s) { return dd_of(s)->g->device_name; }

void dd_forces(Sim *s) { dd_forces_step(dd_of(s)); }

/* The domain's sums, then the whole system's (every rank the same numbers). */
void dd_props(Sim *s)
{
    Dd *d = dd_of(s);
    gpu_props(&d->dom);
    dd_comm_poll(d);
    const Props *p = &d->dom.props;
    dd_reduce_props(&s->props, p->upot_sum, p->ukin_sum, p->virial_sum, p->vv_max);
}

/* The CSV rows come from rank 0 only: --csv and --blocks-csv taken out of the others' argv. */
static int drop_csv_flags(int argc, char **argv)
{
    int out = 1;
    for (int k = 1; k < argc; k++) {
        if (g_rank > 0 && (!strcmp(argv[k], "--csv") || !strcmp(argv[k], "--blocks-csv")) && k + 1 < argc) {
            k++;
            continue;
        }
        argv[out++] = argv[k];
    }
    argv[out] = NULL;
    return out;
}

/* --help's lines before the option table: how to start it and what was compiled */
static void dd_help(void)
{
    char names[64] = "";
    const int order[NCOMMS] = {COMM_MPI, COMM_P2P, COMM_NCCL, COMM_NVSHMEM};
    for (int k = 0; k < NCOMMS; k++) {
        const DdHalo *h = dd_halo_for(order[k]);
        if (h->compiled) snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", k ? " " : "", h->name);
    }
    printf("gpu-dd: start P ranks with mpirun -np P (one rank runs without mpirun)\n"
           "compiled backends: %s\n"
           "environment (setup and diagnostics that change no result; docs/programs.md):\n"
           "  NBR_NCCL_LIB=PATH     --comm nccl: the NCCL library to open (else the one found at build time,\n"
           "                        else libnccl.so.2 on the loader's path)\n"
           "  NBR_DD_ALL_RANKS=1    every rank prints (rank 0 only otherwise)\n\n",
           names);
}

int dd_start(int *argc, char ***argv)
{
    setenv("NCCL_NVLS_ENABLE", "0", 0);
    setenv("NVSHMEM_DISABLE_NVLS", "1", 0);
    dd_mpi_init(argc, argv, &g_rank, &g_size);
    for (int k = 1; k < *argc; k++)
        if (!strcmp((*argv)[k], "--help") && g_rank == 0) dd_help();
    const int n = drop_csv_flags(*argc, *argv);
    const char *all = getenv("NBR_DD_ALL_RANKS");
    if (g_rank > 0 && !(all && *all == '1')) {
        if (!freopen("/dev/null", "w", stdout)) dd_fail(EXIT_INTERNAL, "cannot silence stdout");
    }
    return n;
}
