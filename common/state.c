/* state.c - the initial state: positions by --config, velocities of magnitude sqrt(3T) in
 * random directions with the centre of mass at rest (the paper's start). */
#include "core.h"
#include "pbc.h"
#include "rng.h"
#include "sim.h"

#include <math.h>

static void random_direction(Rng *g, double out[3])
{
    /* Marsaglia: uniform on the sphere without trigonometry bias. */
    double a, b, s;
    do {
        a = 2 * rng_uniform(g) - 1;
        b = 2 * rng_uniform(g) - 1;
        s = a * a + b * b;
    } while (s >= 1);
    double f = 2 * sqrt(1 - s);
    out[0] = a * f; out[1] = b * f; out[2] = 1 - 2 * s;
}

/* Lattice sites: the paper's simple cubic start, (i + 1/2) a - L/2, or the face-centred cubic
 * one of LAMMPS's bench/in.lj (4 sites per unit cell of edge a = L / ne, the basis (0,0,0),
 * (1/2,1/2,0), (1/2,0,1/2), (0,1/2,1/2) shifted by a/4 so no site sits on a box face).
 * Atoms are numbered cell by cell, x fastest. Jitter is in units of the nearest-neighbour
 * distance (a for sc, a/sqrt 2 for fcc). */
static void place_lattice(Sim *s, Rng *g, double jitter)
{
    static const double sc_basis[1][3] = {{0.5, 0.5, 0.5}};
    static const double fcc_basis[4][3] = {{0.25, 0.25, 0.25}, {0.75, 0.75, 0.25}, {0.75, 0.25, 0.75},
                                           {0.25, 0.75, 0.75}};
    const int fcc = s->p.lattice == LATTICE_FCC, nb = fcc ? 4 : 1;
    const double(*basis)[3] = fcc ? fcc_basis : sc_basis;
    int ne = s->p.ne, k = 0;
    double a = (double)s->L / ne, spacing = fcc ? a / sqrt(2.0) : a;
    for (int z = 0; z < ne; z++)
        for (int y = 0; y < ne; y++)
            for (int x = 0; x < ne; x++)
                for (int b = 0; b < nb; b++, k++) {
                    double p[3] = {(x + basis[b][0]) * a, (y + basis[b][1]) * a, (z + basis[b][2]) * a};
                    for (int d = 0; d < 3; d++) p[d] += jitter * spacing * (rng_uniform(g) - 0.5) - 0.5 * s->L;
                    s->r[k].x = pbc_wrap((real)p[0], s->L);
                    s->r[k].y = pbc_wrap((real)p[1], s->L);
                    s->r[k].z = pbc_wrap((real)p[2], s->L);
                }
}

/* Atoms exactly on cell faces (multiples of the cell width w, including -L/2 and, before
 * wrapping, +L/2), the rest jittered: exercises the cell-assignment and image rounding.
 * Cell width is that of the r_n grid, the one most variants use. */
static void place_boundary(Sim *s, Rng *g)
{
    place_lattice(s, g, 0.3);
    int G = (int)floor((double)s->L / (double)s->rn);
    if (G < 1) G = 1;
    double w = (double)s->L / G;
    for (int i = 0; i < s->n; i += 3) {
        real *c = (i / 3 % 3 == 0) ? &s->r[i].x : (i / 3 % 3 == 1) ? &s->r[i].y : &s->r[i].z;
        int face = (int)floor(((double)*c + 0.5 * s->L) / w + 0.5); /* nearest face, 0..G */
        *c = pbc_wrap((real)(face * w - 0.5 * s->L), s->L);
    }
}

/* --config approach: the pair the rebuild rule must not lose. Atoms 0 and 1, r_n + 0.01 apart
 * (just outside the step-0 list), close head-on, each at the largest speed sqrt(3T); the
 * rest sit still on sites too far apart to interact. Between builds each atom moves less
 * than rebuild_frac delta, so the pair closes by under 2 rebuild_frac delta: under delta
 * (0.5) it never comes within r_c unlisted; at 0.6 it may come to r_n + 0.01 - 1.2 delta. */
static void place_approach(Sim *s)
{
    const double a = (double)s->L / s->p.ne, spacing = s->p.lattice == LATTICE_FCC ? a / sqrt(2.0) : a;
    if (s->n < 2 || !(spacing > 2 * (double)s->rn))
        nbr_fail(EXIT_INPUT, "%s: --config approach needs lattice sites over 2 r_n = %.4g apart (they are %.4g): "
                 "lower --rho", s->variant->name, 2 * (double)s->rn, spacing);
    s->r[1] = s->r[0];
    s->r[1].x = pbc_wrap((real)((double)s->r[0].x + (double)s->rn + 0.01), s->L);
    const real v = (real)sqrt(3 * s->p.temp);
    for (int i = 0; i < s->n; i++) s->v[i].x = s->v[i].y = s->v[i].z = 0;
    s->v[0].x = v;
    s->v[1].x = -v;
}

void state_init(Sim *s)
{
    Rng g;
    rng_seed(&g, s->p.seed);
    switch (s->p.config) {
    case CONFIG_LATTICE: case CONFIG_APPROACH: place_lattice(s, &g, 0.0); break;
    case CONFIG_JITTER: place_lattice(s, &g, 0.4); break;
    case CONFIG_BOUNDARY: place_boundary(s, &g); break;
    case CONFIG_RANDOM:
        for (int i = 0; i < s->n; i++) {
            s->r[i].x = pbc_wrap((real)((rng_uniform(&g) - 0.5) * s->L), s->L);
            s->r[i].y = pbc_wrap((real)((rng_uniform(&g) - 0.5) * s->L), s->L);
            s->r[i].z = pbc_wrap((real)((rng_uniform(&g) - 0.5) * s->L), s->L);
        }
        break;
    }
    /* charges +-1 in a rock-salt pattern: on the lattice by site parity (neighbours opposite;
     * other configs keep the same assignment by index); an even ne makes the sum zero */
    const int ne = s->p.ne;
    for (int i = 0; i < s->n; i++)
        s->q[i] = s->p.potential == POT_LJ_COULSF ? (real)(((i % ne + i / ne % ne + i / (ne * ne)) % 2) ? -1 : 1) : 0;
    double vmag = sqrt(3 * s->p.temp), sum[3] = {0, 0, 0}, dir[3];
    for (int i = 0; i < s->n; i++) {
        random_direction(&g, dir);
        s->v[i].x = (real)(vmag * dir[0]); s->v[i].y = (real)(vmag * dir[1]); s->v[i].z = (real)(vmag * dir[2]);
        sum[0] += s->v[i].x; sum[1] += s->v[i].y; sum[2] += s->v[i].z;
    }
    for (int i = 0; i < s->n; i++) {
        s->v[i].x -= (real)(sum[0] / s->n); s->v[i].y -= (real)(sum[1] / s->n); s->v[i].z -= (real)(sum[2] / s->n);
        s->a[i].x = s->a[i].y = s->a[i].z = 0;
    }
    if (s->p.config == CONFIG_APPROACH) place_approach(s);
}
