/* md_loop.c - the paper's MD loop, written once, and the main of every variant.
 *
 * Per step: (a) half-kick and drift; (b) if the list is due, wrap the periodic boundaries,
 * reorder if N_R steps have passed, rebuild; (c) forces; (d) half-kick; (e) properties,
 * and the rebuild test: the cumulative maximum displacement, summed from sqrt(max v^2) dt,
 * reaching delta/2; (f) velocity rescaling during equilibration. Only the production steps
 * (after equilibration) are timed; equilibration doubles as the warm-up. */
#include "core.h"
#include "sim.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const stage_names[NSTAGES] = {"list", "force", "integrate", "transfer", "reorder", "other"};

void nbr_fail(int code, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(code);
}

/* Fill NULL stages with the common CPU ones, so the loop never tests for them. */
static Variant resolve(const Variant *v)
{
    Variant r = *v;
    if (!r.kick_drift) r.kick_drift = cpu_kick_drift;
    if (!r.wrap) r.wrap = cpu_wrap;
    if (!r.kick) r.kick = cpu_kick;
    if (!r.props) r.props = cpu_props;
    if (!r.rescale) r.rescale = cpu_rescale;
    if (!r.timer_mark) { r.timer_mark = host_timer_mark; r.timer_seconds = host_timer_seconds; }
    return r;
}

#define TIMED(s, stage, call) \
    do {                      \
        stage_enter(s, stage); \
        call;                 \
        stage_leave(s);       \
    } while (0)

static void rebuild(Sim *s, int *last_reorder)
{
    const Variant *v = s->variant;
    TIMED(s, STAGE_LIST, v->wrap(s));
    if (v->reorder && s->p.reorder > 0 && s->step - *last_reorder >= s->p.reorder) {
        TIMED(s, STAGE_REORDER, v->reorder(s));
        *last_reorder = s->step;
    }
    if (v->build) TIMED(s, STAGE_LIST, v->build(s));
    s->stats.builds_total++;
    if (s->production) {
        s->stats.builds++;
        s->stats.nbr_sum += s->stats.nbr_entries;
    }
    if (s->stats.layers > s->stats.layers_max) s->stats.layers_max = s->stats.layers;
    s->rebuild_due = 0;
    s->disp_acc = 0;
}

static double total_energy(const Sim *s)
{
    return (0.5 * s->props.ukin_sum + s->props.upot_sum) / s->n;
}

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void check_memory(const Sim *s)
{
    /* host arrays: r, v, a, u plus the reference's double forces in check mode */
    double need = (double)s->n * (3 * sizeof(vec3) + sizeof(real)) + (s->p.check ? s->n * 32.0 : 0);
    double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (need > 0.8 * have)
        nbr_fail(3, "%s: N = %d atoms need %.3g GB of host memory, over 80%% of the %.3g GB "
                    "installed: lower --ne", s->variant->name, s->n, need / 1e9, have / 1e9);
}

