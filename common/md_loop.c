/* md_loop.c - the paper's MD loop, written once, and the main of every variant.
 *
 * Per step: (a) half-kick and drift; (b) if the list is due, wrap the periodic boundaries,
 * reorder if N_R steps have passed, rebuild; (c) forces; (d) half-kick; (e) properties,
 * and the rebuild test: the cumulative maximum displacement, summed from sqrt(max v^2) dt,
 * reaching delta/2 (--rebuild-frac, a debug knob, changes the fraction); (f) velocity
 * rescaling during equilibration. Only the production steps (after equilibration) are
 * timed; equilibration doubles as the warm-up.
 *
 * The loop also watches the run: a state that is not finite stops it at once, atoms that
 * overlap at the start, an energy that left its step-0 value (or the last rescaling's) at a
 * sample point and an energy drift beyond --drift-limit end it as "unstable" (exit 4, the CSV
 * row says so); a rescaled run whose production temperature missed --temp ends "wrong-temp"
 * (exit 4); --verify-lists checks each stale neighbour structure at its last use. */
#include "core.h"
#include "interrupt.h"
#include "sim.h"
#include "../kernels/rebuild_rule.h"

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const stage_names[NSTAGES] = {"list", "force", "integrate", "reorder", "other"};

/* Overlapping atoms: a pair closer than about 0.6 sigma (LJ 12-6: u > 1700, |f| > 3.5e4),
 * which no liquid or solid of interest has (the closest pairs at T ~ 1 sit near 0.85;
 * a lattice jittered by 0.4 spacings has pairs near 0.7, which a run survives), or a mean
 * U/N over 50 (a lattice too dense: its forces cancel by symmetry, its energy does not). */
#define OVERLAP_F 3e4    /* |f_i| */
#define OVERLAP_UI 800.0 /* u_i, half of the pair's u */
#define OVERLAP_U 50.0   /* U/N */
#define ENERGY_MOVE 0.25  /* relative, see stop_if_energy_moved */
/* The temperature a rescaled run must measure over production: within TEMP_FLUCT times the
 * relative fluctuation of the instantaneous kinetic temperature, sqrt(2 / (3N)), or TEMP_FLOOR
 * of T, whichever is larger. The floor is the drift after the last rescaling of a lattice start,
 * which does not shrink with N: LJ ends 2.5% above 1.2 after the paper's 500 steps (N = 13824,
 * 6000 steps), 8.5% after 100 (N = 27000); SP and salt within 1%; jittered SP after 100 steps
 * 5%. Rescaling to 2T or T/2 is 100% or 50% off. */
#define TEMP_FLUCT 4.0
#define TEMP_FLOOR 0.1

static void require_stages(const Variant *v)
{
    const void *need[] = {v->init, v->kick_drift, v->wrap, v->forces, v->kick, v->props, v->rescale};
    for (size_t k = 0; k < sizeof need / sizeof need[0]; k++)
        if (!need[k])
            nbr_fail(EXIT_INTERNAL, "%s: internal: the variant table lacks a required stage (CPU variants list "
                                    "CPU_COMMON_STAGES)", v->name);
}

void ran_from_params(Sim *s)
{
    const Params *p = &s->p;
    const unsigned knobs = s->variant->knobs;
    Ran *r = &s->ran;
    memset(r, 0, sizeof *r);
#define X(f) r->f = p->f;
    RAN_PARAMS(X)
#undef X
    if (!(knobs & KNOB_REORDER)) r->reorder = 0;             /* no --reorder: no reordering */
    if (!(knobs & KNOB_LAYERS)) r->layers = WHERE_DEVICE;    /* no --layers: no host layer step */
    if (s->variant->opts) memcpy(s->ran_opts, s->opts, s->variant->opts->size);
}

void ran_show(const Sim *s, Params *shown)
{
    const Ran *r = &s->ran;
    *shown = s->p;
#define X(f) shown->f = r->f;
    RAN_PARAMS(X)
#undef X
}

/* Params are the options as given: a program that resolves a choice records it in Sim.ran. One
 * that wrote Params instead would run one configuration and name another (the autotuner's start,
 * the printed configuration, a trial's copy), so the loop compares them with a copy taken before
 * init, after init and after the run, and stops with one line. */
static void refuse_params_written(const Sim *s, const Params *before, const char *when)
{
    if (memcmp(before, &s->p, sizeof *before) != 0)
        nbr_fail(EXIT_INTERNAL, "%s: wrote Params during %s; record resolved choices in Sim.ran", s->variant->name,
                 when);
}

