/* coulomb.c - the Coulomb programs' harness (see coulomb.h): option table, input, reference,
 * timing, summary and CSV row. */
#include "coulomb.h"
#include "core.h"
#include "csvrow.h"
#include "fail.h"
#include "interrupt.h"
#include "options.h"
#include "real.h"

#include <math.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

const char *const cimpl_names[] = {"ref", "opencl", "cuda", NULL};
const char *const acc_names[] = {"float", "double", "kahan", "pairwise", "exact", NULL};
const char *const ref_names[] = {"cpu", "device", NULL};
const char *const sweep_names[] = {"half", "full", "folded", NULL};

#define F(field) offsetof(CoulombParams, field)
static const Option options[] = {
    {"impl", T_ENUM, F(impl), 0, 0, cimpl_names, 0, "impl",
     "implementation: ref (C, OpenMP over the cores), opencl (the thesis's kernel in OpenCL C), cuda (the same in CUDA)"},
    {"acc", T_ENUM, F(acc), 0, 0, acc_names, 0, "precision",
     "arithmetic and accumulation: float (the thesis's GPU), double, kahan (float terms; tiled kernels: plain sums per "
     "tile, the tile sums Kahan-compensated per thread, TwoSum reductions, each row in coordinates scaled by its own "
     "factor in [1, 2) so that pairs of equal distance do not share one rounding error; ref: every term compensated), "
     "pairwise (float terms, per-tile sums combined pairwise, tree reductions, rows scaled as kahan), exact (double "
     "terms, compensated sums: the reference's arithmetic; under --impl ref it is the reference); default: the "
     "build's precision"},
    {"unroll", T_INT, F(unroll), 1, 8, NULL, CKNOB_TILED, "unroll", "inner loop unrolled 1, 2, 4 or 8 times (thesis: 4)"},
    {"ipt", T_INT, F(ipt), 1, 4, NULL, CKNOB_TILED, "ipt",
     "atoms per thread / work-item, 1, 2 or 4 (register blocking: each position read from the tile serves ipt "
     "pairs; a block's tile is block * ipt atoms; thesis: 1)"},
    {"block", T_INT, F(block), 1, 1024, NULL, CKNOB_TILED, "block",
     "threads per block (CUDA) / work-items per work-group (OpenCL): the tile of positions staged in shared/local "
     "memory; a power of two, a multiple of --unroll (thesis: 128)"},
    {"wg", T_INT, F(block), 1, 1024, NULL, CKNOB_OPENCL, NULL,
     "OpenCL's name for --block: work-items per work-group (the same setting, recorded in the block column)"},
    {"sweep", T_ENUM, F(sweep), 0, 0, sweep_names, CKNOB_TILED, "sweep",
     "half: each work-item sums j > i (own tile and last tile apart), work-group b the row tile b (the thesis); "
     "folded: the same sums, work-group b the row tiles b and rows-1-b (equal work per group, half the groups); "
     "full: all j != i, every pair twice, halved (group b: row tile b)"},
    {"threads", T_INT, F(threads), 0, 4096, NULL, CKNOB_REF, "omp_threads", "OpenMP threads (0 = every core)"},
    {"cl-platform", T_INT, F(cl_platform), 0, 64, NULL, CKNOB_OPENCL, "cl_platform", "OpenCL platform index"},
    {"cl-device", T_INT, F(cl_device), 0, 64, NULL, CKNOB_OPENCL, "cl_device", "OpenCL device index on that platform"},
    {"device", T_INT, F(device), 0, 64, NULL, CKNOB_CUDA, "device_index", "CUDA device index"},
    {"reps", T_INT, F(reps), 1, 1e6, NULL, 0, "reps", "timed evaluations (the median is reported)"},
    {"warmup", T_INT, F(warmup), 0, 1e6, NULL, 0, NULL, "untimed evaluations before them"},
    {"input", T_STR, F(input), 0, sizeof(((CoulombParams *)0)->input) - 1, NULL, 0, NULL,
     "read the system from this file: PQR (ATOM/HETATM serial name resName [chain] resSeq x y z charge radius) or "
     "x y z q lines (# comments); .gz or .xz: read through gzip / xz"},
    {"format", T_ENUM, F(format), 0, 0, format_names, 0, NULL, "--input format (auto: .pqr or .pqr.gz is PQR, else x y z q)"},
    {"water", T_LONG, F(water), 0, 3e7, NULL, 0, NULL,
     "generate a TIP3P-like water box of this many atoms (a multiple of 3; N/3 molecules on a cubic lattice at "
     "0.0334 molecules/A^3, random orientations; the thesis: 43239 ... 630828)"},
    {"random", T_LONG, F(random), 0, 3e7, NULL, 0, NULL,
     "generate this many atoms uniform in a cube (0.1 atoms/A^3), charges uniform in [-1, 1] made neutral"},
    {"seed", T_U64, F(seed), 0, 1.8e19, NULL, 0, "seed", "random seed of the generators"},
    {"e-ref", T_REAL, F(e_ref), -1e300, 1e300, NULL, 0, NULL,
     "the reference energy (kcal/mol) if known (e.g. from an earlier --impl ref run); else it is computed "
     "(double terms, compensated sums, OpenMP)"},
    {"ref", T_ENUM, F(ref), 0, 0, ref_names, 0, NULL,
     "where the reference is computed when --e-ref is not given: cpu (the C reference, OpenMP) or device (this "
     "implementation in --acc exact: for sizes where the CPU takes minutes; the tests hold it to the C reference, "
     "1e-13); the CSV's ref_source says which"},
    {"write", T_STR, F(write), 0, sizeof(((CoulombParams *)0)->write) - 1, NULL, 0, NULL,
     "write the system as x y z q lines to this file and exit"},
    {"check", T_FLAG, F(check), 0, 0, NULL, 0, NULL,
     "exit 1 when the relative error against the reference exceeds the mode's stated tolerance"},
    NBR_OUTPUT_OPTIONS(CoulombParams),
};
#undef F
enum { NOPTIONS = sizeof options / sizeof options[0] };

