/* stagetime.c - kernel-level timing: after production, each stage is replayed on its own,
 * --stage-reps times between two timer marks (CUDA events on the GPU), on the final state.
 * Production timing (us_per_atom_step) never has marks inside a step; these per-call times
 * are the other honest number: what each stage costs by itself, with the achieved GB/s where
 * the variant states the fewest bytes the stage must move. The stage fractions of the CSV
 * are then kernel time x how often the stage ran per production step:
 *   list      wrap + build, per build        (builds per step from the run)
 *   reorder   reorder, per reordering        (reorderings per step from the run); replayed
 *             with a build after each (a reordering invalidates the structure), whose time
 *             is subtracted
 *   force     forces, every step
 *   other     props (reductions), every step
 *   integrate kick_drift + kick, every step; with --leapfrog fused the fused kernel alone
 *             (kick, decision, next kick_drift: one per step; the chunk's opening kick_drift,
 *             one per --sample-every steps, is left out).
 * The replays move the atoms off the run's trajectory (the integrate replays kick with stale
 * forces), so this runs after everything that reads the final state (the --check). */
#include "core.h"

static double replay(Sim *s, int reps, void (*a)(Sim *), void (*b)(Sim *))
{
    const Variant *v = s->variant;
    a(s);   /* warm-up */
    if (b) b(s);
    v->timer_mark(s, 2);
    for (int k = 0; k < reps; k++) {
        a(s);
        if (b) b(s);
    }
    v->timer_mark(s, 3);
    return v->timer_seconds(s, 2, 3) / reps * 1e6;
}

static void do_list(Sim *s) { s->variant->wrap(s); if (s->variant->build) s->variant->build(s); }
static void do_reorder(Sim *s) { if (s->variant->reorder) s->variant->reorder(s); }
static void do_force(Sim *s) { s->variant->forces(s); }
static void do_props(Sim *s) { s->variant->props(s); }
static void do_kick_drift(Sim *s) { s->variant->kick_drift(s); }
static void do_kick(Sim *s) { s->variant->kick(s); }
static void do_leapfrog(Sim *s) { s->variant->leapfrog(s, 1); }

void stage_timing(Sim *s, RunResult *res)
{
    const Variant *v = s->variant;
    const int reps = s->p.stage_reps, prod = s->p.steps - s->p.equil;
    StageTimes *st = &res->st;
    const int was = s->production;
    s->production = 0;
    st->reps = reps;
    st->us[STAGE_LIST] = replay(s, reps, do_list, NULL);
    st->us[STAGE_REORDER] = v->reorder && s->ran.reorder > 0
                                ? replay(s, reps, do_reorder, do_list) - st->us[STAGE_LIST] : 0;
    if (st->us[STAGE_REORDER] < 0) st->us[STAGE_REORDER] = 0;
    st->us[STAGE_FORCE] = replay(s, reps, do_force, NULL);
    st->us[STAGE_OTHER] = replay(s, reps, do_props, NULL);
    /* integrate: the fused leapfrog kernel (kick, the decision, kick_drift), or split kick_drift
     * and kick; the split device loop's decide kernel (one thread) is in neither, so a fused
     * integrate time holds one decision more than the split one it is compared with */
    st->us[STAGE_INTEGRATE] = s->p.decide == DECIDE_DEVICE && s->p.leapfrog == LEAPFROG_FUSED && v->leapfrog
                                  ? replay(s, reps, do_leapfrog, NULL) : replay(s, reps, do_kick_drift, do_kick);
    st->per_step[STAGE_LIST] = (double)s->stats.builds / prod;
    st->per_step[STAGE_REORDER] = (double)s->stats.reorders / prod;
    st->per_step[STAGE_FORCE] = st->per_step[STAGE_OTHER] = st->per_step[STAGE_INTEGRATE] = 1;
    for (int k = 0; k < NSTAGES; k++) {
        const double bytes = v->stage_bytes ? v->stage_bytes(s, (Stage)k) : -1;
        st->gbs[k] = bytes > 0 && st->us[k] > 0 ? bytes / (st->us[k] * 1e-6) / 1e9 : -1;
    }
    s->production = was;
}
