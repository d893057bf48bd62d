/* lj_coulsf.h - LJ plus shifted-force Coulomb, RUMD's molten salt (registered in all.h).
 *
 * The LJ term of lj.h plus, between charges q_i q_j (in units of sqrt(4 pi eps0 epsilon
 * sigma)), both cut at r_c:
 *   u_c(r) = q_i q_j (1/r - 1/r_c + (r - r_c)/r_c^2),  fr_c = q_i q_j (1/r^3 - 1/(r_c^2 r));
 * u_c and the force vanish at r_c. */
#ifndef NBR_POTENTIALS_LJ_COULSF_H
#define NBR_POTENTIALS_LJ_COULSF_H

#include "lj.h"

/* the parameters of the Coulomb term (PairPotential.lj_coulsf); the LJ term's are lj.h's,
 * PairPotential.lj, which potential_make fills for every kind */
struct pot_lj_coulsf {
    real rc, rc_inv, rc_inv2;  /* r_c, 1/r_c, 1/r_c^2 */
};

static inline struct pot_lj_coulsf pot_lj_coulsf_make(double rc, double shift)
{
    struct pot_lj_coulsf p;
    (void)shift;
    p.rc = (real)rc;
    p.rc_inv = (real)(1 / rc);
    p.rc_inv2 = (real)(1 / (rc * rc));
    return p;
}

/* The registry's evaluator body (all.h; arguments as NBR_POT_lj's): the LJ term, then the
 * Coulomb term from the same 1/r^2 and its square root. */
#define NBR_POT_lj_coulsf(V, S, SQRT, P, R2, QQ, FR, U)                                     \
    do {                                                                                    \
        const V cs_ri2_ = (S)1 / (R2);                                                      \
        NBR_LJ_INV(V, S, (P).lj, cs_ri2_, FR, U);                                           \
        const V cs_ri_ = SQRT(cs_ri2_), cs_r_ = (R2) * cs_ri_;                              \
        (FR) += (QQ) * (cs_ri2_ * cs_ri_ - (S)(P).lj_coulsf.rc_inv2 * cs_ri_);              \
        (U) += (QQ) * (cs_ri_ - (S)(P).lj_coulsf.rc_inv +                                   \
                       (cs_r_ - (S)(P).lj_coulsf.rc) * (S)(P).lj_coulsf.rc_inv2);           \
    } while (0)

#endif