int nbr_main(int argc, char **argv, const Variant *variant)
{
    static Sim sim;
    Sim *s = &sim;
    Variant v = resolve(variant);
    s->variant = &v;
    params_parse(&s->p, argc, argv, v.knobs, v.name, v.summary);
    const Params *p = &s->p;

    s->n = (int)params_natoms(p);
    s->L = (real)params_box(p);
    s->rn = (real)params_rn(p);
    s->pot.rc2 = (real)(p->rc * p->rc);
    s->pot.shift = (real)p->shift;
    if (p->rc >= 0.5 * params_box(p))
        nbr_fail(2, "%s: --rc %.4g must be below half the box edge L/2 = %.4g (minimum image): raise --ne",
                 v.name, p->rc, 0.5 * params_box(p));
    check_memory(s);
    s->r = nbr_alloc(sizeof(vec3) * s->n, "positions");
    s->v = nbr_alloc(sizeof(vec3) * s->n, "velocities");
    s->a = nbr_alloc(sizeof(vec3) * s->n, "accelerations");
    s->u = nbr_alloc(sizeof(real) * s->n, "per-atom energies");
    state_init(s);
    if (!p->quiet) {
        printf("# nbrlab %s: %s\n", v.name, v.summary);
        params_print(p, v.knobs);
    }
    if (v.init(s) != 0) nbr_fail(1, "%s: initialisation failed", v.name);
    if (!p->quiet && v.device_name) printf("# %-14s = %s\n", "device", v.device_name(s));

    const int prod_steps = p->steps - p->equil;
    double *e_prod = nbr_alloc(sizeof(double) * (prod_steps > 0 ? prod_steps : 1), "energy history");
    int nblocks_max = prod_steps / p->avg_block + 2, nblocks = 0;
    double *block_wall = nbr_alloc(sizeof(double) * nblocks_max, "block timings");
    int last_reorder = 0;

    /* Step 0: build and forces for the initial state (not timed). */
    rebuild(s, &last_reorder);
    v.forces(s);
    v.props(s);
    if (!p->quiet)
        printf("# step 0: E/N = %.8f  U/N = %.8f  T = %.6f  G = %d  layers = %d  nbr/atom = %.3f\n",
               total_energy(s), s->props.upot_sum / s->n, s->props.ukin_sum / (3.0 * s->n),
               s->stats.cells_per_axis, s->stats.layers, s->stats.nbr_entries / s->n);

    double rescale_acc = 0, block_e = 0, block_t = 0, wall0 = 0, block_t0 = 0;
    int timed_in_block = 0;
    for (int step = 1; step <= p->steps; step++) {
        s->step = step;
        if (step == p->equil + 1) {
            s->production = 1;
            timers_flush(s);
            memset(s->t_stage, 0, sizeof s->t_stage);
            wall0 = block_t0 = wall_seconds();
        }
        TIMED(s, STAGE_INTEGRATE, v.kick_drift(s));
        if (s->rebuild_due) rebuild(s, &last_reorder);
        TIMED(s, STAGE_FORCE, v.forces(s));
        TIMED(s, STAGE_INTEGRATE, v.kick(s));
        TIMED(s, STAGE_OTHER, v.props(s));

        s->disp_acc += sqrt(s->props.vv_max) * p->dt;
        if (s->disp_acc >= 0.5 * p->delta) s->rebuild_due = 1;

        if (!s->production) {
            rescale_acc += s->props.ukin_sum;
            if (step % p->rescale_every == 0) {
                double target = 3 * p->temp * (s->n - 1);
                TIMED(s, STAGE_OTHER, v.rescale(s, sqrt(target / (rescale_acc / p->rescale_every))));
                rescale_acc = 0;
            }
        } else {
            e_prod[step - p->equil - 1] = total_energy(s);
            timed_in_block++;
        }
        block_e += total_energy(s);
        block_t += s->props.ukin_sum / (3.0 * s->n);
        if (step % p->avg_block == 0 || step == p->steps) {
            int len = step % p->avg_block ? step % p->avg_block : p->avg_block;
            double block_us = 0;  /* us per atom-step of this block's timed steps */
            if (timed_in_block) {
                timers_flush(s);
                double now = wall_seconds(), per_step = (now - block_t0) / timed_in_block;
                if (nblocks < nblocks_max) block_wall[nblocks++] = per_step;
                block_us = per_step / s->n * 1e6;
                block_t0 = now;
                timed_in_block = 0;
            }
            if (!p->quiet)
                printf("# step %d: <E/N> = %.8f  <T> = %.6f  E/N = %.8f  U/N = %.8f  builds = %ld"
                       "  block_us_per_atom_step = %.6g\n",
                       step, block_e / len, block_t / len, total_energy(s), s->props.upot_sum / s->n,
                       s->stats.builds_total, block_us);
            block_e = block_t = 0;
        }
    }
    timers_flush(s);
    double wall = prod_steps > 0 ? wall_seconds() - wall0 : 0;

    /* Energy drift: mean over a window at each end of production (fluctuations average out). */
    RunResult res = {.wall = wall, .nblocks = nblocks};
    if (prod_steps > 0) {
        int win = prod_steps / 10 < p->avg_block ? prod_steps / 10 : p->avg_block;
        if (win < 1) win = 1;
        for (int k = 0; k < win; k++) {
            res.e_start += e_prod[k] / win;
            res.e_end += e_prod[prod_steps - 1 - k] / win;
        }
        res.drift = (res.e_end - res.e_start) / fabs(res.e_start);
        qsort(block_wall, nblocks, sizeof(double), compare_doubles);
        if (nblocks)
            res.step_median = nblocks % 2 ? block_wall[nblocks / 2]
                                          : 0.5 * (block_wall[nblocks / 2 - 1] + block_wall[nblocks / 2]);
    }
    int status = 0;
    if (p->check) status = check_run(s);
    report_summary(s, &res);
    report_csv(s, &res, status ? "check-failed" : "ok");
    if (v.finish) v.finish(s);
    free(e_prod);
    free(block_wall);
    return status ? 1 : 0;
}