/* The same for the program's own options (Sim.opts; `before` its copy): what it resolved belongs
 * in Sim.ran_opts. */
static void refuse_opts_written(const Sim *s, const void *before, const char *when)
{
    if (s->variant->opts && memcmp(before, s->opts, s->variant->opts->size) != 0)
        nbr_fail(EXIT_INTERNAL, "%s: wrote its own options (Sim.opts) during %s; record resolved choices in "
                 "Sim.ran_opts", s->variant->name, when);
}

/* What the loop carries from chunk to chunk: the structure's builds, and what the sample points
 * gather (the rescaling's kinetic sums, the averaging block, production's energies, the timer). */
typedef struct {
    int last_reorder;     /* step of the last reordering */
    int built_at;         /* step of the last build */
    long verified;        /* --verify-lists: stale structures checked */
    double rescale_acc;   /* kinetic sums since the last rescaling, rescale_n of them */
    int rescale_n, rescales;
    double e_ref;         /* what the energy may not leave: step 0's, then each rescaling's */
    int e_ref_step;
    double block_e, block_t;   /* the averaging block's sums over block_samples sample points */
    int block, block_start, block_samples;
    double p_sum, t_sum;  /* production's pressure and temperature sums */
    double *e_prod;       /* production's energies, nsamples of them */
    int nsamples;
    double *block_wall;   /* the timed blocks' seconds per step, nblocks of at most nblocks_max */
    int nblocks, nblocks_max;
    int mark;             /* the timer mark of the block's start */
} LoopState;

static void rebuild(Sim *s, LoopState *ls)
{
    const Variant *v = s->variant;
    v->wrap(s);
    if (v->reorder && s->ran.reorder > 0 && s->step - ls->last_reorder >= s->ran.reorder && v->reorder(s)) {
        ls->last_reorder = s->step;
        if (s->production) s->stats.reorders++;
    }
    if (v->build) v->build(s);
    loop_rebuild_done(s);
    ls->built_at = s->step;
}

void loop_rebuild_done(Sim *s)
{
    s->stats.builds_total++;
    if (s->step > 0) s->stats.rebuild_hash = rebuild_hash_add(s->stats.rebuild_hash, s->step);
    if (s->production) {
        s->stats.builds++;
        s->stats.nbr_sum += s->stats.nbr_entries;
    }
    if (s->stats.layers > s->stats.layers_max) s->stats.layers_max = s->stats.layers;
    s->rebuild_due = 0;
    s->disp_acc = 0;
}

int loop_horizon_estimate(const Sim *s)
{
    const double per_step = sqrt(s->props.vv_max) * s->p.dt;
    if (!(per_step > 0)) return 0;
    /* a stop found at the last look rebuilds at the next step, from a displacement of 0 */
    const double left = s->p.rebuild_frac * s->p.delta - (s->rebuild_due ? 0.0 : s->disp_acc);
    const double k = ceil(left / per_step);
    return k < 1 ? 1 : k > 1e9 ? 1000000000 : (int)k;
}

static double total_energy(const Sim *s)
{
    return (0.5 * s->props.ukin_sum + s->props.upot_sum) / s->n;
}

/* The virial theorem: P V = (sum m v^2 + W) / 3, W the pair virial sum r_ij . f_ij (unit mass;
 * as LAMMPS computes it: its dof k T is sum m v^2). */
static double pressure(const Sim *s)
{
    const double V = (double)s->L * s->L * s->L;
    return (s->props.ukin_sum + s->props.virial_sum) / (3.0 * V);
}

/* The kinetic temperature with the momentum's 3 degrees of freedom removed (the rescaling's
 * target and LAMMPS's compute temp alike). */
static double kinetic_temp(const Sim *s) { return s->props.ukin_sum / (3.0 * (s->n > 1 ? s->n - 1 : 1)); }

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *x, int n)
{
    if (n <= 0) return 0;
    qsort(x, n, sizeof(double), compare_doubles);
    return n % 2 ? x[n / 2] : 0.5 * (x[n / 2 - 1] + x[n / 2]);
}

static void check_memory(const Sim *s)
{
    /* host arrays: r, v, a, u plus the reference's double forces in check mode */
    double need = (double)s->n * (3 * sizeof(vec3) + sizeof(real)) + (s->p.check ? s->n * 32.0 : 0);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (need > 0.8 * have)
        nbr_fail(EXIT_CAPACITY, "%s: N = %d atoms need %.3g GB of host memory, over 80%% of the %.3g GB "
                                "installed: lower --ne", s->variant->name, s->n, need / 1e9, have / 1e9);
}

