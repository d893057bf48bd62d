/* timers.c - per-stage timers, one mechanism for CPU and GPU variants.
 *
 * Each stage_enter/stage_leave records a mark (host clock, or a CUDA event for GPU variants)
 * labelled with the stage that is active from then on. The time between two consecutive
 * marks goes to that stage, so nested stages are exclusive and nothing is counted twice.
 * Marks are only turned into seconds in timers_flush (at block ends), so a GPU variant's
 * events never force a synchronisation inside the step. */
#include "core.h"

#include <time.h>

double wall_seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static double host_marks[TIMER_SLOTS];
void host_timer_mark(Sim *s, int slot) { host_marks[slot] = wall_seconds(); }
double host_timer_seconds(Sim *s, int from, int to) { return host_marks[to] - host_marks[from]; }

enum { NO_STAGE = -1, MAX_DEPTH = 8 };
static int stack[MAX_DEPTH], depth;
static int label[TIMER_SLOTS], nmarks;

static void mark(Sim *s)
{
    if (nmarks == TIMER_SLOTS) nbr_fail(1, "internal: more than %d timer marks inside one stage", TIMER_SLOTS);
    s->variant->timer_mark(s, nmarks);
    label[nmarks++] = depth ? stack[depth - 1] : NO_STAGE;
}

void stage_enter(Sim *s, Stage st)
{
    if (!s->production) return;
    if (depth == 0 && nmarks > TIMER_SLOTS / 2) timers_flush(s);
    if (depth == MAX_DEPTH) nbr_fail(1, "internal: stage timers nested deeper than %d", MAX_DEPTH);
    stack[depth++] = st;
    mark(s);
}

void stage_leave(Sim *s)
{
    if (!s->production || depth == 0) return;
    depth--;
    mark(s);
}

/* Called between stages (depth 0), so the last mark closes every open interval. */
void timers_flush(Sim *s)
{
    for (int k = 0; k + 1 < nmarks; k++)
        if (label[k] != NO_STAGE) s->t_stage[label[k]] += s->variant->timer_seconds(s, k, k + 1);
    nmarks = 0;
}
