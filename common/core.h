/* core.h - functions the common loop uses internally (not part of the variant interface). */
#ifndef NBR_CORE_H
#define NBR_CORE_H

#include "sim.h"

/* state.c */
void state_init(Sim *s);

/* reference.c: O(N^2) forces and energies, per atom (arrays n long). */
typedef struct {
    double (*f)[3];      /* forces */
    double *u;           /* energies: half of each pair's u */
    double upot;         /* total potential energy */
    double *fmag;        /* sum over pairs of |f_ij|: the scale rounding errors work on */
    double *fband;       /* sum of |f_ij| over pairs within `band` of r_c (may be in or out) */
    double *uband;       /* likewise half of |u_ij| */
    double uband_total;
    long border_pairs;
} Reference;
void reference_compute(const Sim *s, double band, Reference *ref);
void reference_free(Reference *ref);
double ref_delta(double a, double b, double L);  /* minimum image in double */

/* check.c: validation of the variant's last build and forces against the reference and the
 * brute-force pair set; prints a report, returns 0 when everything is within tolerance. */
int check_run(Sim *s);

/* What one run measured, beside Sim.stats (report.c writes both). */
typedef struct {
    double wall;          /* seconds of production (timed) steps */
    double step_median;   /* median seconds per step over the timing blocks */
    int    nblocks;       /* timing blocks behind that median */
    double e_start, e_end;/* mean E/N over a window at each end of production */
    double drift;         /* (e_end - e_start) / |e_start| */
} RunResult;

/* report.c */
void report_summary(const Sim *s, const RunResult *res);
void report_csv(const Sim *s, const RunResult *res, const char *status);

/* timers.c */
double wall_seconds(void);
void host_timer_mark(Sim *s, int slot);
double host_timer_seconds(Sim *s, int from, int to);

#endif