/* Two atoms far closer than in any liquid: the run would explode. Judged from the step-0
 * forces and energies (host copies), so it costs no extra pass over pairs. */
static int overlapping_start(const Sim *s, char *why, size_t len)
{
    double fmax = 0, umax = 0;
    int fi = 0, ui = 0;
    for (int i = 0; i < s->n; i++) {
        double f2 = (double)s->a[i].x * s->a[i].x + (double)s->a[i].y * s->a[i].y + (double)s->a[i].z * s->a[i].z;
        if (!(f2 <= fmax)) { fmax = f2; fi = i; }
        if (s->variant->has_u && !((double)s->u[i] <= umax)) { umax = s->u[i]; ui = i; }
    }
    fmax = sqrt(fmax);
    const double upa = s->props.upot_sum / s->n;
    if (!(fmax <= OVERLAP_F))
        snprintf(why, len, "atom %d feels |f| = %.3g (> %g: a pair closer than ~0.6 sigma)", fi, fmax, OVERLAP_F);
    else if (!(umax <= OVERLAP_UI))
        snprintf(why, len, "atom %d has u = %.3g (> %g: a pair closer than ~0.6 sigma)", ui, umax, OVERLAP_UI);
    else if (!(upa <= OVERLAP_U))
        snprintf(why, len, "U/N = %.3g (> %g: neighbours closer than ~0.75 sigma)", upa, OVERLAP_U);
    else
        return 0;
    return 1;
}

/* One averaging block's numbers, for the console and --blocks-csv. */
static void end_block(Sim *s, int block, int len, int timed, double e_mean, double t_mean, double us)
{
    BlockRow b = {.block = block, .step = s->step, .steps = len, .timed_steps = timed,
                  .e_mean = e_mean, .temp_mean = t_mean, .e_end = total_energy(s),
                  .u_end = s->props.upot_sum / s->n, .builds_total = s->stats.builds_total,
                  .us_per_atom_step = us};
    if (!s->p.quiet)
        printf("# step %d: <E/N> = %.8f  <T> = %.6f  E/N = %.8f  U/N = %.8f  builds = %ld"
               "  block_us_per_atom_step = %.6g\n",
               s->step, b.e_mean, b.temp_mean, b.e_end, b.u_end, b.builds_total, us);
    report_block(s, &b);
}

/* Ends an unstable run: the reason on stderr, a failed --check (the state is not one to
 * validate), the CSV row with status unstable, exit 4. */
static void stop_unstable(Sim *s, RunResult *res, const char *why)
{
    fprintf(stderr, "%s: step %d: unstable: %s\n", s->variant->name, s->step, why);
    if (s->p.check) check_run(s, 1);
    report_csv(s, res, "unstable");
    nbr_exit(EXIT_UNSTABLE);   /* an autotuner trial: that trial fails (fail.h) */
}

/* SIGINT or SIGTERM: a run row with status interrupted and the steps done (nothing measured:
 * its other numbers are zero), so the block rows already written belong to a row; then the
 * signal's own exit. Between steps, and inside a long stage through nbr_poll_interrupt. */
static void stop_if_interrupted(const Sim *s)
{
    const int sig = nbr_interrupted();
    if (!sig) return;
    static const RunResult none;
    Sim done = *s;   /* the step in progress, cut short, is not done */
    if (s->stepping && done.step > 0) done.step--;
    fprintf(stderr, "%s: interrupted (%s) after step %d of %d%s\n", s->variant->name,
            sig == SIGINT ? "SIGINT" : "SIGTERM", done.step, s->p.steps,
            s->p.csv[0] ? ": the CSV row says interrupted" : "");
    report_csv(&done, &none, "interrupted");
    nbr_die_of(sig);
}

void nbr_poll_interrupt(const Sim *s) { stop_if_interrupted(s); }

/* Velocity Verlet keeps the energy within a bounded O(dt^2) error of its start: on the suite's
 * lattice starts at dt 0.005 the largest move seen is 1.5e-3 of |E| (LJ), the violent start of
 * SP jittered by 0.4 spacings 0.057 (pairs at ~0.6 sigma meet in its first 10 steps), while an
 * unstable integration grows without bound (dt 0.05: 4e26 by step 10). So at every sample
 * point E may move by ENERGY_MOVE (4x that worst healthy start), or by --drift-limit if larger,
 * from step 0's energy or, after a rescaling (which changes E on purpose: SP's lattice melts
 * to E/N 2.32 from 1.73), from the energy right after it; relative to |E| or, near 0, 3T/2. */
