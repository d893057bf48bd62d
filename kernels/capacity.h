/* capacity.h - the one capacity policy of every neighbour structure, CPU and GPU.
 *
 * `limit` is the flag's value: > 0 is a hard limit (a build that needs more stops the run
 * with one line naming the limit, the need and the flag), 0 means automatic: start from an
 * estimate, and when a build needs more, grow to the need plus a 10% margin (counted in
 * stats.grows) and build again. Never truncate. */
#ifndef NBR_CAPACITY_H
#define NBR_CAPACITY_H

#include "../common/sim.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    const char *who;   /* program name, for the message */
    const char *what;  /* "pair list", "neighbour matrix", ... */
    const char *unit;  /* what cap counts: "pairs", "neighbours per atom", "layers" */
    const char *flag;  /* the option that sets the limit, without dashes */
    long limit;
    size_t quantum;    /* cap is kept a multiple of this (rows read as int4: 4), >= 1 */
    size_t cap;
} Capacity;

/* Sets cap to the hard limit, or to the estimate with the margin. */
void capacity_init(Capacity *c, const char *who, const char *what, const char *unit,
                   const char *flag, long limit, double estimate, size_t quantum);

/* After a build that needed `need` units: returns 0 when it fitted. Otherwise, automatic:
 * raises cap, counts s->stats.grows and returns 1 (the caller reallocates and builds
 * again); hard limit: exits 3 with one line. */
int capacity_short(Sim *s, Capacity *c, size_t need);

/* Estimates from the mean density: neighbours within r of an atom. */
double neighbours_within(const Sim *s, double r);

/* The estimate a neighbour capacity starts from: `estimate`, or --grow-from when given (a
 * debug knob that makes the capacity grow during the run). */
double nbr_start_estimate(const Sim *s, double estimate);

/* The largest of ~1e5 Poisson counts of this mean (cell occupancy, neighbours of one atom):
 * mean + 4.5 sd, the estimate for a capacity that must hold the maximum, not the mean. */
double poisson_max(double mean);

#ifdef __cplusplus
}
#endif
#endif
