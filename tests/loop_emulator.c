/* tests/loop_emulator.c - md_loop.c's running-ahead path (--decide device) on the CPU, with a
 * stand-in "device" whose rebuilds need the host, as gpu-dd's do: the displacement test runs
 * in device_decide and, when a rebuild is due at step h, stops the device (later steps change
 * nothing, as gpu-dd's gated kernels); the host finds the stop at a sample point or a look
 * (Variant.run_horizon), the loop replays from h + 1 and that step rebuilds on the host.
 * The forces are cpu-allpairs' own (included below, its main renamed), so the trajectory does
 * not depend on the rebuild schedule: a replay that ran a step twice or skipped one changes the
 * final energy, a rebuild at the wrong step changes the hash of the rebuild steps.
 * Tested by tests/cases_10_core.sh against --decide host on the same start:
 *   NBR_EMU_HORIZON=0   sample points only (gpu-dd before run_horizon)
 *   otherwise           looks at loop_horizon_estimate's steps
 *   --leapfrog fused    the loop's fused order (gpu-layer's --leapfrog fused): one kick_drift
 *                       opening each chunk, then per step rebuild, forces and leapfrog = kick,
 *                       decide and, except at the chunk's last step, the next kick_drift;
 *                       the stand-in rebuild wraps, as the fused GPU loop's does
 * and prints, after the run, how many steps the device was given per step of the run. */
#define main cpu_allpairs_main
#include "../variants/cpu-allpairs.c"
#undef main
#include "../kernels/rebuild_rule.h"

#include <stdio.h>
#include <stdlib.h>

static struct {
    double disp;       /* the device's displacement sum */
    int halted;        /* the step at which it stopped for a rebuild (0: running) */
    int rebuild_at;    /* the step the host rebuilds at */
    long launched;     /* steps handed to the device, stopped ones included */
    int horizon;
    Props device;      /* the device's properties of its last step */
    Props seen;        /* what the host read at the last sample or look: s->props between them,
                          as gpu-dd's (so the horizon works from them) */
} emu;

static void emu_begin(Sim *s)
{
    emu.device = emu.seen = s->props;
    emu.disp = s->disp_acc;
    emu.halted = 0;
    emu.rebuild_at = s->rebuild_due ? s->step + 1 : -1;
}

static void emu_kick_drift(Sim *s)
{
    emu.launched++;
    if (!emu.halted) cpu_kick_drift(s);
}

static void emu_rebuild(Sim *s)
{
    if (s->step != emu.rebuild_at) return;
    emu.rebuild_at = -1;
    cpu_wrap(s);
    loop_rebuild_done(s);
    emu.disp = 0;
}

static void emu_forces(Sim *s)
{
    if (!emu.halted) forces(s);
}

static void emu_kick(Sim *s)
{
    if (emu.halted) return;
    cpu_kick(s);
    cpu_props(s);   /* the step's largest v^2, as the device's kick leaves it */
}

/* md_loop.c's test, on the "device"; the step's properties stay there (forces and kick wrote
 * them into s->props, which goes back to what the host last read) */
static void emu_decide(Sim *s)
{
    if (emu.halted) return;
    emu.device = s->props;
    s->props = emu.seen;
    if (rebuild_after_step(&emu.disp, emu.device.vv_max, s->p.dt, s->p.rebuild_frac * s->p.delta)) emu.halted = s->step;
}

/* --leapfrog fused: the stages of the fused kernel, in its order */
static void emu_leapfrog(Sim *s, int drift)
{
    emu_kick(s);
    emu_decide(s);
    if (drift) emu_kick_drift(s);
}

static int emu_sample(Sim *s)
{
    const int h = emu.halted;
    if (h) {
        if (h > s->step) {
            fprintf(stderr, "loop_emulator: stopped at step %d, after the sample point %d\n", h, s->step);
            exit(4);
        }
        emu.rebuild_at = h + 1;
        s->rebuild_due = 1;
        emu.halted = 0;
        if (h < s->step) {
            s->step = h;
            return h;
        }
    }
    s->disp_acc = emu.disp;
    s->props = emu.seen = emu.device;
    return -1;
}

static int emu_horizon(Sim *s) { return emu.horizon ? loop_horizon_estimate(s) : 0; }

int main(int argc, char **argv)
{
    const char *env = getenv("NBR_EMU_HORIZON");
    emu.horizon = !(env && !strcmp(env, "0"));
    Variant v = variant;
    v.name = "loop-emulator";
    v.summary = "md_loop's running-ahead path on the CPU (cpu-allpairs' forces, a stand-in device)";
    v.knobs |= KNOB_DECIDE | KNOB_LEAPFROG;
    v.device_begin = emu_begin;
    v.kick_drift = emu_kick_drift;
    v.device_rebuild = emu_rebuild;
    v.forces = emu_forces;
    v.kick = emu_kick;
    v.device_decide = emu_decide;
    v.leapfrog = emu_leapfrog;
    v.sample = emu_sample;
    v.run_horizon = emu_horizon;
    const int rc = nbr_main(argc, argv, &v);
    if (emu.launched) printf("loop-emulator: %ld device steps launched\n", emu.launched);
    return rc;
}
