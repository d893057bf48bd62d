/* all.h - the registry of pair potentials: the one place that names them. potential.h makes
 * from this list the PotentialKind enum, potential_names[] (--potential), PairPotential's
 * member per potential, potential_make, the evaluators pot_<id>_u and pot_<id>_u_double, pair_u's
 * switch and the dispatch to loops specialised per kind (C: NBR_POTENTIAL_DISPATCH; CUDA:
 * dispatch_potential and pair_of_kind, kernels/cuda/gpu_sim.cuh).
 *
 * To add a potential: one new file here, <id>.h, defining struct pot_<id> (its parameters),
 * pot_<id>_make(rc, shift) and the evaluator body NBR_POT_<id> (see lj.h), and one entry below
 * with its #include (docs/programs.md, "Adding a potential"). A listed kind without them does
 * not compile. */
#ifndef NBR_POTENTIALS_ALL_H
#define NBR_POTENTIALS_ALL_H

#include "lj.h"
#include "lj_coulsf.h"

/* X(A, enumerator, --potential name, id): A is the caller's argument, passed through. The
 * order is the enum's, so a new kind goes last (CSV rows name kinds, not numbers). */
#define NBR_POTENTIALS(X, A)                                                                 \
    X(A, POT_LJ, "lj", lj)                                                                   \
    X(A, POT_LJ_COULSF, "lj-coulsf", lj_coulsf)

#endif
