/* tests/check_plant.c - --check against a variant made wrong on purpose: cpu-grouped's stages
 * (included below, its main renamed) with one planted fault, chosen by the first argument:
 *   test-plant FAULT [SIZE] ARGS...   FAULT one of
 *     none     cpu-grouped as it is (the check must pass)
 *     force    atom 0's force off by SIZE times its magnitude (default 1e-3)
 *     virial   the virial off by SIZE times its magnitude (default 1e-2)
 *     energy   the total potential energy off by SIZE times its magnitude (default 1e-3)
 *     shift    the potential shift left out of the forces stage (the reference keeps it)
 *     pair     the first stored pair left out of the pairs the structure reports
 * The faults live in this test program only, so the programs carry no fault-injection hook.
 * Tested by tests/cases_22_trust.sh (check-plant-*): --check must fail on each, on its own
 * line, and pass with none. */
#define main cpu_grouped_main
#include "../variants/cpu-grouped.c"
#undef main

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { NONE, FORCE, VIRIAL, ENERGY, SHIFT, PAIR, NFAULTS };
static const char *const fault_names[NFAULTS] = {"none", "force", "virial", "energy", "shift", "pair"};
static const double default_size[NFAULTS] = {0, 1e-3, 1e-2, 1e-3, 0, 0};
static int fault;
static double size;

static void planted_forces(Sim *s)
{
    const real shift = s->pot.shift;
    if (fault == SHIFT) s->pot.shift = 0;
    forces(s);
    s->pot.shift = shift;
    if (fault == FORCE) {
        const double f = sqrt((double)s->a[0].x * s->a[0].x + (double)s->a[0].y * s->a[0].y +
                              (double)s->a[0].z * s->a[0].z);
        s->a[0].x += (real)(size * f);
    }
    if (fault == VIRIAL) s->props.virial_sum += size * fabs(s->props.virial_sum);
    if (fault == ENERGY) s->props.upot_sum += size * fabs(s->props.upot_sum);
}

typedef struct {
    PairFn fn;
    void *arg;
    int dropped;
} Dropper;

static void drop_first(int i, int j, void *arg)
{
    Dropper *d = arg;
    if (!d->dropped) { d->dropped = 1; printf("planted: pair (%d, %d) left out\n", i, j); return; }
    d->fn(i, j, d->arg);
}

static void planted_pairs(Sim *s, PairFn fn, void *arg)
{
    Dropper d = {fn, arg, fault != PAIR};
    grouped_stage_pairs(s, d.dropped ? fn : drop_first, d.dropped ? arg : &d);
}

int main(int argc, char **argv)
{
    fault = -1;
    for (int k = 0; argc > 1 && k < NFAULTS; k++)
        if (strcmp(argv[1], fault_names[k]) == 0) fault = k;
    if (fault < 0) {
        fprintf(stderr, "usage: test-plant none|force|virial|energy|shift|pair [SIZE] ARGS...\n");
        return 2;
    }
    size = default_size[fault];
    int skip = 2;
    char *end;
    if (argc > 2 && argv[2][0] != '-') {
        size = strtod(argv[2], &end);
        if (*end) { fprintf(stderr, "test-plant: SIZE %s is not a number\n", argv[2]); return 2; }
        skip = 3;
    }
    Variant v = variant;
    v.name = "cpu-grouped";
    v.forces = planted_forces;
    v.for_each_pair = planted_pairs;
    argv[skip - 1] = argv[0];
    return nbr_main(argc - skip + 1, argv + skip - 1, &v);
}
