/* autotune.c - RUMD's autotuner search (see autotune.h). */
#include "autotune.h"

#include "../common/params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const int PB_VALUES[] = {16, 32, 48, 64, 96, 128, 192};
enum { NPB = sizeof PB_VALUES / sizeof PB_VALUES[0] };
static const int SORT_VALUES[] = {0, 50, 100, 200, 500, 1000};
enum { NSORT = sizeof SORT_VALUES / sizeof SORT_VALUES[0] };
#define SKIN_MIN 0.05
#define SKIN_MAX 2.0

TuneParams autotune_defaults(long n)
{
    TuneParams p = {n < 8000 ? LIST_N2 : LIST_SORT, 0.5, n <= 10000 ? 32 : 64, n <= 10000 ? 4 : 1, 0};
    return p;
}

int autotune_threads(int pb, int tp)
{
    if (tp > 32) return pb * tp;
    const int per_warp = 32 / tp;
    return 32 * ((pb + per_warp - 1) / per_warp);
}

typedef struct {
    const Tuner *t;
    TuneResult *res;
} Search;

static int out_of_time(const Search *S)
{
    const Tuner *t = S->t;
    if (t->budget_s > 0 && t->clock_s && t->clock_s(t->ctx) >= t->budget_s) S->res->budget_exhausted = 1;
    return S->res->budget_exhausted;
}

/* One trial: its seconds per step (< 0: not run), the overall best kept. */
static double trial(Search *S, const TuneParams *p, const char *phase)
{
    if (out_of_time(S) || autotune_threads(p->pb, p->tp) > 1024) return -1;
    const double sec = S->t->time_trial(S->t->ctx, p, phase);
    S->res->trials++;
    if (sec > 0 && (S->res->best_s <= 0 || sec < S->res->best_s)) {
        S->res->best = *p;
        S->res->best_s = sec;
    }
    return sec;
}

static int better(double a, double b) { return a > 0 && (b <= 0 || a < b); }

/* The skin of *p optimised by a line search: steps of 0.2 from the start in the direction
 * that pays, then halved twice (0.1, 0.05); *sec is the time of the result. none has no skin. */
static void optimise_skin(Search *S, TuneParams *p, double *sec, const char *phase)
{
    if (*sec <= 0) *sec = trial(S, p, phase);
    if (p->list == LIST_NONE || *sec <= 0) return;
    for (double h = 0.2; h > 0.04; h *= 0.5) {
        for (int dir = 1; dir >= -1; dir -= 2) {
            int moved = 0;
            for (;;) {
                TuneParams q = *p;
                q.skin = p->skin + dir * h;
                if (q.skin < SKIN_MIN - 1e-9 || q.skin > SKIN_MAX + 1e-9) break;
                const double s = trial(S, &q, phase);
                if (!better(s, *sec)) break;
                *p = q;
                *sec = s;
                moved = 1;
            }
            if (moved) break;   /* this direction paid: the other cannot (one minimum) */
        }
    }
}

/* Phase II for one method: p_b x t_p, then the skin again, then the sort interval. */
static void phase2(Search *S, TuneParams *p, double *sec)
{
    const long n = S->t->n;
    TuneParams best = *p;
    double best_s = *sec;
    for (int k = 0; k < NPB; k++) {
        const int pb = PB_VALUES[k];
        if ((pb == 16 && n > 4000) || (pb == 32 && n > 100000)) continue;
        const int tp_max = n > 100000 ? 1 : 64;
        double pb_best = -1;
        int worse = 0;
        for (int tp = 1; tp <= tp_max && worse < 2; tp = tp < 32 ? tp + 1 : tp + 32) {
            if (autotune_threads(pb, tp) > 1024) break;
            TuneParams q = *p;
            q.pb = pb;
            q.tp = tp;
            const double s = trial(S, &q, "phase2");
            if (better(s, pb_best)) { pb_best = s; worse = 0; }
            else worse++;   /* t_p stops paying after two worse steps */
            if (better(s, best_s)) { best = q; best_s = s; }
        }
    }
    *p = best;
    *sec = best_s;
    optimise_skin(S, p, sec, "phase2-skin");
    if (p->list != LIST_SORT)
        for (int k = 0; k < NSORT; k++) {
            if (SORT_VALUES[k] == p->sort_every) continue;
            TuneParams q = *p;
            q.sort_every = SORT_VALUES[k];
            const double s = trial(S, &q, "sort-interval");
            if (better(s, *sec)) { *p = q; *sec = s; }
        }
}

