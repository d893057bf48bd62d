/* tune.c - the autotuner's trial runner, cache and generic search driver (see tune.h). */
#include "tune.h"

#include "../kernels/autotune.h"
#include "core.h"

#include <math.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { MAX_VALUES = 16 };

struct Tune {
    const Sim *start;     /* the host start after setup: copied into every trial, never stepped */
    const TuneDecl *decl;
    Sim trial;            /* the trial's state (its host arrays below) */
    Variant trial_v;      /* its own copy of the table (init may edit it) */
    vec3 *r, *v, *a;
    real *u, *q;
    void *opts;           /* the trial's own options and what ran of them (Sim.opts, Sim.ran_opts) */
    int timed, equil;
    double t0;
    int trials;
    /* the generic search: each discrete knob's domain split into its values */
    int nvalues[TUNE_MAX_KNOBS];
    char dom[TUNE_MAX_KNOBS][MAX_VALUES][TUNE_VAL_LEN];
    RunResult res;
};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

long tune_natoms(const Tune *T) { return T->start->n; }
double tune_budget(const Tune *T) { return T->start->p.autotune_budget; }
double tune_elapsed(const Tune *T) { return now_s() - T->t0; }

static void print_values(const Tune *T, TuneValues val)
{
    for (int k = 0; k < T->decl->nknobs; k++) printf(" %s=%s", T->decl->knob[k].flag, val[k]);
}

double tune_trial(Tune *T, TuneValues val, const char *phase)
{
    const Sim *st = T->start;
    Sim *s = &T->trial;
    *s = *st;
    T->trial_v = *st->variant;
    s->variant = &T->trial_v;
    s->r = T->r; s->v = T->v; s->a = T->a; s->u = T->u; s->q = T->q;
    const size_t n = (size_t)st->n;
    memcpy(s->r, st->r, sizeof(vec3) * n);
    memcpy(s->v, st->v, sizeof(vec3) * n);
    memcpy(s->a, st->a, sizeof(vec3) * n);
    memcpy(s->u, st->u, sizeof(real) * n);
    memcpy(s->q, st->q, sizeof(real) * n);
    const OwnOptions *own = st->variant->opts;
    if (own) {   /* the trial sets its knobs on a copy of the start's, as on Params */
        memcpy(T->opts, st->opts, own->size);
        s->opts = T->opts;
        s->ran_opts = (char *)T->opts + own->size;
    }
    s->trial = 1;
    Params *p = &s->p;
    /* a short run: warm-up without rescaling (plain NVE from the start), then timed blocks */
    p->steps = T->equil + T->timed;
    p->equil = T->equil;
    p->rescale_every = 1000000000;
    p->avg_block = T->timed / 4;
    p->stage_reps = 0;
    p->quiet = 1;
    p->check = 0;
    p->verify_lists = 0;
    p->autotune = 0;
    p->blocks_csv[0] = '\0';
    snprintf(p->tag, sizeof p->tag, "autotune-%s", phase);
    T->trials++;
    fflush(stdout);
    /* A failure inside the trial (nbr_fail, an unstable run) comes back here with its exit
     * code: the trial's device state is freed by the variant's finish and the search goes on. */
    jmp_buf env;
    int code = setjmp(env);
    if (code == 0) {
        nbr_fail_trap(&env);
        for (int k = 0; k < T->decl->nknobs; k++)
            if (params_set(p, own, T->opts, st->variant->knobs, st->variant->name, T->decl->knob[k].flag, val[k]) != 0)
                nbr_fail(EXIT_INTERNAL, "%s: internal: the tuned knob --%s is not an option of this program",
                         st->variant->name, T->decl->knob[k].flag);
        loop_derive(s);
        code = loop_run(s, &T->res);
        nbr_fail_trap(NULL);
    } else {
        if (code != EXIT_INPUT && code != EXIT_CAPACITY && code != EXIT_UNSTABLE && code != EXIT_VERIFY)
            exit(code);   /* a device fault, no device: the search cannot go on (the line is out) */
        if (s->ctx && T->trial_v.finish) T->trial_v.finish(s);
    }
    const double sec = code == 0 && T->res.step_median > 0 ? T->res.step_median : -1;
    printf("# autotune %-13s", phase);
    print_values(T, val);
    if (sec > 0) printf(": %.3f us/step\n", sec * 1e6);
    else printf(": failed (exit %d)\n", code);
    return sec;
}

