/* capacity.c - see capacity.h. */
#include "capacity.h"

#include <math.h>

/* 10% over the need (or the estimate, which already includes the fluctuations of maxima),
 * so that growing is the exception, not the rule. */
static size_t with_margin(double need, size_t quantum)
{
    size_t cap = (size_t)ceil(1.1 * need + 2);
    return (cap + quantum - 1) / quantum * quantum;
}

double poisson_max(double mean) { return mean + 4.5 * sqrt(mean) + 2; }

double neighbours_within(const Sim *s, double r) { return 4.0 / 3.0 * 3.14159265358979 * r * r * r * s->p.rho; }

double nbr_start_estimate(const Sim *s, double estimate)
{
    return s->p.grow_from > 0 ? (double)s->p.grow_from : estimate;
}

void capacity_init(Capacity *c, const char *who, const char *what, const char *unit,
                   const char *flag, long limit, double estimate, size_t quantum)
{
    *c = (Capacity){.who = who, .what = what, .unit = unit, .flag = flag, .limit = limit,
                    .quantum = quantum ? quantum : 1};
    c->cap = limit > 0 ? (size_t)(limit + c->quantum - 1) / c->quantum * c->quantum
                       : with_margin(estimate, c->quantum);
}

int capacity_short(Sim *s, Capacity *c, size_t need)
{
    if (need <= c->cap && (c->limit <= 0 || need <= (size_t)c->limit)) return 0;
    if (c->limit > 0)
        nbr_fail(EXIT_CAPACITY, "%s: the %s needs %zu %s, over the limit --%s %ld: raise --%s to at least "
                                "%zu (0 = automatic)",
                 c->who, c->what, need, c->unit, c->flag, c->limit, c->flag, need);
    c->cap = with_margin((double)need, c->quantum);
    s->stats.grows++;
    return 1;
}