static void stop_if_energy_moved(Sim *s, RunResult *res, double e_ref, int ref_step)
{
    const double e = total_energy(s), moved = fabs(e - e_ref) / fmax(fabs(e_ref), 1.5 * s->p.temp);
    const double bound = fmax(ENERGY_MOVE, s->p.drift_limit);
    if (moved <= bound) return;   /* NaN goes on */
    char why[240];
    snprintf(why, sizeof why, "the energy E/N = %.6g moved from %.6g at step %d by %.3g (relative), beyond %g "
             "(time step, temperature or density too large?)", e, e_ref, ref_step, moved, bound);
    stop_unstable(s, res, why);
}

static void stop_if_not_finite(Sim *s, RunResult *res)
{
    if (isfinite(total_energy(s)) && isfinite(s->props.vv_max) && isfinite(s->props.virial_sum)) return;
    char why[200];
    snprintf(why, sizeof why, "the state is no longer finite (E/N = %g, max v^2 = %g): the run exploded (time step, "
             "temperature or density too large?)", total_energy(s), s->props.vv_max);
    stop_unstable(s, res, why);
}

/* --verify-lists checks the structure a rebuild leaves for the steps after it; a program that
 * keeps none (no build, or no stored pairs to enumerate) would check nothing and pass. */
static int keeps_structure(const Sim *s) { return s->variant->build && sim_stores_pairs(s); }

static void refuse_verify_without_structure(const Sim *s)
{
    if (s->p.verify_lists && !keeps_structure(s))
        nbr_fail(EXIT_INPUT, "%s: --verify-lists checks the neighbour structure a rebuild keeps for later steps; "
                             "this run keeps none (%s), so there is nothing to verify",
                 s->variant->name, s->variant->build ? "no stored pairs" : "its pairs are found every step");
}

/* What the run derives from its parameters: after a knob changes (the autotuner's trials and its
 * final values) it must be derived again, or the lists keep the old r_n while the rebuild test
 * takes the new skin (lists that miss pairs). */
void loop_derive(Sim *s)
{
    s->n = (int)params_natoms(&s->p);
    s->L = (real)params_box(&s->p);
    s->rn = (real)params_rn(&s->p);
}

Sim *loop_setup(int argc, char **argv, const Variant *variant)
{
    Sim *s = calloc(1, sizeof *s);
    if (!s) nbr_fail(EXIT_CAPACITY, "%s: cannot allocate the simulation state", variant->name);
    /* the run's own copy, with the host's clock where the program brings none; fixed from here on */
    Variant *vp = nbr_alloc(sizeof *vp, "the variant table");
    *vp = *variant;
    require_stages(vp);
    if (!vp->timer_mark) { vp->timer_mark = host_timer_mark; vp->timer_seconds = host_timer_seconds; }
    const Variant v = *vp;
    s->variant = vp;
    /* the program's own options: the driver's storage, as parsed and as ran (Sim.opts) */
    void *own = NULL;
    if (v.opts) {
        own = nbr_alloc(2 * v.opts->size, "the program's options");
        s->opts = own;
        s->ran_opts = (char *)own + v.opts->size;
    }
    params_parse(&s->p, v.opts, own, argc, argv, v.knobs, v.lists, v.threads, v.name, v.summary);
    const Params *p = &s->p;
    ran_from_params(s);   /* before init: what was asked for (the CSV header, --print-config) */

    if (v.max_atoms > 0 && params_natoms(p) > v.max_atoms)
        nbr_fail(EXIT_INPUT, "%s: N = %ld atoms exceed this program's limit of %ld (%s): lower --ne", v.name,
                 params_natoms(p), v.max_atoms, v.max_atoms_why);
    loop_derive(s);
    s->pot = potential_make(p->potential, p->rc, p->shift);
    if (p->print_config) {
        params_print_plain(p, v.opts, s->opts, v.knobs);
        printf("variant=%s\nprecision=%s\ngit_rev=%s\nn=%d\nL=%.10g\nr_n=%.10g\nkeeps_structure=%d\n", v.name,
               NBR_PRECISION, nbr_git_rev(), s->n, (double)s->L, (double)s->rn, keeps_structure(s));
        loop_free(s);
        return NULL;
    }
    if (p->rc >= 0.5 * params_box(p))
        nbr_fail(EXIT_INPUT, "%s: --rc %.4g must be below half the box edge L/2 = %.4g (minimum image): raise --ne",
                 v.name, p->rc, 0.5 * params_box(p));
    /* a list's pairs reach r_n, and beyond L/2 a pair would need more than its one minimum image */
    if (params_rn(p) >= 0.5 * params_box(p))
        nbr_fail(EXIT_INPUT,
                 "%s: r_n = --rc + --delta = %.4g must be below half the box edge L/2 = %.4g (minimum image): lower "
                 "--delta or raise --ne",
                 v.name, params_rn(p), 0.5 * params_box(p));
    refuse_verify_without_structure(s);
    /* no device: one line before the configuration, no output file touched */
    if (v.preflight) v.preflight(s);
    report_open(s);   /* output files are refused now, not after the computing */
    nbr_catch_interrupts();
    check_memory(s);
    s->r = nbr_alloc(sizeof(vec3) * s->n, "positions");
    s->v = nbr_alloc(sizeof(vec3) * s->n, "velocities");
    s->a = nbr_alloc(sizeof(vec3) * s->n, "accelerations");
    s->u = nbr_alloc(sizeof(real) * s->n, "per-atom energies");
    s->q = nbr_alloc(sizeof(real) * s->n, "charges");
    state_init(s);
    if (!p->quiet) {
        printf("# nbrlab %s: %s\n", v.name, v.summary);
        params_print(p, v.opts, s->opts, v.knobs);
    }
    return s;
}

