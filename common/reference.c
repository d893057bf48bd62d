/* reference.c - O(N^2) forces and energies in double precision, minimum image.
 * The yardstick every variant is checked against; simple on purpose. fmag (may be NULL)
 * receives each atom's sum of pair-force magnitudes: the scale rounding errors work on. */
#include "core.h"

#include <math.h>
#include <string.h>

/* pbc_delta's form in double whatever the build's precision (pbc.h works in `real`). */
double ref_delta(double a, double b, double L)
{
    const double h = 0.5 * L, d = a - b;
    return d >= h ? (a - h) - (b + h) : (d < -h ? (a + h) - (b - h) : d);
}

void reference_forces(const Sim *s, double (*f)[3], double *u, double *fmag, double *upot)
{
    const double L = s->L, rc2 = (double)s->p.rc * s->p.rc, shift = s->p.shift;
    memset(f, 0, sizeof(double[3]) * s->n);
    memset(u, 0, sizeof(double) * s->n);
    if (fmag) memset(fmag, 0, sizeof(double) * s->n);
    double total = 0;
    for (int i = 0; i < s->n; i++) {
        double ri[3] = {s->r[i].x, s->r[i].y, s->r[i].z};
        for (int j = i + 1; j < s->n; j++) {
            double d[3] = {ref_delta(ri[0], s->r[j].x, L), ref_delta(ri[1], s->r[j].y, L),
                           ref_delta(ri[2], s->r[j].z, L)};
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= rc2) continue;
            double ri2 = 1 / r2, ri6 = ri2 * ri2 * ri2;
            double fr = 48 * ri6 * (ri6 - 0.5) * ri2, uij = 4 * ri6 * (ri6 - 1) + shift;
            for (int k = 0; k < 3; k++) { f[i][k] += fr * d[k]; f[j][k] -= fr * d[k]; }
            if (fmag) {
                double m = fabs(fr) * sqrt(r2);
                fmag[i] += m;
                fmag[j] += m;
            }
            u[i] += 0.5 * uij;
            u[j] += 0.5 * uij;
            total += uij;
        }
    }
    *upot = total;
}
