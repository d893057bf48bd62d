/* stages.c - the common CPU stages: leapfrog, periodic wrap, properties, rescaling,
 * reordering (see stages.h). */
#include "stages.h"

#include "../../common/pbc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void cpu_kick_drift(Sim *s)
{
    const real h = (real)(0.5 * s->p.dt), dt = (real)s->p.dt;
    for (int i = 0; i < s->n; i++) {
        s->v[i].x += h * s->a[i].x; s->v[i].y += h * s->a[i].y; s->v[i].z += h * s->a[i].z;
        s->r[i].x += dt * s->v[i].x; s->r[i].y += dt * s->v[i].y; s->r[i].z += dt * s->v[i].z;
    }
}

void cpu_kick(Sim *s)
{
    const real h = (real)(0.5 * s->p.dt);
    for (int i = 0; i < s->n; i++) {
        s->v[i].x += h * s->a[i].x; s->v[i].y += h * s->a[i].y; s->v[i].z += h * s->a[i].z;
    }
}

void cpu_wrap(Sim *s)
{
    for (int i = 0; i < s->n; i++) {
        s->r[i].x = pbc_wrap(s->r[i].x, s->L);
        s->r[i].y = pbc_wrap(s->r[i].y, s->L);
        s->r[i].z = pbc_wrap(s->r[i].z, s->L);
    }
}

void cpu_props(Sim *s)
{
    double sum = 0, vvmax = 0;
    for (int i = 0; i < s->n; i++) {
        double vv = (double)s->v[i].x * s->v[i].x + (double)s->v[i].y * s->v[i].y +
                    (double)s->v[i].z * s->v[i].z;
        sum += vv;
        if (vv > vvmax) vvmax = vv;
    }
    s->props.ukin_sum = sum;
    s->props.vv_max = vvmax;
}

void cpu_rescale(Sim *s, double factor)
{
    const real f = (real)factor;
    for (int i = 0; i < s->n; i++) { s->v[i].x *= f; s->v[i].y *= f; s->v[i].z *= f; }
}

void reorder_atoms(Sim *s, const int *order)
{
    vec3 *tmp = nbr_alloc(sizeof(vec3) * s->n, "reorder buffer");
    vec3 *arrays[3] = {s->r, s->v, s->a};
    for (int k = 0; k < 3; k++) {
        for (int i = 0; i < s->n; i++) tmp[i] = arrays[k][order[i]];
        memcpy(arrays[k], tmp, sizeof(vec3) * s->n);
    }
    real *q = (real *)tmp;   /* the charges move with their atoms */
    for (int i = 0; i < s->n; i++) q[i] = s->q[order[i]];
    memcpy(s->q, q, sizeof(real) * s->n);
    free(tmp);
}
