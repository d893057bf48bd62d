/* timers.c - host-clock stage timers (CPU variants). GPU variants supply CUDA-event timers
 * through Variant.timer_begin/end/collect; the loop calls whichever the variant has. */
#include "core.h"

#include <time.h>

double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double started[NSTAGES];

void host_timer_begin(Sim *s, Stage st)
{
    (void)s;
    started[st] = wall_seconds();
}

void host_timer_end(Sim *s, Stage st) { s->t_stage[st] += wall_seconds() - started[st]; }
