/* pbc.h - periodic boundaries of the cubic region [-L/2, L/2)^3, centred at the origin
 * as in the paper. Shared by CPU and GPU code. */
#ifndef NBR_PBC_H
#define NBR_PBC_H

#include "real.h"

/* Bring one coordinate back into [-L/2, L/2). Atoms move far less than L per step, so one
 * correction suffices; the second test catches x == L/2 after rounding. */
NBR_HD real pbc_wrap(real x, real L)
{
    if (x >= (real)0.5 * L) x -= L;
    else if (x < (real)-0.5 * L) x += L;
    if (x >= (real)0.5 * L) x -= L;
    return x;
}

/* Minimum-image separation a - b of two wrapped coordinates. For a pair across the boundary
 * the image is formed as (a -+ L/2) - (b +- L/2) rather than (a - b) -+ L: both halves are
 * computed with the atoms' own magnitudes, so the result carries one rounding instead of
 * two that can cancel badly when |a - b| is close to L (seen in float at ne 40: 2.5e-4
 * relative force error, 2e-5 with this form). */
NBR_HD real pbc_delta(real a, real b, real L)
{
    const real h = (real)0.5 * L, d = a - b;
    return d >= h ? (a - h) - (b + h) : (d < -h ? (a + h) - (b - h) : d);
}

/* Minimum-image separation component (valid for |d| < 1.5 L). */
NBR_HD real pbc_nearest(real d, real L)
{
    if (d >= (real)0.5 * L) d -= L;
    else if (d < (real)-0.5 * L) d += L;
    return d;
}

#endif
