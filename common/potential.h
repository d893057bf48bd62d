/* potential.h - the pair interaction, shared by CPU and GPU code.
 *
 * Both of the paper's systems use the Lennard-Jones 12-6 form in reduced units
 * (sigma = epsilon = mass = 1):
 *   u(r) = 4 (r^-12 - r^-6) + shift,   r < r_c
 * SP ("soft sphere"): r_c = 2^(1/6), shift = +1 so u(r_c) = 0 (continuous, purely repulsive).
 * LJ: r_c = 3, shift = 0 (the paper truncates without shifting).
 * The force is f(r) * r_vec with f(r) = 48 r^-2 (r^-12 - r^-6/2). Working from r^2 avoids a
 * square root per pair, which is why the cutoff tests compare squared distances. */
#ifndef NBR_POTENTIAL_H
#define NBR_POTENTIAL_H

#include "real.h"

typedef struct {
    real rc2;    /* cutoff squared */
    real shift;  /* energy added inside the cutoff */
} PairPotential;

/* Adds the pair's force factor to *fr (multiply by the separation vector) and returns u(r).
 * Caller guarantees r2 < rc2. */
NBR_HD real pair_lj(PairPotential pot, real r2, real *fr)
{
    real ri2 = (real)1 / r2;
    real ri6 = ri2 * ri2 * ri2;
    *fr = (real)48 * ri6 * (ri6 - (real)0.5) * ri2;
    return (real)4 * ri6 * (ri6 - (real)1) + pot.shift;
}

#endif
