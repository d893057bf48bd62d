/* cpu-allpairs - O(N^2) forces over all pairs with the minimum image, Newton 3.
 * No neighbour structure and no rebuilds: the baseline every other variant is checked
 * against (in double it is the reference algorithm; in float it shows float's error). */
#include "../common/core.h"
#include "../common/pbc.h"
#include "../kernels/cpu/stages.h"

#include <stdio.h>
#include <string.h>

/* about 1 ns a pair distance (0.9 ns measured on the 2-core CPU at N = 16384, load 3) */
#define NS_PER_PAIR 1.0

/* A long run says so before it starts: N^2/2 pairs a force call, one call a step plus the
 * first (and the reference's, with --check) */
static void say_estimate(const Sim *s)
{
    const double calls = s->p.steps + 1 + (s->p.check ? 1 : 0);
    const double sec = 0.5 * (double)s->n * (double)s->n * calls * NS_PER_PAIR * 1e-9;
    if (sec < 60) return;
    fprintf(stderr, "cpu-allpairs: estimated %.3g %s for %d steps of %d atoms (N^2/2 pairs a step, about 1 ns "
            "each); --steps or --ne shortens it\n", sec >= 7200 ? sec / 3600 : sec / 60,
            sec >= 7200 ? "hours" : "minutes", s->p.steps, s->n);
}

static int init(Sim *s)
{
    say_estimate(s);
    s->stats.bytes = (double)s->n * (3 * sizeof(vec3) + sizeof(real));
    s->stats.nbr_entries = 0;
    return 0;
}

static void forces(Sim *s)
{
    const real L = s->L;
    const PairPotential pot = s->pot;
    double upot = 0, virial = 0;
    memset(s->a, 0, sizeof(vec3) * s->n);
    memset(s->u, 0, sizeof(real) * s->n);
    for (int i = 0; i < s->n; i++) {
        nbr_poll_interrupt(s);   /* one row is up to N pairs: a step at 8M atoms takes hours */
        vec3 ri = s->r[i], fi = {0, 0, 0};
        for (int j = i + 1; j < s->n; j++) {
            real dx = pbc_delta(ri.x, s->r[j].x, L), dy = pbc_delta(ri.y, s->r[j].y, L),
                 dz = pbc_delta(ri.z, s->r[j].z, L);
            real r2 = dx * dx + dy * dy + dz * dz;
            if (r2 >= pot.rc2) continue;
            real fr, u = pair_u(pot, r2, s->q[i] * s->q[j], &fr);
            fi.x += fr * dx; fi.y += fr * dy; fi.z += fr * dz;
            s->a[j].x -= fr * dx; s->a[j].y -= fr * dy; s->a[j].z -= fr * dz;
            s->u[i] += (real)0.5 * u;
            s->u[j] += (real)0.5 * u;
            upot += u;
            virial += fr * r2;
        }
        s->a[i].x += fi.x; s->a[i].y += fi.y; s->a[i].z += fi.z;
    }
    s->props.upot_sum = upot;
    s->props.virial_sum = virial;
}

static const Variant variant = {
    .name = "cpu-allpairs",
    .summary = "O(N^2) all-pairs forces, minimum image, Newton 3 (the reference)",
    .has_u = 1,
    .init = init,
    CPU_COMMON_STAGES,
    .forces = forces,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
