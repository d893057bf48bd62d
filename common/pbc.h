/* pbc.h - periodic boundaries of the cubic region [-L/2, L/2)^3, centred at the origin
 * as in the paper. The one definition of the wrap and the minimum image, used by the host
 * C code, the CUDA kernels and (in double) the reference. */
#ifndef NBR_PBC_H
#define NBR_PBC_H

#include "real.h"

#include <math.h>

/* Bring one coordinate back into [-L/2, L/2). Atoms move far less than L per step, so one
 * correction suffices; the second test catches x == L/2 after rounding. */
NBR_HD real pbc_wrap(real x, real L)
{
    if (x >= (real)0.5 * L) x -= L;
    else if (x < (real)-0.5 * L) x += L;
    if (x >= (real)0.5 * L) x -= L;
    return x;
}

/* Minimum-image separation a - b of two wrapped coordinates, without branches (selects
 * vectorise). Across the boundary it is formed as (a - s) - (b + s) with s = +-L/2, not
 * (a - b) -+ L: each half carries one rounding at the atoms' own magnitudes (Sterbenz: a ~ s,
 * b ~ -s), instead of the rounding of |a - b| ~ L that subtracting L then exposes (in float
 * at ne 40: 2.5e-4 relative force error the other way, 2e-5 this way; SP's r^-14 amplifies
 * it). Written once as a body for both types: `real` for the variants, double for the
 * reference whatever the build's precision. */
#define NBR_PBC_DELTA_BODY(T)                                  \
    {                                                          \
        const T h = (T)0.5 * L, d = a - b;                     \
        const T s = d >= h ? h : (d < -h ? -h : (T)0);         \
        return (a - s) - (b + s);                              \
    }
NBR_HD real pbc_delta(real a, real b, real L) NBR_PBC_DELTA_BODY(real)
NBR_HD double pbc_delta_double(double a, double b, double L) NBR_PBC_DELTA_BODY(double)
#undef NBR_PBC_DELTA_BODY

/* The box as the GPU pair loops take it: L, L/2 and 1/L formed once, not per pair. */
typedef struct { real L, h, inv_L; } PbcBox;
NBR_HD PbcBox pbc_box(real L)
{
    PbcBox b = {L, (real)0.5 * L, (real)1 / L};
    return b;
}

/* rint in the argument's own precision, in C as in CUDA C++ */
#ifdef __cplusplus
#define NBR_RINT(x) rint(x)
#else
#define NBR_RINT(x) _Generic((x), float: rintf, default: rint)(x)
#endif

/* pbc_delta with the shift from rint (k = rint(d / L) in {-1, 0, 1} for |d| < 1.5 L) instead of
 * two compares and selects: fewer instructions in the GPU pair loops, the same split form
 * (a - s) - (b + s) (h k is exact). The same bits as pbc_delta except where |a - b| is within
 * a few ulp of L/2 (rint's tie and the rounding of d / L), where either image is ~L/2 away:
 * beyond r_n < L/2 (tests/test_core.c compares them). */
NBR_HD real pbc_delta_rint(real a, real b, PbcBox box)
{
    const real s = box.h * NBR_RINT((a - b) * box.inv_L);
    return (a - s) - (b + s);
}

#endif
