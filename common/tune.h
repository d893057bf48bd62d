/* tune.h - the autotuner as a harness service (--autotune, any program that declares knobs).
 *
 * A program declares its tunable knobs (Variant.tune): each an option of params.c's table or
 * of its own (Variant.opts) with its domain and a start. The harness keeps the host start the
 * flags built (the state after setup, never stepped) and runs every trial in this process from a
 * copy of it: the knobs set on a copy of Params (and of the program's own options), the
 * variant's init, a short warm-up (plain NVE) and timed run through the production loop
 * (md_loop.c's loop_run), the seconds per step read from its RunResult, its CSV row tagged
 * autotune-<phase>, the variant's finish; the device context stays. The search is the program's
 * own (gpu-rumd: RUMD's phases, kernels/autotune.c) or the generic coordinate descent
 * (autotune_generic). Result and cache: see docs/autotune.md. */
#ifndef NBR_TUNE_H
#define NBR_TUNE_H

#ifdef __cplusplus
extern "C" {
#endif

enum { TUNE_MAX_KNOBS = 8, TUNE_VAL_LEN = 32 };

typedef struct {
    const char *flag;     /* the option it sets (without "--"), e.g. "threads" */
    const char *values;   /* discrete domain: the values as the flag takes them, blank-separated;
                             NULL: continuous, [lo, hi] to tol */
    double lo, hi, tol;
    const char *def;      /* the start where the flags' value is not in the domain (--tp 0) */
} TuneKnob;

typedef char TuneValues[TUNE_MAX_KNOBS][TUNE_VAL_LEN];   /* one value per knob, declared order */

typedef struct {
    TuneValues best;
    double best_s, start_s;   /* seconds per step: the best, and the search's first trial */
    int trials, budget_exhausted;
} TuneOutcome;

typedef struct Tune Tune;

typedef struct TuneDecl {
    int nknobs;
    TuneKnob knob[TUNE_MAX_KNOBS];
    /* 1: the cache key names the program (0 for gpu-rumd only: its keys predate the others) */
    int key_program;
    /* the program's own search (NULL: the generic one); 0, or 1 when its start did not run */
    int (*search)(Tune *T, TuneOutcome *out);
} TuneDecl;

/* RUMD's appendix knobs (list, delta, pb, tp, sort-every) with RUMD's phased search
 * (kernels/autotune.c): a program with those flags (gpu-rumd) sets Variant.tune to it. */
extern const TuneDecl tune_rumd;

/* For a program's own search: one trial at these knob values (its CSV row tagged
 * autotune-<phase>); seconds per step, < 0 when the trial could not run (bad combination,
 * capacity, unstable: one line on stderr). */
double tune_trial(Tune *T, TuneValues val, const char *phase);
long tune_natoms(const Tune *T);
double tune_budget(const Tune *T);    /* --autotune-budget */
double tune_elapsed(const Tune *T);   /* seconds since the search began */

#ifdef __cplusplus
}
#endif
#endif
