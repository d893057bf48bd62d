/* tests/check_plant.c - --check against a variant made wrong on purpose: cpu-grouped's stages
 * (included below, its main renamed) with one planted fault, chosen by the first argument:
 *   test-plant FAULT [SIZE] ARGS...   FAULT one of
 *     none     cpu-grouped as it is (the check must pass)
 *     force    atom 0's force off by SIZE times its magnitude (default 1e-3)
 *     virial   the virial off by SIZE times its magnitude (default 1e-2)
 *     energy   the total potential energy off by SIZE times its magnitude (default 1e-3)
 *     shift    the potential shift left out of the forces stage (the reference keeps it)
 *     pair     the first stored pair left out of the pairs the structure reports
 *     extra    a pair of atoms 2 r_n or more apart reported too: the first such pair in the
 *              check's order (i < j, by i then j), or with PLANT_AT=last the last one; it
 *              says whether that lies before (after) every pair within r_n (not so where
 *              atoms 0 and 1, or the last two, are neighbours: the tests use random
 *              positions, seed 1)
 *     last     atom 0's force off by SIZE times its magnitude (default 1e-3) in the steps' forces
 *              only, not in the check's own: a structure wrong between builds; the program
 *              then declares check_last_force, so the check compares the last step's forces
 *              (SIZE 0: nothing planted, the last forces compared)
 *     params-init  init writes Params (--reorder), as a program that resolves a choice there must
 *              not (Sim.ran records it): the loop stops, exit 1, one line naming the program
 *     params-run   the steps' forces write Params (--seed): the same, "during the run"
 *     opts-init, opts-run  the same for a program's own options (Sim.opts): the plant then
 *              declares one, --plant-own (Variant.opts), and writes it in init or the steps
 * PLANT_AT (environment) moves a fault along the system (issue 38: faults only at atom 0 and
 * the first pair left a check of half the atoms, or of all but the last pair, unseen):
 * force: the atom, "last" or an index (default 0); pair: "last" leaves out the last pair;
 * extra: "last" adds the last far pair, anything else the first.
 * The faults live in this test program only, so the programs carry no fault-injection hook.
 * Tested by tests/cases_22_trust.sh (check-plant-*, check-tol-*): --check must fail on each,
 * in its own column of the row (check_f_err, ...), and pass with none. */
#define main cpu_grouped_main
#include "../variants/cpu-grouped.c"
#undef main

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NONE, FORCE, VIRIAL, ENERGY, SHIFT, PAIR, EXTRA, LAST, PARAMS_INIT, PARAMS_RUN, OPTS_INIT, OPTS_RUN, NFAULTS };
static const char *const fault_names[NFAULTS] = {"none",  "force", "virial", "energy",      "shift",      "pair",
                                                 "extra", "last",  "params-init", "params-run", "opts-init", "opts-run"};
static const double default_size[NFAULTS] = {0, 1e-3, 1e-2, 1e-3, 0, 0, 0, 1e-3, 0, 0, 0, 0};
static int fault;
static double size;

/* The opts-* faults' own option: a program's options struct, declared as a program declares it. */
typedef struct {
    int own;
} PlantOpts;
static const Option plant_rows[] = {
    {"plant-own", T_INT, offsetof(PlantOpts, own), 0, 100, NULL, 0, NULL, "test-plant's own option (opts-*)"}};
static const PlantOpts plant_defaults = {7};
static const OwnOptions plant_own = {plant_rows, 1, sizeof(PlantOpts), &plant_defaults, NULL, NULL};

static int planted_init(Sim *s)
{
    const int rc = variant.init(s);
    if (fault == PARAMS_INIT) s->p.reorder += 1;   /* a choice resolved into Params, not Sim.ran */
    if (fault == OPTS_INIT) ((PlantOpts *)s->opts)->own += 1;   /* ... into Sim.opts, not Sim.ran_opts */
    return rc;
}

static void planted_forces(Sim *s)
{
    if (fault == PARAMS_RUN && s->stepping) s->p.seed++;
    if (fault == OPTS_RUN && s->stepping) ((PlantOpts *)s->opts)->own++;
    const real shift = s->pot.lj.shift;
    if (fault == SHIFT) s->pot.lj.shift = 0;
    forces(s);
    s->pot.lj.shift = shift;
    if (fault == FORCE || (fault == LAST && s->stepping)) {   /* LAST: a step's forces, not the check's */
        const char *at = fault == FORCE ? getenv("PLANT_AT") : NULL;
        const int i = !at ? 0 : strcmp(at, "last") == 0 ? s->n - 1 : atoi(at) % s->n;
        const double f = sqrt((double)s->a[i].x * s->a[i].x + (double)s->a[i].y * s->a[i].y +
                              (double)s->a[i].z * s->a[i].z);
        s->a[i].x += (real)(size * f);
    }
    if (fault == VIRIAL) s->props.virial_sum += size * fabs(s->props.virial_sum);
    if (fault == ENERGY) s->props.upot_sum += size * fabs(s->props.upot_sum);
}

