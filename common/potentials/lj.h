/* lj.h - Lennard-Jones, the potential of the uncharged systems (registered in all.h).
 *
 *   u(r) = 4 (r^-12 - r^-6) + shift,  fr = 48 r^-2 (r^-12 - r^-6/2),  r < r_c
 *
 * SP ("soft sphere", WCA): r_c = 2^(1/6), shift = +1 so u(r_c) = 0; LJ: r_c = 3, shift 0 (the
 * paper truncates without shifting). */
#ifndef NBR_POTENTIALS_LJ_H
#define NBR_POTENTIALS_LJ_H

#include "../real.h"

/* the parameters (PairPotential.lj) */
struct pot_lj {
    real shift;   /* energy added inside r_c */
};

static inline struct pot_lj pot_lj_make(double rc, double shift)
{
    struct pot_lj p;
    (void)rc;
    p.shift = (real)shift;
    return p;
}

/* The body from RI2 = 1 / r^2, however the caller formed it, into the lvalues FR and U. V is the
 * value type (real, double, or a GCC vector of real: cluster_force_simd.h), S its scalar; one
 * body for all of them, so the formula is written once. */
#define NBR_LJ_INV(V, S, LJ, RI2, FR, U)                                                     \
    do {                                                                                   \
        const V lj_ri6_ = (RI2) * (RI2) * (RI2);                                           \
        (FR) = (S)48 * lj_ri6_ * (lj_ri6_ - (S)0.5) * (RI2);                               \
        (U) = (S)4 * lj_ri6_ * (lj_ri6_ - (S)1) + (S)(LJ).shift;                           \
    } while (0)

/* The registry's evaluator body (all.h): u and fr from R2 = r^2 for the PairPotential P; QQ,
 * the charges' product, unused. */
#define NBR_POT_lj(V, S, SQRT, P, R2, QQ, FR, U)                                             \
    do {                                                                                   \
        const V lj_ri2_ = (S)1 / (R2);                                                     \
        NBR_LJ_INV(V, S, (P).lj, lj_ri2_, FR, U);                                      \
    } while (0)

/* The LJ term from ri2 = 1 / r^2 formed by the caller (gpu-cluster: the approximate reciprocal
 * of the GPU's special-function unit, one instruction for the division's ten). */
NBR_HD real pot_lj_inv(struct pot_lj p, real ri2, real *fr)
{
    real f, u;
    NBR_LJ_INV(real, real, p, ri2, f, u);
    *fr = f;
    return u;
}

#endif