void loop_free(Sim *s)
{
    free(s->r); free(s->v); free(s->a); free(s->u); free(s->q);
    free((void *)s->opts);   /* the driver's (loop_setup), with ran_opts */
    free((void *)s->variant);
    free(s);
}

/* Step 0: build and forces for the initial state (not timed). */
static void step_zero(Sim *s, LoopState *ls, RunResult *res)
{
    const Variant *V = s->variant;
    const Params *p = &s->p;
    rebuild(s, ls);
    V->forces(s);
    V->props(s);
    stop_if_not_finite(s, res);
    /* step 1's drift already moves the atoms from the step-0 structure: counted now, as each
     * later step's is at the end of the step before it (else that structure could be used
     * one step past the rule: --config approach lost its pair at --rebuild-frac 0.5) */
    s->disp_acc = rebuild_disp_add(0, s->props.vv_max, p->dt);
    if (p->steps > 0) {
        char why[200];
        if (V->download) V->download(s);
        if (overlapping_start(s, why, sizeof why)) {
            char msg[300];
            snprintf(msg, sizeof msg, "atoms overlap at the start: %s; lower --rho or choose another --config", why);
            stop_unstable(s, res, msg);
        }
    }
    if (!p->quiet)
        printf("# step 0: E/N = %.8f  U/N = %.8f  T = %.6f  P = %.6f  G = %d  layers = %d  nbr/atom = %.3f\n",
               total_energy(s), s->props.upot_sum / s->n, s->props.ukin_sum / (3.0 * s->n), pressure(s),
               s->stats.cells_per_axis, s->stats.layers, s->stats.nbr_entries / s->n);
}

/* The next sample point from `step` on: every --sample-every steps, at block ends, at the end of
 * equilibration and at each rescaling while equilibrating. */
static int next_sample_point(const Params *p, int step)
{
    int end = p->steps;
    const int bounds[] = {(step - 1) / p->sample_every * p->sample_every + p->sample_every,
                          (step - 1) / p->avg_block * p->avg_block + p->avg_block,
                          step <= p->equil ? p->equil : p->steps,
                          step <= p->equil ? (step - 1) / p->rescale_every * p->rescale_every + p->rescale_every
                                           : p->steps};
    for (size_t k = 0; k < sizeof bounds / sizeof bounds[0]; k++)
        if (bounds[k] >= step && bounds[k] < end) end = bounds[k];
    return end;
}

/* Host decision (the paper's loop): steps [step, end], the host reading the properties and
 * deciding the rebuild at every step. */
static void chunk_host(Sim *s, LoopState *ls, RunResult *res, int step, int end)
{
    const Variant *V = s->variant;
    const Params *p = &s->p;
    for (int k = step; k <= end; k++) {
        stop_if_interrupted(s);   /* s->step steps done */
        s->step = k;
        s->stepping = 1;   /* a stage polling now stops within step k, which is not done */
        V->kick_drift(s);
        if (s->rebuild_due) rebuild(s, ls);
        V->forces(s);
        V->kick(s);
        V->props(s);
        stop_if_not_finite(s, res);
        if (rebuild_after_step(&s->disp_acc, s->props.vv_max, p->dt, p->rebuild_frac * p->delta)) {
            s->rebuild_due = 1;
            /* the forces of this step were the stale structure's last use */
            if (p->verify_lists) {
                s->production = 0;   /* not part of the run's timing */
                ls->verified += verify_lists(s, ls->built_at);
                s->production = k > p->equil;
            }
        }
        if (!s->production) { ls->rescale_acc += s->props.ukin_sum; ls->rescale_n++; }
        s->stepping = 0;   /* step k done: a poll before the next step (or at the sample point) counts it */
    }
}