/* ---- the generic search: x (value indices, or the continuous value) <-> the knobs' text ---- */

static void values_of(const Tune *T, const double *x, TuneValues val)
{
    for (int k = 0; k < T->decl->nknobs; k++)
        if (T->nvalues[k] > 0) snprintf(val[k], TUNE_VAL_LEN, "%s", T->dom[k][(int)x[k]]);
        else snprintf(val[k], TUNE_VAL_LEN, "%.6g", x[k]);
}

static double generic_trial(void *ctx, const double *x, const char *phase)
{
    Tune *T = ctx;
    TuneValues val;
    values_of(T, x, val);
    return tune_trial(T, val, phase);
}

static double generic_clock(void *ctx) { return tune_elapsed(ctx); }

static int generic_search(Tune *T, TuneOutcome *out)
{
    const TuneDecl *d = T->decl;
    GenTuner g = {d->nknobs, {{0}}, generic_trial, T, tune_budget(T), generic_clock};
    for (int k = 0; k < d->nknobs; k++) {
        const TuneKnob *kn = &d->knob[k];
        char cur[TUNE_VAL_LEN];
        params_get(&T->start->p, T->start->variant->opts, T->start->opts, kn->flag, cur, sizeof cur);
        GenKnob *gk = &g.knob[k];
        gk->name = kn->flag;
        gk->nvalues = T->nvalues[k];
        gk->lo = kn->lo; gk->hi = kn->hi; gk->tol = kn->tol;
        if (gk->nvalues > 0) {   /* the flags' value if in the domain, else the declared start */
            gk->start = -1;
            for (int pass = 0; pass < 2 && gk->start < 0; pass++)
                for (int v = 0; v < gk->nvalues; v++)
                    if (strcmp(T->dom[k][v], pass == 0 ? cur : kn->def ? kn->def : "") == 0) gk->start = v;
            if (gk->start < 0) gk->start = 0;
        } else {
            gk->start = fmin(kn->hi, fmax(kn->lo, atof(cur)));
        }
    }
    GenResult r;
    const int rc = autotune_generic(&g, &r);
    values_of(T, r.x, out->best);
    out->best_s = r.best_s;
    out->start_s = r.start_s;
    out->trials = r.trials;
    out->budget_exhausted = r.budget_exhausted;
    return rc;
}

/* ---- RUMD's phased search (kernels/autotune.c) over RUMD's appendix knobs: a named strategy
 * beside the generic one, each trial the in-process run above ---- */

static void rumd_values(const TuneParams *tp, TuneValues v)
{
    snprintf(v[0], TUNE_VAL_LEN, "%s", list_names[tp->list]);
    snprintf(v[1], TUNE_VAL_LEN, "%.6g", tp->skin);
    snprintf(v[2], TUNE_VAL_LEN, "%d", tp->pb);
    snprintf(v[3], TUNE_VAL_LEN, "%d", tp->tp);
    snprintf(v[4], TUNE_VAL_LEN, "%d", tp->sort_every);
}

static double rumd_trial(void *ctx, const TuneParams *tp, const char *phase)
{
    TuneValues v;
    rumd_values(tp, v);
    return tune_trial((Tune *)ctx, v, phase);
}

static int rumd_search(Tune *T, TuneOutcome *out)
{
    Tuner tuner = {rumd_trial, T, tune_natoms(T), tune_budget(T), generic_clock};
    TuneResult r;
    if (autotune_search(&tuner, &r) != 0) return 1;
    rumd_values(&r.best, out->best);
    out->best_s = r.best_s;
    out->start_s = r.baseline_s;
    out->trials = r.trials;
    out->budget_exhausted = r.budget_exhausted;
    return 0;
}

/* The cache's order (list skin p_b t_p sort_every); the domains are the search's own; the cache
 * key as before RUMD's search was a strategy (no program). */
const TuneDecl tune_rumd = {5, {{"list", "none n2 sort", 0, 0, 0, NULL},
                                {"delta", NULL, 0.05, 2.0, 0.05, NULL},
                                {"pb", "16 32 48 64 96 128 192", 0, 0, 0, NULL},
                                {"tp", NULL, 1, 64, 1, NULL},
                                {"sort-every", "0 50 100 200 500 1000", 0, 0, 0, NULL}}, 0, rumd_search};

