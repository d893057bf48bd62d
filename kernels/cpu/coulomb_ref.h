/* coulomb_ref.h - the Coulomb energy in C over the cores (OpenMP): the exact reference every
 * implementation is measured against, and the ref implementation of the coulomb program.
 * Compiled with -fopenmp and linked into the Coulomb programs only (see the Makefile). */
#ifndef NBR_COULOMB_REF_H
#define NBR_COULOMB_REF_H

#include "../../common/coulomb.h"

#ifdef __cplusplus
extern "C" {
#endif

/* E in kcal/mol from double terms with Neumaier-compensated sums, per atom in 16 lanes and
 * over atoms serially in index order: the same answer for any thread count, correct to a few
 * units of double rounding. threads 0 = every core. *abs_sum (if not NULL): sum |E_ij|, the
 * scale of rounding errors (sum |E_ij| / |E| is the sum's condition number). */
double coulomb_ref_exact(const ChargeSystem *s, int threads, double *abs_sum);

/* The standard deviation of E (kcal/mol) that rounding the input positions to float gives, to
 * first order: what no method with float positions (float, kahan, pairwise) can beat, however it
 * sums. Large where the sum cancels (random charges: 6.9e-6 of E at 2000 atoms; water 2e-8). */
double coulomb_ref_rounding_spread(const ChargeSystem *s, int threads);

/* --impl ref: float (plain float sums), double (plain double sums: the thesis's C algorithm,
 * vectorised and over the cores), kahan (float terms, compensated float sums) or exact
 * (coulomb_ref_exact, timed). */
extern const CoulombImpl coulomb_ref_impl;

#ifdef __cplusplus
}
#endif
#endif