/* Device decision (--decide device, where the variant can): the device decides rebuilds and
 * reorders itself and the host reads it at `end` only.
 * The chunk is one launch (chunk_run), one CUDA graph, or stages per step; with --leapfrog fused
 * it is kick_drift, then per step rebuild, forces and leapfrog (the kick, the decision and the
 * next step's kick_drift; not that drift at the chunk's last step), so the state at `end` is the
 * same as split: after the kick. Returns the step to go on from where `end` is no sample point
 * to record: a capacity overflow grown and the chunk replayed from the last sample point's
 * snapshot, or a look ahead (`look`) that ended; else 0. */
static int chunk_device(Sim *s, LoopState *ls, RunResult *res, int step, int end, int look)
{
    const Variant *V = s->variant;
    const Params *p = &s->p;
    const int fused = p->leapfrog == LEAPFROG_FUSED, nsteps = end - step + 1;
    if (!(V->chunk_run && V->chunk_run(s, nsteps)) && !(p->graph && V->chunk_replay && V->chunk_replay(s, nsteps))) {
        if (!V->device_rebuild || (fused ? !V->leapfrog : !V->device_decide))
            nbr_fail(EXIT_INTERNAL, "%s: internal: its chunk_run declined a chunk and it offers no per-step device "
                                    "stages", V->name);
        if (p->graph && V->chunk_begin) V->chunk_begin(s, nsteps);
        for (int k = step; k <= end; k++) {
            s->step = k;
            if (!fused || k == step) V->kick_drift(s);   /* fused: the previous leapfrog drifted */
            V->device_rebuild(s);
            s->sums_skip = k < end;
            V->forces(s);
            s->sums_skip = 0;
            if (fused) {
                V->leapfrog(s, k < end);   /* no drift past the sample point */
            } else {
                V->kick(s);
                V->device_decide(s);
            }
        }
        if (p->graph && V->chunk_end) V->chunk_end(s, nsteps);
    }
    s->step = end;
    const int back = V->sample(s);   /* props and stats; or the step to replay from */
    if (back >= 0) return back + 1;
    stop_if_not_finite(s, res);
    stop_if_interrupted(s);   /* a device-decided run: at its sample points */
    if (look) return end + 1;   /* not a sample point: no statistics */
    if (!s->production) { ls->rescale_acc += s->props.ukin_sum; ls->rescale_n++; }
    return 0;
}

static void device_start(Sim *s)
{
    const Variant *V = s->variant;
    if (!V->device_begin)
        nbr_fail(EXIT_INPUT, "%s: --decide device needs a variant that can run ahead on a device", V->name);
    if (s->p.verify_lists)
        nbr_fail(EXIT_INPUT, "%s: --verify-lists checks each stale list on the host before its rebuild: use it "
                             "with --decide host", V->name);
    /* a stage left NULL is not offered: the per-step stages, unless one launch takes each chunk */
    if (!V->sample || (!V->chunk_run && !(V->device_rebuild && V->device_decide)))
        nbr_fail(EXIT_INTERNAL, "%s: internal: device_begin without sample, or without chunk_run or the per-step "
                                "device stages (device_rebuild, device_decide)", V->name);
    V->device_begin(s);
    /* --leapfrog fused: kick, decide and the next kick_drift as one stage (Variant.leapfrog) */
    if (s->p.leapfrog == LEAPFROG_FUSED && !V->leapfrog)
        nbr_fail(EXIT_INPUT, "%s: --leapfrog fused needs a variant with a fused leapfrog stage", V->name);
}

/* The sample point `end`: the energy watch, the rescaling while equilibrating, production's
 * samples, and at a block's end its timing, its row and the explosion watch. */
