/* reference.c - O(N^2) forces and energies, minimum image: the yardstick every variant is
 * checked against. Simple on purpose, and more exact than what it checks: sums are kept in
 * long double (a plain double running sum over ~1e5 pair energies drifts by ~1e-12, the
 * whole double tolerance), the pair separation in double from pbc_delta's form. Besides
 * forces and energies it reports, per atom, the scales a fair comparison needs (Reference). */
#include "core.h"
#include "pbc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

void reference_compute(const Sim *s, double band, Reference *ref)
{
    const int n = s->n;
    const double L = s->L, rc = s->p.rc, rc2 = rc * rc;
    long double (*f)[3] = calloc((size_t)n, sizeof *f), *u = calloc((size_t)n, sizeof *u), total = 0, virial = 0, virial_abs = 0;
    ref->f = calloc((size_t)n, sizeof *ref->f);
    ref->u = calloc((size_t)n, sizeof *ref->u);
    ref->fmag = calloc((size_t)n, sizeof *ref->fmag);
    ref->umag = calloc((size_t)n, sizeof *ref->umag);
    ref->fband = calloc((size_t)n, sizeof *ref->fband);
    ref->uband = calloc((size_t)n, sizeof *ref->uband);
    if (!f || !u || !ref->f || !ref->u || !ref->fmag || !ref->umag || !ref->fband || !ref->uband)
        nbr_fail(3, "reference: cannot allocate the per-atom arrays for N = %d", n);
    ref->border_pairs = 0;
    ref->uband_total = 0;
    ref->virial_band = 0;
    for (int i = 0; i < n; i++) {
        nbr_poll_interrupt(s);   /* O(N^2): at large N it runs for minutes */
        double ri[3] = {s->r[i].x, s->r[i].y, s->r[i].z};
        for (int j = i + 1; j < n; j++) {
            double d[3] = {pbc_delta_double(ri[0], s->r[j].x, L), pbc_delta_double(ri[1], s->r[j].y, L),
                           pbc_delta_double(ri[2], s->r[j].z, L)};
            double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            if (r2 >= (rc + band) * (rc + band)) continue;
            double fr, r = sqrt(r2), uij = pair_u_double(s->pot, r2, (double)s->q[i] * s->q[j], &fr);
            if (fabs(r - rc) <= band) {
                /* within rounding of r_c: the variant may count this pair or not */
                ref->fband[i] += fabs(fr) * r; ref->fband[j] += fabs(fr) * r;
                ref->uband[i] += 0.5 * fabs(uij); ref->uband[j] += 0.5 * fabs(uij);
                ref->uband_total += fabs(uij);
                ref->virial_band += fabs(fr) * r2;
                ref->border_pairs++;
            }
            if (r2 >= rc2) continue;
            for (int k = 0; k < 3; k++) { f[i][k] += fr * d[k]; f[j][k] -= fr * d[k]; }
            ref->fmag[i] += fabs(fr) * r;
            ref->fmag[j] += fabs(fr) * r;
            ref->umag[i] += 0.5 * fabs(uij);
            ref->umag[j] += 0.5 * fabs(uij);
            u[i] += 0.5L * uij;
            u[j] += 0.5L * uij;
            total += uij;
            virial += fr * r2;   /* r_ij . f_ij */
            virial_abs += fabs(fr) * r2;
        }
    }
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < 3; k++) ref->f[i][k] = (double)f[i][k];
        ref->u[i] = (double)u[i];
    }
    ref->upot = (double)total;
    ref->virial = (double)virial;
    ref->virial_abs = (double)virial_abs;
    free(f);
    free(u);
}

void reference_free(Reference *ref)
{
    free(ref->f); free(ref->u); free(ref->fmag); free(ref->umag); free(ref->fband); free(ref->uband);
    memset(ref, 0, sizeof *ref);
}
