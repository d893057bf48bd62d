/* tests/fake_clock.c - a clock with known readings, linked in place of common/timers.c into the
 * test programs test-clock (cpu-grouped) and test-coulomb-clock (coulomb) only, so that the
 * timing columns can be checked against values worked out by hand (tests/cases_12_timing.sh).
 *
 * MD (host_timer_mark, marks 0 and 1): step k takes FAKE_STEP_MS[((k - 1) / 100) % 7] milliseconds, so the
 * reading at a mark is the sum over the steps done so far (s->step). The steps of one hundred
 * take one time, distinct and not in order, so that a median taken without sorting, a mean in
 * place of the median, or a divisor per step in place of per atom each give another number.
 *
 * Coulomb (wall_seconds, read twice around each evaluation): reading 2j is j seconds, reading
 * 2j + 1 is j seconds + FAKE_EVAL_MS[j % 8] milliseconds, so the j-th timed interval takes
 * FAKE_EVAL_MS[j % 8] ms and the gaps between intervals are positive. */
#include "../common/core.h"

#include <math.h>

static const double FAKE_STEP_MS[7] = {0.5, 3, 1, 4, 1.5, 9, 2};
static const double FAKE_EVAL_MS[8] = {5, 3, 1, 4, 1.5, 9, 2.5, 7};

double wall_seconds(void)
{
    static long calls;
    const long j = calls / 2, odd = calls % 2;
    calls++;
    return (double)j + (odd ? 1e-3 * FAKE_EVAL_MS[j % 8] : 0.0);
}

static double fake_md_seconds(int steps)
{
    double t = 0;
    for (int k = 1; k <= steps; k++) t += 1e-3 * FAKE_STEP_MS[((k - 1) / 100) % 7];
    return t;
}

/* The stage replays (common/stagetime.c: marks 2 and 3 around --stage-reps calls): replay k
 * starts at 1000 (k + 1) s and each of its calls takes FAKE_STAGE_US[k] microseconds, so the
 * readings themselves count the replays (no state besides the marks). cpu-grouped replays, in
 * order: list, reorder (with a list build: 70 - 40 = 30 us), force, other, integrate. */
static const double FAKE_STAGE_US[5] = {40, 70, 200, 10, 20};

void host_timer_mark(Sim *s, int slot)
{
    if (slot == 2) {
        s->host_marks[2] = 1000 * (floor(s->host_marks[3] / 1000) + 1);
    } else if (slot == 3) {
        const int k = (int)(s->host_marks[2] / 1000) - 1;
        s->host_marks[3] = s->host_marks[2] + s->p.stage_reps * 1e-6 * FAKE_STAGE_US[k < 5 ? k : 4];
    } else {
        s->host_marks[slot] = fake_md_seconds(s->step);
    }
}
double host_timer_seconds(Sim *s, int from, int to) { return s->host_marks[to] - s->host_marks[from]; }
