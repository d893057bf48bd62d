/* cpu-cells - forces straight from linked-list cells, no neighbour list.
 *
 * Why this shape: the paper's starting point (the O(N) cell method before neighbour lists).
 * Cells are only r_c wide and atoms are reassigned to them at every force evaluation, so
 * nothing depends on the shell delta and no list is stored; the price is that every step
 * examines all pairs in the 27-cell neighbourhood (about 27 rho r_c^3 / 2 per atom, most of
 * them beyond r_c), the cost the neighbour list exists to avoid. The cell itself and 13 of
 * its neighbours are scanned, each pair once, Newton 3.
 * Since cells are rebuilt every step, positions are wrapped into the box every step too
 * (between list rebuilds the loop lets them drift up to delta/2 outside, which would put an
 * atom in the wrong r_c cell); that wrap and the cell assignment are part of the force stage.
 * The loop's rebuild (every delta/2 of displacement) only wraps and, every --reorder steps,
 * reorders atoms in cell order. */
#include "../kernels/cpu/cpu_lists.h"

#include <stdlib.h>
#include <string.h>

typedef struct {
    LinkedCells lc;
} Ctx;

typedef struct {
    vec3 *restrict a;
    const real *q;
    PairPotential pot;
    double upot, virial;
} ForceSum;

static int init(Sim *s)
{
    require_host_reorder(s);
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    lcells_init(&c->lc, s, s->p.rc);
    s->stats.nbr_entries = 0;
    s->stats.bytes = state_bytes(s) + lcells_bytes(&c->lc, s->n);
    return 0;
}

static void finish(Sim *s)
{
    Ctx *c = s->ctx;
    lcells_free(&c->lc);
    free(c);
}

static int reorder(Sim *s) { return lcells_reorder(&((Ctx *)s->ctx)->lc, s); }

static void add_pair_force(void *arg, int i, int j, real dx, real dy, real dz, real r2, int code,
                           int within)
{
    if (!within) return;
    ForceSum *fs = arg;
    real fr;
    fs->upot += pair_u(fs->pot, r2, fs->q[i] * fs->q[j], &fr);
    fs->virial += fr * r2;
    fs->a[i].x += fr * dx; fs->a[i].y += fr * dy; fs->a[i].z += fr * dz;
    fs->a[j].x -= fr * dx; fs->a[j].y -= fr * dy; fs->a[j].z -= fr * dz;
}

static void forces(Sim *s)
{
    Ctx *c = s->ctx;
    cpu_wrap(s);            /* cells of width r_c hold only atoms inside the box */
    lcells_assign(&c->lc, s);
    ForceSum fs = {.a = s->a, .q = s->q, .pot = s->pot};
    memset(s->a, 0, sizeof(vec3) * s->n);
    half_shell_pairs(&c->lc, s->r, s->pot.rc2, add_pair_force, &fs);
    s->props.upot_sum = fs.upot;
    s->props.virial_sum = fs.virial;
}

/* The cells are this variant's neighbour structure: --check enumerates the pairs their walk
 * finds within r_c (pair_cutoff < 0) against brute force. */
typedef struct {
    PairFn fn;
    void *arg;
} PairVisit;

static void visit_pair(void *arg, int i, int j, real dx, real dy, real dz, real r2, int code, int within)
{
    PairVisit *pv = arg;
    if (within) pv->fn(i, j, pv->arg);
}

static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    Ctx *c = s->ctx;
    PairVisit pv = {fn, arg};
    lcells_assign(&c->lc, s);
    half_shell_pairs(&c->lc, s->r, s->pot.rc2, visit_pair, &pv);
}

static const Variant variant = {
    .name = "cpu-cells",
    .summary = "linked-list cells of width >= r_c, reassigned every step; forces from 14 cells, Newton 3, no list",
    .knobs = KNOB_REORDER,
    .pair_multiplicity = 1,
    .pair_cutoff = -1,
    .init = init,
    .finish = finish,
    CPU_COMMON_STAGES,
    .reorder = reorder,
    .forces = forces,
    .for_each_pair = for_each_pair,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
