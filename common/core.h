/* core.h - functions the common loop uses internally (not part of the variant interface). */
#ifndef NBR_CORE_H
#define NBR_CORE_H

#include "sim.h"

/* provenance.c: the revision this program was built from ("-dirty": uncommitted changes;
 * "unknown": no git and no .git-rev) and the host compiler. */
const char *nbr_git_rev(void);
const char *nbr_host_compiler(void);
int nbr_rev_committed(void);

/* state.c */
void state_init(Sim *s);

/* reference.c: O(N^2) forces and energies, per atom (arrays n long). */
typedef struct {
    double (*f)[3];      /* forces */
    double *u;           /* energies: half of each pair's u */
    double upot;         /* total potential energy */
    double virial;       /* sum over pairs of r_ij . f_ij */
    double virial_abs;   /* sum over pairs of |r_ij . f_ij|: the scale of its rounding */
    double virial_band;  /* |r.f| of the pairs within `band` of r_c (may be counted or not) */
    double *fmag;        /* sum over pairs of |f_ij|: the scale rounding errors work on */
    double *umag;        /* likewise half of |u_ij|: U_i can be near 0 where terms cancel (charges) */
    double *fband;       /* sum of |f_ij| over pairs within `band` of r_c (may be in or out) */
    double *uband;       /* likewise half of |u_ij| */
    double uband_total;
    long border_pairs;
} Reference;
void reference_compute(const Sim *s, double band, Reference *ref);
/* md_loop.c: a long stage (an O(N^2) loop, per row) polls for SIGINT / SIGTERM: the run then
 * ends at once as it would between steps (interrupted row, the step in progress not counted) */
void nbr_poll_interrupt(const Sim *s);
void reference_free(Reference *ref);

/* check.c: validation of the variant's last build and forces against the reference and the
 * brute-force pair set; prints a report, returns 0 when everything is within tolerance.
 * `unstable`: the run was unstable, so its state is not one to validate: fails. */
int check_run(Sim *s, int unstable);

/* check.c, --verify-lists: the variant's stale neighbour structure (built at step built_at)
 * at its last use must hold every pair now within r_c; a missing pair stops the run with one
 * line (exit 5). Returns 1 when it checked, 0 when the variant keeps no structure to check. */
int verify_lists(Sim *s, int built_at);

/* stagetime.c: each stage replayed on its own on the final state (--stage-reps), for the
 * per-kernel columns and the stage fractions. */
typedef struct {
    double us[NSTAGES];     /* microseconds per call of the stage */
    double gbs[NSTAGES];    /* achieved GB/s from the variant's byte count; < 0 = not stated */
    double per_step[NSTAGES]; /* calls per production step */
    int reps;
} StageTimes;

/* What one run measured, beside Sim.stats (report.c writes both). */
typedef struct {
    double wall;          /* seconds of production (timed) steps */
    double step_median;   /* median seconds per step over the timing blocks */
    int    nblocks;       /* timing blocks behind that median */
    double e_start, e_end;/* mean E/N over a window at each end of production */
    double drift;         /* (e_end - e_start) / |e_start| */
    double e_rms;         /* rms of E/N over production, relative to its mean */
    double pressure;      /* mean over production */
    double temp;          /* mean kinetic temperature over production, sum v^2 / (3 (N - 1)) */
    int e_samples;        /* production sample points behind the energies (0: never measured) */
    long verified;        /* --verify-lists: stale structures checked */
    int unstable;
    StageTimes st;        /* st.reps == 0: not measured */
} RunResult;

/* One averaging block (--blocks-csv). */
typedef struct {
    int block, step, steps, timed_steps;
    double e_mean, temp_mean, e_end, u_end;
    long builds_total;
    double us_per_atom_step;
} BlockRow;

/* report.c. report_open refuses (exit 2, one line) output files that cannot be written,
 * have another header, or lie under a results/ directory while the build's revision is not
 * committed (unless --allow-dirty): before any computing. */
void report_open(const Sim *s);
void report_summary(const Sim *s, const RunResult *res);
void report_csv(const Sim *s, const RunResult *res, const char *status);
void report_block(const Sim *s, const BlockRow *b);

/* timers.c: the host clock as a variant timer (CPU variants). */
double wall_seconds(void);
void host_timer_mark(Sim *s, int slot);
double host_timer_seconds(Sim *s, int from, int to);

void stage_timing(Sim *s, RunResult *res);

/* md_loop.c, nbr_main in parts: the flags parsed and the host start built (NULL: --print-config
 * printed, nothing else to do); the run from it (init to finish, the CSV row; the exit code);
 * the host state freed. The autotuner (tune.c) runs its trials between the first two. */
Sim *loop_setup(int argc, char **argv, const Variant *v);
void loop_derive(Sim *s);   /* n, L and r_n from s->p: again after a knob changes */
int loop_run(Sim *s, RunResult *res);
void loop_free(Sim *s);

/* tune.c, --autotune: the knobs the variant declares (Variant.tune) tuned from the start s
 * holds, or taken from --autotune-cache, and set in s->p for the run. */
void tune_apply(Sim *s);

#endif