static void sample_point(Sim *s, LoopState *ls, RunResult *res, int end)
{
    const Variant *V = s->variant;
    const Params *p = &s->p;
    stop_if_energy_moved(s, res, ls->e_ref, ls->e_ref_step);
    if (!s->production) {
        if (end % p->rescale_every == 0 && ls->rescale_n > 0) {
            double target = 3 * p->temp * (s->n - 1);
            const double f = sqrt(target / (ls->rescale_acc / ls->rescale_n));
            V->rescale(s, f);
            ls->e_ref = (0.5 * f * f * s->props.ukin_sum + s->props.upot_sum) / s->n;
            ls->e_ref_step = end;
            ls->rescales++;
            ls->rescale_acc = 0;
            ls->rescale_n = 0;
        }
    } else {
        ls->e_prod[ls->nsamples++] = total_energy(s);
        ls->p_sum += pressure(s);
        ls->t_sum += kinetic_temp(s);
    }
    ls->block_e += total_energy(s);
    ls->block_t += s->props.ukin_sum / (3.0 * s->n);
    ls->block_samples++;
    if (end % p->avg_block != 0 && end != p->steps) return;
    const int timed = end > p->equil ? end - (ls->block_start > p->equil ? ls->block_start : p->equil) : 0;
    double block_us = 0;  /* us per atom-step of this block's timed steps */
    if (timed > 0) {
        V->timer_mark(s, ls->mark ^ 1);
        const double secs = V->timer_seconds(s, ls->mark, ls->mark ^ 1), per_step = secs / timed;
        ls->mark ^= 1;
        res->wall += secs;
        if (ls->nblocks < ls->nblocks_max) ls->block_wall[ls->nblocks++] = per_step;
        block_us = per_step / s->n * 1e6;
    }
    /* block means over the block's sample points */
    end_block(s, ++ls->block, end - ls->block_start, timed, ls->block_e / ls->block_samples,
              ls->block_t / ls->block_samples, block_us);
    ls->block_start = end;
    ls->block_samples = 0;
    /* an explosion shows long before the end: atoms overlapping, or (in production) the energy
     * off its value at the start of production by more than the drift bound, relative to |E| or,
     * where E is near 0, the kinetic energy 3T/2 */
    const double upa = s->props.upot_sum / s->n;
    const double moved =
        timed ? fabs(total_energy(s) - ls->e_prod[0]) / fmax(fabs(ls->e_prod[0]), 1.5 * p->temp) : 0;
    if (!(upa <= OVERLAP_U) || !(moved <= p->drift_limit)) {
        char why[200];
        if (!(upa <= OVERLAP_U))
            snprintf(why, sizeof why, "atoms overlap, U/N = %.3g (limit %g): the run exploded (time step, "
                     "temperature or density too large?)", upa, OVERLAP_U);
        else
            snprintf(why, sizeof why, "the energy moved by %.3g (relative), beyond --drift-limit %g", moved,
                     p->drift_limit);
        stop_unstable(s, res, why);
    }
    ls->block_e = ls->block_t = 0;
}

/* Energy drift: mean over a window at each end of production (fluctuations average out); its
 * rms fluctuation, which a symplectic integrator keeps of order dt^2; pressure, temperature and
 * the median block. */
static void production_means(const Sim *s, LoopState *ls, RunResult *res)
{
    const Params *p = &s->p;
    const int n = ls->nsamples;
    const double *e = ls->e_prod;
    /* windows of a tenth of the samples, at most one block's worth */
    const int per_block = p->avg_block / p->sample_every > 0 ? p->avg_block / p->sample_every : 1;
    int win = n / 10 < per_block ? n / 10 : per_block;
    if (win < 1) win = 1;
    double mean = 0, var = 0;
    for (int k = 0; k < win; k++) {
        res->e_start += e[k] / win;
        res->e_end += e[n - 1 - k] / win;
    }
    for (int k = 0; k < n; k++) mean += e[k] / n;
    for (int k = 0; k < n; k++) var += (e[k] - mean) * (e[k] - mean) / n;
    res->drift = (res->e_end - res->e_start) / fabs(res->e_start);
    res->e_rms = sqrt(var) / fabs(mean);
    res->pressure = ls->p_sum / n;
    res->temp = ls->t_sum / n;
    res->e_samples = n;
    res->step_median = median(ls->block_wall, ls->nblocks);
}

/* The run from the state set up: init, step 0, the steps in chunks that end at sample points
 * (host or device decision), the check, the stage timing, the summary and the CSV row, finish.
 * Production timing: a timer mark (host clock or CUDA event) at the start of production and at
 * each block end, nothing inside the steps. The host arrays stay (loop_free). Returns the exit
 * code. */