int autotune_search(const Tuner *t, TuneResult *res)
{
    memset(res, 0, sizeof *res);
    Search S = {t, res};
    const long n = t->n;
    res->baseline = autotune_defaults(n);
    res->baseline_s = trial(&S, &res->baseline, "baseline");
    if (res->baseline_s <= 0) return 1;

    /* phase I */
    const int methods[] = {LIST_NONE, LIST_N2, LIST_SORT};
    TuneParams opt[3];
    double opt_s[3] = {-1, -1, -1}, best1 = -1;
    for (int k = 0; k < 3; k++) {
        const int m = methods[k];
        if ((m == LIST_NONE && n > 5000) || (m == LIST_N2 && n > 50000)) continue;
        opt[k] = res->baseline;
        opt[k].list = m;
        if (m == res->baseline.list) opt_s[k] = res->baseline_s;
        optimise_skin(&S, &opt[k], &opt_s[k], "phase1");
        if (better(opt_s[k], best1)) best1 = opt_s[k];
    }
    /* phase II: the methods within 20% of phase I's best */
    for (int k = 0; k < 3; k++)
        if (opt_s[k] > 0 && opt_s[k] <= 1.2 * best1) phase2(&S, &opt[k], &opt_s[k]);
    /* final comparison: the best of phase II, or the baseline if nothing beat it */
    TuneParams fin = res->baseline;
    double fin_s = res->baseline_s;
    for (int k = 0; k < 3; k++)
        if (better(opt_s[k], fin_s)) { fin = opt[k]; fin_s = opt_s[k]; }
    /* best of all trials (what a budget cut leaves) may beat the phases' bookkeeping */
    if (better(res->best_s, fin_s)) { fin = res->best; fin_s = res->best_s; }
    res->best = fin;
    res->best_s = fin_s;
    return 0;
}

/* ---- the generic search (see autotune.h) ------------------------------------------------- */

enum { MEMO = 512 };
typedef struct {
    const GenTuner *t;
    GenResult *res;
    int nmemo;
    double memo_x[MEMO][AUTOTUNE_MAX_KNOBS], memo_s[MEMO];
} Gen;

/* Seconds per step at x (a failed trial, or none left in the budget: -1), remembered. */
static double gen_trial(Gen *G, const double *x, const char *phase)
{
    const GenTuner *t = G->t;
    for (int m = 0; m < G->nmemo; m++)
        if (memcmp(G->memo_x[m], x, sizeof(double) * t->nknobs) == 0) return G->memo_s[m];
    if (t->budget_s > 0 && t->clock_s && t->clock_s(t->ctx) >= t->budget_s) G->res->budget_exhausted = 1;
    if (G->res->budget_exhausted) return -1;
    const double sec = t->time_trial(t->ctx, x, phase);
    G->res->trials++;
    if (G->nmemo < MEMO) {
        memcpy(G->memo_x[G->nmemo], x, sizeof(double) * t->nknobs);
        G->memo_s[G->nmemo++] = sec;
    }
    if (better(sec, G->res->best_s)) {
        memcpy(G->res->x, x, sizeof(double) * t->nknobs);
        G->res->best_s = sec;
    }
    return sec;
}

/* a failed trial is slower than any other */
static double cost(double sec) { return sec > 0 ? sec : HUGE_VAL; }

/* Knob k continuous: golden section on [a, b], the other knobs at x; values rounded to tol/4
 * (so that a repeated point is found in the memo). */
static void gen_golden(Gen *G, double *x, int k, double a, double b)
{
    const GenKnob *kn = &G->t->knob[k];
    const double g = 0.5 * (sqrt(5.0) - 1), q = kn->tol / 4;
    double y[AUTOTUNE_MAX_KNOBS];
    memcpy(y, x, sizeof y);
#define AT(v) (y[k] = q * floor((v) / q + 0.5), cost(gen_trial(G, y, kn->name)))
    double c = b - g * (b - a), d = a + g * (b - a), fc = AT(c), fd = AT(d);
    while (b - a > kn->tol && !G->res->budget_exhausted) {
        if (fc <= fd) { b = d; d = c; fd = fc; c = b - g * (b - a); fc = AT(c); }
        else { a = c; c = d; fc = fd; d = a + g * (b - a); fd = AT(d); }
    }
#undef AT
}

int autotune_generic(const GenTuner *t, GenResult *res)
{
    memset(res, 0, sizeof *res);
    Gen *G = calloc(1, sizeof *G);
    if (!G) return 1;
    G->t = t;
    G->res = res;
    double x[AUTOTUNE_MAX_KNOBS] = {0};
    for (int k = 0; k < t->nknobs; k++) x[k] = t->knob[k].start;
    res->start_s = gen_trial(G, x, "start");
    if (res->start_s <= 0) { free(G); return 1; }
    for (int sweep = 0; sweep < 4 && !res->budget_exhausted; sweep++) {
        res->sweeps++;
        double before[AUTOTUNE_MAX_KNOBS];
        memcpy(before, res->x, sizeof before);
        for (int k = 0; k < t->nknobs; k++) {
            const GenKnob *kn = &t->knob[k];
            memcpy(x, res->x, sizeof x);   /* from the best so far */
            if (kn->nvalues > 0) {
                for (int v = 0; v < kn->nvalues; v++) {
                    double y[AUTOTUNE_MAX_KNOBS];
                    memcpy(y, x, sizeof y);
                    y[k] = v;
                    gen_trial(G, y, kn->name);
                }
            } else {
                const double w = sweep == 0 ? kn->hi - kn->lo : 0.2 * (kn->hi - kn->lo);
                gen_golden(G, x, k, fmax(kn->lo, x[k] - w), fmin(kn->hi, x[k] + w));
            }
        }
        if (memcmp(before, res->x, sizeof(double) * t->nknobs) == 0) break;   /* a sweep that changed nothing */
    }
    free(G);
    return 0;
}