double coulomb_tolerance(int acc, double spread)
{
    double tol;
    switch (acc) {
    case ACC_EXACT: return 1e-13;
    case ACC_DOUBLE: return 1e-12;
    case ACC_KAHAN: case ACC_PAIRWISE: tol = 1e-6; break;
    default: tol = 1e-4; break;   /* plain float: the thesis saw up to 5.8e-5 at 630 828 atoms */
    }
    /* float positions: no sum, however compensated, beats their rounding (4 sd) */
    return isfinite(spread) && 4 * spread > tol ? 4 * spread : tol;
}

static unsigned program_knobs(const CoulombProgram *prog)
{
    unsigned k = 0;
    for (int i = 0; i < NCIMPL; i++)
        if (prog->impl[i]) k |= prog->impl[i]->knobs;
    return k;
}

/* Options given on the command line that the chosen implementation does not have. */
static void refuse_foreign(const OptTable *t, const CoulombImpl *impl, int argc, char **argv)
{
    for (int k = 1; k < argc; k++) {
        if (strncmp(argv[k], "--", 2) != 0) continue;
        const Option *o = opt_find(t, argv[k] + 2);
        if (o && o->knob && !(o->knob & impl->knobs)) {
            char msg[200];
            snprintf(msg, sizeof msg, " does not apply to --impl %s", cimpl_names[impl->kind]);
            opt_die(t->program, msg, o->flag);
        }
    }
}

/* --impl of an implementation this build lacks (coulomb without OpenCL): its one line, naming what
 * to install, before opt_parse would refuse that implementation's knobs (--unroll, --wg) as no
 * knobs of this program. The last --impl counts, as in opt_parse; --help answers first. */