int loop_run(Sim *s, RunResult *out)
{
    const Variant *const V = s->variant;
    const Params *p = &s->p;
    /* what ran starts as what was asked for (the autotuner's trials set Params first) */
    ran_from_params(s);
    Params asked;
    memcpy(&asked, p, sizeof asked);
    void *asked_opts = V->opts ? nbr_alloc(V->opts->size, "a copy of the program's options") : NULL;
    if (V->opts) memcpy(asked_opts, s->opts, V->opts->size);
    if (V->init(s) != 0) nbr_fail(EXIT_INTERNAL, "%s: initialisation failed", V->name);
    refuse_params_written(s, &asked, "init");
    refuse_opts_written(s, asked_opts, "init");
    if (!p->quiet && V->device_name) printf("# %-14s = %s\n", "device", V->device_name(s));

    const int prod_steps = p->steps - p->equil;
    LoopState ls = {.nblocks_max = prod_steps / p->avg_block + 2};
    ls.e_prod = nbr_alloc(sizeof(double) * (prod_steps > 0 ? prod_steps + 1 : 1), "energy samples");
    ls.block_wall = nbr_alloc(sizeof(double) * ls.nblocks_max, "block timings");
    RunResult res = {0};

    step_zero(s, &ls, &res);
    const int device = p->decide == DECIDE_DEVICE;
    if (device) device_start(s);
    ls.e_ref = total_energy(s);
    for (int step = 1; step <= p->steps;) {
        int end = next_sample_point(p, step);
        if (step == p->equil + 1) {
            s->production = 1;
            V->timer_mark(s, ls.mark);
        }
        if (device) {
            /* a look ahead of the sample point where the device will stop for a host rebuild */
            int look = 0;
            const int h = V->run_horizon ? V->run_horizon(s) : 0;
            if (h >= 1 && h <= end - step) { end = step + h - 1; look = 1; }
            const int next = chunk_device(s, &ls, &res, step, end, look);
            if (next) { step = next; continue; }
        } else {
            chunk_host(s, &ls, &res, step, end);
        }
        step = end + 1;
        sample_point(s, &ls, &res, end);
    }
    s->stepping = 0;   /* every step done */
    stop_if_interrupted(s);
    res.nblocks = ls.nblocks;
    res.verified = ls.verified;
    if (prod_steps > 0 && ls.nsamples > 0) production_means(s, &ls, &res);
    /* the bound on the drift, relative to |E| or, where E is near 0, to 3T/2 */
    res.unstable = prod_steps > 0 &&
                   !(fabs(res.e_end - res.e_start) / fmax(fabs(res.e_start), 1.5 * p->temp) <= p->drift_limit);
    /* The state the row names: a run rescaled towards --temp must measure it over production
     * (TEMP_FLOOR); without a rescaling (--equil 0, lammps-lj, --rescale-every beyond --equil)
     * there is no target. */
    const double t_tol = fmax(TEMP_FLUCT * sqrt(2.0 / (3.0 * s->n)), TEMP_FLOOR);
    const int wrong_temp = !res.unstable && ls.rescales > 0 && ls.nsamples > 0 && p->temp > 0 &&
                           !(fabs(res.temp - p->temp) <= t_tol * p->temp);
    int status = 0;
    if (p->check && !s->trial) status = check_run(s, res.unstable);
    /* after the check: the replays move the atoms */
    if (prod_steps > 0 && p->stage_reps > 0 && !res.unstable) stage_timing(s, &res);
    stop_if_interrupted(s);   /* during the check or the stage timing */
    refuse_params_written(s, &asked, "the run");
    refuse_opts_written(s, asked_opts, "the run");
    free(asked_opts);
    if (!s->trial) report_summary(s, &res);
    if (res.unstable)
        fprintf(stderr, "%s: unstable: the energy drifted by %.3g (relative), beyond --drift-limit %g\n", V->name,
                res.drift, p->drift_limit);
    else if (wrong_temp)
        fprintf(stderr, "%s: wrong-temp: the production temperature %.4g is %.1f%% off --temp %g, beyond the %.1f%% "
                "allowed (equilibrate longer: --equil)\n", V->name, res.temp, 100 * fabs(res.temp / p->temp - 1),
                p->temp, 100 * t_tol);
    /* no production steps (--steps = --equil): nothing timed or measured, so not an ok row */
    report_csv(s, &res, res.unstable ? "unstable" : wrong_temp ? "wrong-temp" : status ? "check-failed"
                        : prod_steps > 0 ? "ok" : "untimed");
    if (V->finish) V->finish(s);
    free(ls.e_prod);
    free(ls.block_wall);
    *out = res;
    return res.unstable || wrong_temp ? EXIT_UNSTABLE : status ? EXIT_INTERNAL : 0;
}

int nbr_main(int argc, char **argv, const Variant *variant)
{
    Sim *s = loop_setup(argc, argv, variant);
    if (!s) return 0;   /* --print-config */
    if (s->p.autotune) tune_apply(s);   /* the knobs tuned from this start (common/tune.c) */
    RunResult res;
    const int rc = loop_run(s, &res);
    loop_free(s);
    return rc;
}