/* ---- the cache: one line per key, "key|value ... seconds", the knobs' values in declared order
 * (gpu-rumd: "key|list skin pb tp sort_every seconds", as before) ---- */

static void cache_key(const Sim *s, char *key, size_t len)
{
    const Params *p = &s->p;
    char gpu[256] = "none";
    double used = 0;
    if (s->variant->device_query) s->variant->device_query(s, gpu, sizeof gpu, &used);
    int m = 0;
    if (s->variant->tune->key_program) m = snprintf(key, len, "program=%s;", s->variant->name);
    m += snprintf(key + m, len - m, "gpu=%s;precision=%s;n=%d;rho=%.8g;T=%.8g;potential=%s rc=%.8g shift=%.8g;dt=%.8g",
                  gpu, NBR_PRECISION, s->n, p->rho, p->temp, potential_names[p->potential], p->rc, p->shift, p->dt);
    /* the loop's settings that are not searched change the best values (gpu-onchip's tiers run
     * only with --decide device): they are part of the key where the program has them */
    static const struct { const char *flag; unsigned bit; } loop[] = {
        {"decide", KNOB_DECIDE}, {"graph", KNOB_GRAPH}, {"leapfrog", KNOB_LEAPFROG}};
    const TuneDecl *d = s->variant->tune;
    for (size_t k = 0; k < sizeof loop / sizeof loop[0] && m < (int)len; k++) {
        int tuned = 0;
        for (int j = 0; j < d->nknobs; j++) tuned |= strcmp(d->knob[j].flag, loop[k].flag) == 0;
        char v[TUNE_VAL_LEN];
        if (tuned || !(s->variant->knobs & loop[k].bit) ||
            params_get(p, s->variant->opts, s->opts, loop[k].flag, v, sizeof v) != 0)
            continue;
        m += snprintf(key + m, len - m, ";%s=%s", loop[k].flag, v);
    }
    for (char *c = key; *c; c++)
        if (*c == '|' || *c == '\n') *c = ';';
}

static int cache_lookup(const Sim *s, const char *key, TuneValues val, double *sec)
{
    const char *file = s->p.autotune_cache;
    FILE *f = file[0] ? fopen(file, "r") : NULL;
    if (!f) return 0;
    const int nk = s->variant->tune->nknobs;
    char line[2048];
    int found = 0;
    const size_t kl = strlen(key);
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, key, kl) != 0 || line[kl] != '|') continue;
        TuneValues v;
        int k = 0;
        char *save = NULL;
        for (char *w = strtok_r(line + kl + 1, " \n", &save); w; w = strtok_r(NULL, " \n", &save), k++) {
            if (k < nk) snprintf(v[k], TUNE_VAL_LEN, "%s", w);
            else if (k == nk) *sec = atof(w);
        }
        if (k == nk + 1) {   /* the last line of a key wins */
            memcpy(val, v, sizeof v);
            found = 1;
        }
    }
    fclose(f);
    return found;
}

static void cache_store(const Sim *s, const char *key, TuneValues val, double sec)
{
    const char *file = s->p.autotune_cache;
    if (!file[0]) return;
    FILE *f = fopen(file, "a");
    if (!f) nbr_fail(EXIT_INPUT, "%s: --autotune-cache %s: cannot append to it", s->variant->name, file);
    fprintf(f, "%s|", key);
    for (int k = 0; k < s->variant->tune->nknobs; k++) fprintf(f, "%s ", val[k]);
    fprintf(f, "%.6g\n", sec);
    fclose(f);
}

static double device_used(const Sim *s)
{
    char name[256];
    double used = -1;
    if (s->variant->device_query) s->variant->device_query(s, name, sizeof name, &used);
    return used;
}