static void refuse_missing_impl(const OptTable *t, const CoulombProgram *prog, int argc, char **argv)
{
    int want = -1;
    for (int k = 1; k < argc; k++) {
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h")) return;
        const Option *o = strncmp(argv[k], "--", 2) ? NULL : opt_find(t, argv[k] + 2);
        if (!o || o->type == T_FLAG || k + 1 >= argc) continue;
        if (o->offset == offsetof(CoulombParams, impl)) {
            want = -1;
            for (int i = 0; cimpl_names[i]; i++)
                if (!strcmp(cimpl_names[i], argv[k + 1])) want = i;
        }
        k++;   /* the value */
    }
    if (want >= 0 && !prog->impl[want])
        nbr_fail(EXIT_INPUT, "%s: --impl %s is not available in this build%s%s", prog->name, cimpl_names[want],
                 prog->missing[want] ? ": " : "", prog->missing[want] ? prog->missing[want] : "");
}

/* The implementations built in, "ref,opencl" (--print-config's impls=, for scripts and tests). */
static void built_impls(const CoulombProgram *prog, char *out, size_t len)
{
    out[0] = '\0';
    for (int i = 0; i < NCIMPL; i++)
        if (prog->impl[i]) snprintf(out + strlen(out), len - strlen(out), "%s%s", out[0] ? "," : "", cimpl_names[i]);
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void option_col(void *row, const char *name, const char *value) { csv_col(row, name, "%s", value); }

typedef struct {
    double median, min, energy, e_ref, rel_error, tol, ref_seconds, cond;
    const char *ref_source, *status;
} Outcome;

static void fill_row(CsvRow *row, const OptTable *t, const CoulombParams *p, const CoulombImpl *impl,
                     CoulombRun *r, const Outcome *o)
{
    long n = r->sys ? r->sys->n : 0;
    double pairs = 0.5 * (double)n * (n - 1);
    row->n = 0;
    csv_provenance(row, impl->device_name && r->ctx ? impl->device_name(r) : NULL, impl->compiler);
    csv_col(row, "program", "%s", t->program);
    csv_col(row, "tag", "%s", p->tag);
    OptTable ti = *t;
    ti.knobs = impl->knobs;   /* "-" for the options the implementation does not have */
    opt_columns(&ti, p, NULL, option_col, row);
    csv_col(row, "input", "%s", r->sys ? r->sys->name : "");
    csv_col(row, "n", "%ld", n);
    /* an interrupted run measured nothing: its numbers empty, not 0 (docs/csv.md) */
    const int measured = !(o->status && !strcmp(o->status, "interrupted"));
    if (measured) {
        csv_col(row, "t_eval_s", "%.6g", o->median);
        csv_col(row, "t_min_s", "%.6g", o->min);
        csv_col(row, "pairs_per_s", "%.6g", o->median > 0 ? pairs / o->median : 0.0);
        csv_col(row, "energy", "%.17g", o->energy);
    } else {
        csv_col(row, "t_eval_s", "%s", ""); csv_col(row, "t_min_s", "%s", "");
        csv_col(row, "pairs_per_s", "%s", ""); csv_col(row, "energy", "%s", "");
    }
    csv_col(row, "e_ref", "%.17g", o->e_ref);
    csv_col(row, "ref_source", "%s", o->ref_source ? o->ref_source : "");
    csv_col(row, "t_ref_s", "%.6g", o->ref_seconds);
    csv_col(row, "cond", "%.4g", o->cond);
    if (measured) csv_col(row, "rel_error", "%.4g", o->rel_error);
    else csv_col(row, "rel_error", "%s", "");
    csv_col(row, "tolerance", "%.3g", o->tol);
    csv_col(row, "status", "%s", o->status ? o->status : "ok");
}

/* SIGINT or SIGTERM: the OpenMP row loops skip their remaining rows at once (coulomb_ref.c), so
 * the energy call in progress returns within a row's time; the run ends here with a row that
 * says interrupted (nothing measured: its times and energy empty), then the signal's own exit,
 * as the MD programs' runs do (md_loop.c). WHERE: what the run was doing. */
static void stop_if_interrupted(const char *where, CsvRow *row, const OptTable *t, const CoulombParams *p,
                                const CoulombImpl *impl, CoulombRun *r, const Outcome *o)
{
    const int sig = nbr_interrupted();
    if (!sig) return;
    fprintf(stderr, "%s: interrupted (%s) %s%s\n", t->program, sig == SIGINT ? "SIGINT" : "SIGTERM", where,
            p->csv[0] ? ": the CSV row says interrupted" : "");
    if (p->csv[0]) {
        Outcome none = {.e_ref = o->e_ref, .cond = o->cond, .ref_source = o->ref_source, .status = "interrupted"};
        fill_row(row, t, p, impl, r, &none);
        csv_append(t->program, p->allow_dirty, p->csv, "csv", row);
    }
    nbr_die_of(sig);
}

/* An O(N^2) run on the CPU that will take a minute or more says so before it starts, with the
 * flags that shorten it: the reference (computed on the CPU unless given or --ref device) and,
 * under --impl ref, every evaluation; about 10 ns a pair per core (the C reference's double sum
 * on the 2-core EPYC: 2e8 pairs per second on 2 threads). */
static void say_estimate(const char *name, const CoulombParams *p, const CoulombImpl *impl, long n)
{
    const int ref_on_cpu = isnan(p->e_ref) && !(p->ref == REF_DEVICE && impl->kind != CIMPL_REF);
    const double evals = ref_on_cpu + (impl->kind == CIMPL_REF ? p->warmup + p->reps : 0);
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    const int threads = impl->kind == CIMPL_REF && p->threads > 0 ? p->threads : (int)(cores > 0 ? cores : 1);
    const double sec = 0.5 * (double)n * (double)n * evals * 10e-9 / threads;
    if (sec < 60) return;
    fprintf(stderr, "%s: estimated %.3g %s on the CPU for %ld atoms (%g evaluation(s) of N^2/2 pairs, about 10 ns a "
            "pair on each of %d threads); --reps, --warmup, --e-ref (a known reference) or a smaller system shortens "
            "it\n", name, sec >= 7200 ? sec / 3600 : sec / 60, sec >= 7200 ? "hours" : "minutes", n, evals, threads);
}

int coulomb_main(int argc, char **argv, const CoulombProgram *prog)
{
    static CoulombParams p;
    memset(&p, 0, sizeof p);
    p.impl = prog->default_impl;
#ifdef NBR_FLOAT
    p.acc = ACC_FLOAT;
#else
    p.acc = ACC_DOUBLE;
#endif
    p.unroll = 4;
    p.ipt = 1;
    p.block = 128;
    p.sweep = SWEEP_HALF;   /* the thesis's; faster than folded in float at ipt 1 on every input (H200, 5ea09f2) */
    p.reps = 5;
    p.warmup = 1;
    p.seed = 12345;
    p.e_ref = NAN;
    /* --help's last paragraph: the tiled kernels' defaults where one is built in, and which
     * implementations this build has and lacks (and why) */
    static char note[2048];
    char impls[64];
    built_impls(prog, impls, sizeof impls);
    snprintf(note, sizeof note, "Exactly one of --input, --water, --random. Energies in kcal/mol (332.0636 q_i q_j / "
             "r_ij, r in Angstrom, q in e), no cutoff, no periodic images.%s\n\nBuilt in: --impl %s.",
             program_knobs(prog) & CKNOB_TILED ? " Defaults: the thesis's unroll 4 and 128 per work-group, its half "
                                                 "sweep (one row tile per group)." : "", impls);
    for (int i = 0; i < NCIMPL; i++)
        if (!prog->impl[i] && prog->missing[i])
            snprintf(note + strlen(note), sizeof note - strlen(note), "\nNot built in: --impl %s: %s.", cimpl_names[i],
                     prog->missing[i]);
    OptTable t = {options, NOPTIONS, program_knobs(prog), prog->name, prog->summary, note, {NULL, 0}, NULL, 0};
    refuse_missing_impl(&t, prog, argc, argv);
    opt_parse(&t, &p, NULL, argc, argv);

    const CoulombImpl *impl = prog->impl[p.impl];
    if (!impl)
        nbr_fail(EXIT_INPUT, "%s: --impl %s is not available in this build%s%s", prog->name, cimpl_names[p.impl],
                 prog->missing[p.impl] ? ": " : "", prog->missing[p.impl] ? prog->missing[p.impl] : "");
    refuse_foreign(&t, impl, argc, argv);
    int sources = (p.input[0] != 0) + (p.water > 0) + (p.random > 0);
    if (sources != 1)
        nbr_fail(EXIT_INPUT, "%s: give exactly one of --input FILE, --water N, --random N (got %d)", prog->name, sources);
    if (impl->knobs & CKNOB_TILED) {
        if (p.unroll != 1 && p.unroll != 2 && p.unroll != 4 && p.unroll != 8)
            opt_die(prog->name, " must be 1, 2, 4 or 8", "unroll");
        const char *block_flag = impl->knobs & CKNOB_OPENCL ? "block (--wg)" : "block";
        if (p.ipt != 1 && p.ipt != 2 && p.ipt != 4) opt_die(prog->name, " must be 1, 2 or 4", "ipt");
        if (p.block & (p.block - 1)) opt_die(prog->name, " must be a power of two", block_flag);
        if (p.block % p.unroll) opt_die(prog->name, " must be a multiple of --unroll", block_flag);
    }
    if (impl->kind == CIMPL_REF && p.acc == ACC_PAIRWISE)
        nbr_fail(EXIT_INPUT, "%s: --acc pairwise is a mode of the tiled kernels (opencl, cuda); --impl ref has float, "
                             "double and kahan",
                 prog->name);
    if (p.print_config) {
        printf("program=%s\nimpls=%s\n", prog->name, impls);
        OptTable ti = t;
        ti.knobs = impl->knobs;
        opt_print_plain(&ti, &p, NULL, "print-config");
        printf("git_rev=%s\n", nbr_git_rev());
        return 0;
    }

    if (impl->preflight) impl->preflight(prog->name);   /* no device: one line, before any output */

    /* the CSV is refused (header, folder, revision) before anything is computed */
    static CsvRow row;
    static char header[CSV_MAX_COLS * 32];
    CoulombRun run = {&p, NULL, NULL};
    Outcome out = {0};
    if (p.csv[0]) {
        fill_row(&row, &t, &p, impl, &run, &out);
        csv_header(&row, header, sizeof header);
        csv_open_check(prog->name, p.allow_dirty, p.csv, "csv", header);
    }

    static ChargeSystem sys;
    if (p.input[0]) input_read(&sys, p.input, p.format);
    else if (p.water > 0) input_water(&sys, p.water, p.seed);
    else input_random(&sys, p.random, p.seed);
    if (p.write[0]) {
        input_write_xyzq(&sys, p.write);
        printf("%s: wrote %ld atoms of %s to %s\n", prog->name, sys.n, sys.name, p.write);
        return 0;
    }
    run.sys = &sys;
    if (!p.quiet) {
        OptTable ti = t;
        ti.knobs = impl->knobs;
        opt_print(&ti, &p, NULL);
        printf("# %-14s = %s\n# %-14s = %ld\n", "system", sys.name, "N", sys.n);
    }

    impl->setup(&run);   /* first: a missing device stops the run before the reference is computed */
    nbr_catch_interrupts();   /* from here on a row says interrupted (stop_if_interrupted) */
    say_estimate(prog->name, &p, impl, sys.n);

    /* the reference */
    out.ref_source = "given";
    out.cond = NAN;
    double spread = NAN;   /* relative sd of E from float positions: computed with the C reference */
    out.e_ref = p.e_ref;
    if (isnan(p.e_ref) && p.ref == REF_DEVICE && impl->kind != CIMPL_REF) {
        /* the implementation itself in double terms and compensated sums, set up apart */
        CoulombParams exact_p = p;
        exact_p.acc = ACC_EXACT;
        CoulombRun exact_run = {&exact_p, &sys, NULL};
        double t0 = wall_seconds(), secs_unused;
        impl->setup(&exact_run);
        out.e_ref = impl->energy(&exact_run, &secs_unused);
        if (impl->teardown) impl->teardown(&exact_run);
        out.ref_seconds = wall_seconds() - t0;
        out.ref_source = "device";
    } else if (isnan(p.e_ref)) {
        double t0 = wall_seconds();
        double abs_sum = 0;
        out.e_ref = prog->exact(&sys, impl->kind == CIMPL_REF ? p.threads : 0, &abs_sum);
        out.cond = out.e_ref != 0 ? abs_sum / fabs(out.e_ref) : INFINITY;
        out.ref_seconds = wall_seconds() - t0;
        out.ref_source = "computed";
        /* not in t_ref_s: the reference's time is the exact sum's */
        if (p.acc != ACC_DOUBLE && p.acc != ACC_EXACT && prog->spread && out.e_ref != 0)
            spread = prog->spread(&sys, impl->kind == CIMPL_REF ? p.threads : 0) / fabs(out.e_ref);
    }
    stop_if_interrupted("while computing the reference", &row, &t, &p, impl, &run, &out);

    double *times = nbr_alloc(sizeof(double) * (size_t)p.reps, "timings"), e = 0, secs;
    for (int k = 0; k < p.warmup; k++) {
        e = impl->energy(&run, &secs);
        stop_if_interrupted("in a warm-up evaluation", &row, &t, &p, impl, &run, &out);
    }
    for (int k = 0; k < p.reps; k++) {
        e = impl->energy(&run, &times[k]);
        stop_if_interrupted("in a timed evaluation", &row, &t, &p, impl, &run, &out);
    }
    qsort(times, (size_t)p.reps, sizeof *times, cmp_double);
    out.median = p.reps % 2 ? times[p.reps / 2] : 0.5 * (times[p.reps / 2 - 1] + times[p.reps / 2]);
    out.min = times[0];
    out.energy = e;
    out.rel_error = out.e_ref != 0 ? (e - out.e_ref) / fabs(out.e_ref) : e - out.e_ref;
    out.tol = coulomb_tolerance(p.acc, spread);
    int over = !(fabs(out.rel_error) <= out.tol);
    out.status = over ? "over_tolerance" : "ok";

    double pairs = 0.5 * (double)sys.n * (sys.n - 1);
    printf("%s %s %s", prog->name, cimpl_names[impl->kind], acc_names[p.acc]);
    if (impl->knobs & CKNOB_TILED)
        printf(" unroll %d ipt %d block %d %s", p.unroll, p.ipt, p.block, sweep_names[p.sweep]);
    printf(" %s N=%ld on %s\n", sys.name, sys.n, impl->device_name ? impl->device_name(&run) : "the CPU");
    printf("  E = %.10g kcal/mol; reference %.15g (%s); rel_error %.3g (tolerance %.0e: %s)\n", e, out.e_ref,
           out.ref_source, out.rel_error, out.tol, over ? "OVER" : "ok");
    printf("  t_eval %.6g s (median of %d; min %.6g), %.4g pair interactions per second", out.median, p.reps,
           out.min, out.median > 0 ? pairs / out.median : 0.0);
    if (out.ref_seconds > 0) printf("; reference took %.4g s", out.ref_seconds);
    if (!isnan(out.cond)) printf("; condition sum|E_ij|/|E| = %.4g", out.cond);
    printf("\n");

    if (p.csv[0]) {
        fill_row(&row, &t, &p, impl, &run, &out);
        csv_append(prog->name, p.allow_dirty, p.csv, "csv", &row);
    }
    if (impl->teardown) impl->teardown(&run);
    free(times);
    input_free(&sys);
    if (over && p.check) {
        fprintf(stderr, "%s: relative error %.3g exceeds the %s tolerance %.0e\n", prog->name, out.rel_error,
                acc_names[p.acc], out.tol);
        return 1;
    }
    return 0;
}
