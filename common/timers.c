/* timers.c - the host clock as a variant timer: CPU variants' marks are clock readings;
 * GPU variants record CUDA events instead (their timer_mark / timer_seconds). */
#include "core.h"

#include <time.h>

double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

void host_timer_mark(Sim *s, int slot) { s->host_marks[slot] = wall_seconds(); }
double host_timer_seconds(Sim *s, int from, int to) { return s->host_marks[to] - s->host_marks[from]; }