typedef struct {
    PairFn fn;
    void *arg;
    int dropped;
    int held, hi, hj;   /* "last": the pair before the next one, never passed on if none follows */
} Dropper;

static void drop_last(int i, int j, void *arg)
{
    Dropper *d = arg;
    if (d->held) d->fn(d->hi, d->hj, d->arg);
    d->held = 1, d->hi = i, d->hj = j;
}

static void drop_first(int i, int j, void *arg)
{
    Dropper *d = arg;
    if (!d->dropped) { d->dropped = 1; printf("planted: pair (%d, %d) left out\n", i, j); return; }
    d->fn(i, j, d->arg);
}

static double dist2(const Sim *s, int i, int j)   /* minimum image */
{
    double r2 = 0;
    const double d[3] = {(double)s->r[i].x - s->r[j].x, (double)s->r[i].y - s->r[j].y, (double)s->r[i].z - s->r[j].z};
    for (int k = 0; k < 3; k++) {
        const double m = d[k] - s->L * round(d[k] / s->L);
        r2 += m * m;
    }
    return r2;
}

/* The extra pair, and whether a pair within r_n lies beyond it in the check's order. */
static void plant_extra(Sim *s, PairFn fn, void *arg, int last)
{
    const int n = s->n;
    long step = last ? -1 : 1, k = last ? (long)n * n - 1 : 0, near_beyond = 0;
    int pi = -1, pj = -1;
    for (; k >= 0 && k < (long)n * n; k += step) {
        const int i = (int)(k / n), j = (int)(k % n);
        if (i >= j) continue;
        const double r2 = dist2(s, i, j), rn2 = (double)s->rn * s->rn;
        if (pi < 0 && r2 >= 4 * rn2) pi = i, pj = j;
        else if (pi < 0 && r2 < 1.0001 * rn2) near_beyond = 1;   /* a pair within r_n comes first */
    }
    if (pi < 0) { printf("planted: no pair far apart\n"); return; }
    if (last) grouped_stage_pairs(s, fn, arg);
    fn(pi, pj, arg);
    if (!last) grouped_stage_pairs(s, fn, arg);
    printf("planted: extra pair (%d, %d), %s every pair within r_n\n", pi, pj,
           near_beyond ? "not beyond" : last ? "after" : "before");
}

static void planted_pairs(Sim *s, PairFn fn, void *arg)
{
    if (fault == EXTRA) {
        const char *at = getenv("PLANT_AT");
        plant_extra(s, fn, arg, at && strcmp(at, "last") == 0);
        return;
    }
    Dropper d = {fn, arg, fault != PAIR, 0, 0, 0};
    const char *at = getenv("PLANT_AT");
    if (!d.dropped && at && strcmp(at, "last") == 0) {
        grouped_stage_pairs(s, drop_last, &d);
        if (d.held) printf("planted: pair (%d, %d) left out\n", d.hi, d.hj);
        return;
    }
    grouped_stage_pairs(s, d.dropped ? fn : drop_first, d.dropped ? arg : &d);
}

int main(int argc, char **argv)
{
    fault = -1;
    for (int k = 0; argc > 1 && k < NFAULTS; k++)
        if (strcmp(argv[1], fault_names[k]) == 0) fault = k;
    if (fault < 0) {
        fprintf(stderr, "usage: test-plant none|force|virial|energy|shift|pair|extra|last|params-init|params-run|"
                        "opts-init|opts-run [SIZE] ARGS...\n");
        return 2;
    }
    size = default_size[fault];
    int skip = 2;
    char *end;
    if (argc > 2 && argv[2][0] != '-') {
        size = strtod(argv[2], &end);
        if (*end) { fprintf(stderr, "test-plant: SIZE %s is not a number\n", argv[2]); return 2; }
        skip = 3;
    }
    Variant v = variant;
    v.name = "cpu-grouped";
    v.init = planted_init;
    v.forces = planted_forces;
    v.for_each_pair = planted_pairs;
    v.check_last_force = fault == LAST;
    if (fault == OPTS_INIT || fault == OPTS_RUN) v.opts = &plant_own;
    argv[skip - 1] = argv[0];
    return nbr_main(argc - skip + 1, argv + skip - 1, &v);
}
