/* potential.h - the pair interactions, one definition shared by the reference (in double),
 * the CPU variants and the GPU kernels (in `real`). Chosen at run time (--potential, set by
 * the --system preset); a variant's loop is written once and calls pair_u.
 *
 * Reduced units (sigma = epsilon = mass = 1), f_ij = fr * r_ij, working from r^2:
 *   lj         u(r) = 4 (r^-12 - r^-6) + shift, r < r_c. SP ("soft sphere", WCA): r_c =
 *              2^(1/6), shift = +1 so u(r_c) = 0; LJ: r_c = 3, shift 0 (the paper truncates
 *              without shifting). fr = 48 r^-2 (r^-12 - r^-6/2).
 *   lj-coulsf  the LJ term above plus shifted-force Coulomb between charges q_i q_j (in units
 *              of sqrt(4 pi eps0 epsilon sigma)), both cut at r_c (RUMD's molten salt):
 *              u_c(r) = q_i q_j (1/r - 1/r_c + (r - r_c)/r_c^2),
 *              fr_c   = q_i q_j (1/r^3 - 1/(r_c^2 r)); u_c and the force vanish at r_c. */
#ifndef NBR_POTENTIAL_H
#define NBR_POTENTIAL_H

#include "real.h"

#include <math.h>

/* sqrt in the argument's own precision, in C as in CUDA C++ */
#ifdef __cplusplus
#define NBR_SQRT(x) sqrt(x)
#else
#define NBR_SQRT(x) _Generic((x), float: sqrtf, default: sqrt)(x)
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { POT_LJ, POT_LJ_COULSF } PotentialKind;
extern const char *const potential_names[];

typedef struct {
    int kind;       /* PotentialKind */
    real rc2;       /* cutoff squared */
    real shift;     /* energy added to the LJ term inside the cutoff */
    real rc, rc_inv, rc_inv2;   /* r_c, 1/r_c, 1/r_c^2 (shifted-force Coulomb) */
} PairPotential;

/* The parameters for cutoff rc and LJ shift. */
PairPotential potential_make(int kind, double rc, double shift);

#ifdef __cplusplus
}
#endif

/* The pair's u(r) and force factor *fr, for r2 < rc2; qq = q_i q_j (ignored by lj). One body
 * for both types: `real` for the variants, double for the reference. */
#define NBR_PAIR_U_BODY(T)                                                                  \
    {                                                                                       \
        const T ri2 = (T)1 / r2, ri6 = ri2 * ri2 * ri2;                                     \
        T f = (T)48 * ri6 * (ri6 - (T)0.5) * ri2, u = (T)4 * ri6 * (ri6 - (T)1) + (T)pot.shift; \
        if (pot.kind == POT_LJ_COULSF) {                                                    \
            const T ri = NBR_SQRT(ri2), r = r2 * ri;                                            \
            f += qq * (ri2 * ri - (T)pot.rc_inv2 * ri);                                     \
            u += qq * (ri - (T)pot.rc_inv + (r - (T)pot.rc) * (T)pot.rc_inv2);              \
        }                                                                                   \
        *fr = f;                                                                            \
        return u;                                                                           \
    }
NBR_HD real pair_u(PairPotential pot, real r2, real qq, real *fr) NBR_PAIR_U_BODY(real)
NBR_HD double pair_u_double(PairPotential pot, double r2, double qq, double *fr) NBR_PAIR_U_BODY(double)
#undef NBR_PAIR_U_BODY

/* The LJ term alone, for loops specialised to uncharged systems (the GPU force kernels'
 * POT_LJ instantiation, pair_of_kind): pair_u's first two lines, without its test of the
 * kind. */
NBR_HD real pair_lj_inv(PairPotential pot, real ri2, real *fr)
{
    const real ri6 = ri2 * ri2 * ri2;
    *fr = (real)48 * ri6 * (ri6 - (real)0.5) * ri2;
    return (real)4 * ri6 * (ri6 - (real)1) + pot.shift;
}
/* pair_lj_inv takes ri2 = 1 / r^2 however the caller formed it (gpu-cluster: the approximate
 * reciprocal of the GPU's special-function unit, one instruction for the division's ten) */
NBR_HD real pair_lj(PairPotential pot, real r2, real *fr) { return pair_lj_inv(pot, (real)1 / r2, fr); }

#endif
