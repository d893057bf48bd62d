/* autotune.h - RUMD's autotuner (Bailey et al., SciPost Phys. 2017, appendix), the search
 * alone: which trials to run and what to keep. Plain C; the trial itself is a function
 * pointer (gpu-rumd runs itself for a short MD run from the one stored start; the unit test
 * plants a minimum in a fake timing function), so the search is testable on any machine.
 *
 * The search, after the appendix:
 *   baseline   the defaults: list n2 below N = 8000, else sort; p_b 32, t_p 4 for N <= 10000,
 *              else 64, 1; skin 0.5;
 *   phase I    each list method (none only for N <= 5000, n2 only for N <= 50000, sort) at the
 *              default p_b and t_p, its skin optimised (none has no skin);
 *   phase II   every method within 20% of the best of phase I: p_b in {16, 32, 48, 64, 96, 128,
 *              192} (16 omitted above N = 4000, 32 above 10^5) x t_p from 1 upwards until it
 *              stops paying (t_p 1 only above N = 10^5; at most 1024 threads a block), then
 *              the skin re-optimised for the method's best p_b, t_p;
 *   sort       for n2 (and none) in phase II: the interval of the spatial sort, from never up;
 *   final      the best of the methods of phase II, against the baseline.
 * Every trial is reported (one CSV row each). With a budget the search stops
 * when it is used up and keeps the best found so far (flagged in the result). */
#ifndef NBR_AUTOTUNE_H
#define NBR_AUTOTUNE_H

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int list;        /* ListMethod (params.h): LIST_NONE, LIST_N2, LIST_SORT */
    double skin;     /* delta: r_n = r_c + skin */
    int pb, tp;      /* particles per block, threads per particle */
    int sort_every;  /* lists none / n2: steps between sorts by cell (0 = never) */
} TuneParams;

typedef struct {
    /* seconds per step of a short run with these parameters; < 0: the trial could not run
     * (it is skipped) */
    double (*time_trial)(void *ctx, const TuneParams *tp, const char *phase);
    void *ctx;
    long n;                       /* atoms */
    double budget_s;              /* seconds the search may take (<= 0: no limit) */
    double (*clock_s)(void *ctx); /* elapsed seconds, for the budget (NULL: no limit) */
} Tuner;

typedef struct {
    TuneParams best, baseline;
    double best_s, baseline_s;    /* seconds per step */
    int trials;
    int budget_exhausted;         /* 1: stopped early, best of what was tried */
} TuneResult;

/* RUMD's defaults for N atoms (baseline; also gpu-rumd's when not tuned). */
TuneParams autotune_defaults(long n);

/* Threads per block of p_b particles with t_p threads each, whole warps (kernels/cuda/pair_force.cuh);
 * the search skips layouts over 1024. */
int autotune_threads(int pb, int tp);

/* The whole search; returns 0, or 1 when not even the baseline could run. */
int autotune_search(const Tuner *t, TuneResult *res);

/* ---- the generic search (every other tunable program, common/tune.c) ----------------------
 * Coordinate descent over declared knob domains from a start: each knob in turn, the others
 * held, a discrete knob tried at every value of its domain, a continuous one (the skin) by a
 * golden-section search over [lo, hi] to tol (a bracket of +-0.2 (hi - lo) around the current value
 * after the first sweep); sweeps repeat until one changes nothing (at most 4). A point already
 * timed is not run again. A trial that fails (< 0) counts as infinitely slow. */
enum { AUTOTUNE_MAX_KNOBS = 8 };
typedef struct {
    const char *name;   /* the trial's phase (its CSV rows are tagged autotune-<name>) */
    int nvalues;        /* > 0: discrete, x = 0 .. nvalues - 1 (an index into the domain); 0: continuous */
    double lo, hi, tol; /* continuous: x in [lo, hi], searched to tol */
    double start;
} GenKnob;

typedef struct {
    int nknobs;
    GenKnob knob[AUTOTUNE_MAX_KNOBS];
    double (*time_trial)(void *ctx, const double *x, const char *phase);  /* s per step; < 0 failed */
    void *ctx;
    double budget_s;              /* <= 0: no limit */
    double (*clock_s)(void *ctx); /* NULL: no limit */
} GenTuner;

typedef struct {
    double x[AUTOTUNE_MAX_KNOBS], best_s, start_s;
    int trials, sweeps, budget_exhausted;
} GenResult;

/* Returns 0, or 1 when the start did not run. */
int autotune_generic(const GenTuner *t, GenResult *res);

#ifdef __cplusplus
}
#endif
#endif