void tune_apply(Sim *s)
{
    const Variant *v = s->variant;
    const TuneDecl *d = v->tune;
    if (!d) nbr_fail(EXIT_INTERNAL, "%s: internal: --autotune without a declaration of the knobs", v->name);
    char key[1024];
    cache_key(s, key, sizeof key);
    TuneOutcome o;
    memset(&o, 0, sizeof o);
    if (cache_lookup(s, key, o.best, &o.best_s)) {
        printf("# autotune: from %s:", s->p.autotune_cache);
        for (int k = 0; k < d->nknobs; k++) printf(" %s=%s", d->knob[k].flag, o.best[k]);
        printf(" (%.3f us/step when tuned)\n", o.best_s * 1e6);
    } else {
        Tune *T = calloc(1, sizeof *T);
        if (!T) nbr_fail(EXIT_CAPACITY, "%s: cannot allocate the autotuner", v->name);
        T->start = s;
        T->decl = d;
        T->r = nbr_alloc(sizeof(vec3) * s->n, "trial positions");
        T->v = nbr_alloc(sizeof(vec3) * s->n, "trial velocities");
        T->a = nbr_alloc(sizeof(vec3) * s->n, "trial accelerations");
        T->u = nbr_alloc(sizeof(real) * s->n, "trial energies");
        T->q = nbr_alloc(sizeof(real) * s->n, "trial charges");
        if (v->opts) T->opts = nbr_alloc(2 * v->opts->size, "trial options");
        /* 200 warm-up steps and 4 timed blocks of 125 to 250 steps. The child processes of
         * before timed 3000 steps below N = 67000 to drown their start-up; CUDA events time a
         * block of 250 steps at N = 4096 (~8 ms) to well under 1%, so 1000 do (H200: a trial
         * ~45 ms, where 3200 steps took ~120 ms of the 14.5 s search at SP N = 4096) */
        T->timed = (int)fmax(500, fmin(1000, 2e8 / (double)s->n));
        T->equil = 200;
        for (int k = 0; k < d->nknobs; k++) {
            if (!d->knob[k].values) continue;
            char dom[512];
            snprintf(dom, sizeof dom, "%s", d->knob[k].values);
            char *save = NULL;
            for (char *w = strtok_r(dom, " ", &save); w && T->nvalues[k] < MAX_VALUES; w = strtok_r(NULL, " ", &save))
                snprintf(T->dom[k][T->nvalues[k]++], TUNE_VAL_LEN, "%s", w);
        }
        T->t0 = now_s();
        /* RUMD's appendix: a first run to warm up (kernels loaded, clocks up), not compared; the
         * flags' own values. The device memory in use is measured after it and after the search. */
        TuneValues warm;
        for (int k = 0; k < d->nknobs; k++) params_get(&s->p, v->opts, s->opts, d->knob[k].flag, warm[k], TUNE_VAL_LEN);
        tune_trial(T, warm, "warmup");
        const double mem0 = device_used(s);
        const int rc = d->search ? d->search(T, &o) : generic_search(T, &o);
        const double mem1 = device_used(s);
        if (rc != 0 || o.best_s <= 0)
            nbr_fail(EXIT_INTERNAL, "%s: --autotune: the search's first trial did not run (see above)", v->name);
        printf("# autotune: %d trials in %.1f s%s:", o.trials, tune_elapsed(T),
               o.budget_exhausted ? " (budget used up: best so far)" : "");
        for (int k = 0; k < d->nknobs; k++) printf(" %s=%s", d->knob[k].flag, o.best[k]);
        printf(", %.3f us/step (start %.3f)\n", o.best_s * 1e6, o.start_s * 1e6);
        /* machine-readable: the harness's device bytes (gpu_alloc) before and after: each trial frees
         * what it allocated, so they are equal */
        if (mem0 >= 0)
            printf("# autotune-memory: trials=%d before_bytes=%.0f after_bytes=%.0f\n", T->trials, mem0, mem1);
        if (!o.budget_exhausted) cache_store(s, key, o.best, o.best_s);
        free(T->r); free(T->v); free(T->a); free(T->u); free(T->q); free(T->opts);
        free(T);
    }
    /* the tuned values become the options the run is asked for: the driver's own storage (Sim.opts,
     * read-only to the program) */
    for (int k = 0; k < d->nknobs; k++)
        if (params_set(&s->p, v->opts, (void *)s->opts, v->knobs, v->name, d->knob[k].flag, o.best[k]) != 0)
            nbr_fail(EXIT_INTERNAL, "%s: internal: the tuned knob --%s is not an option of this program", v->name,
                     d->knob[k].flag);
    loop_derive(s);
}
