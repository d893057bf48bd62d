/* potential.h - the pair interactions, one definition shared by the reference (in double),
 * the CPU variants and the GPU kernels (in `real`). Chosen at run time (--potential, set by
 * the --system preset); a variant's loop is written once and calls pair_u, or is specialised
 * per kind through NBR_POTENTIAL_DISPATCH (C) or dispatch_potential (CUDA).
 *
 * Reduced units (sigma = epsilon = mass = 1), f_ij = fr * r_ij, working from r^2. Each
 * potential is one file, common/potentials/<id>.h, with its formula, its parameters and its
 * evaluator; common/potentials/all.h lists them, and everything here that names a kind is
 * generated from that list (docs/potentials.md: how to add one). */
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

#include "potentials/all.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NBR_POT_ENUM_(A, K, name, id) K,
#define NBR_POT_ONE_(A, K, name, id) +1
#define NBR_POT_MEMBER_(A, K, name, id) struct pot_##id id;
typedef enum { NBR_POTENTIALS(NBR_POT_ENUM_, ~) } PotentialKind;
enum { POT_COUNT = 0 NBR_POTENTIALS(NBR_POT_ONE_, ~) };
extern const char *const potential_names[];   /* POT_COUNT names, then NULL */

/* One member per potential, named by its id and declared by its file, each filled whatever the
 * kind (a kind may build on another's: lj_coulsf's LJ term reads .lj). A struct, not a union:
 * the layout of the GPU kernels' arguments stays as it was, and nvcc copies it field by field. */
typedef struct {
    int kind;        /* PotentialKind: the evaluator */
    real rc2;        /* the cutoff squared, every kind's (r_c itself is Params.rc) */
    NBR_POTENTIALS(NBR_POT_MEMBER_, ~)
} PairPotential;

/* The parameters for cutoff rc and LJ shift; a kind not listed stops with one line. */
PairPotential potential_make(int kind, double rc, double shift);
/* Stops with one line naming a kind that common/potentials/all.h does not list. */
void potential_bad(int kind)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

#ifdef __cplusplus
}
#endif

/* Each kind's evaluator, u(r) and the force factor *fr for r2 < rc2, qq = q_i q_j (ignored by
 * an uncharged kind): pot_<id>_u in `real` for the variants, pot_<id>_u_double for the
 * reference, both from the file's one body. */
#define NBR_POT_U_(T, SUF, K, id)                                                            \
    NBR_HD T pot_##id##_u##SUF(PairPotential pot, T r2, T qq, T *fr)                        \
    {                                                                                       \
        T f, u;                                                                             \
        NBR_POT_##id(T, T, NBR_SQRT, pot, r2, qq, f, u);                                    \
        *fr = f;                                                                            \
        return u;                                                                           \
    }
#define NBR_POT_U_REAL_(A, K, name, id) NBR_POT_U_(real, , K, id)
#define NBR_POT_U_DOUBLE_(A, K, name, id) NBR_POT_U_(double, _double, K, id)
NBR_POTENTIALS(NBR_POT_U_REAL_, ~)
NBR_POTENTIALS(NBR_POT_U_DOUBLE_, ~)

/* pair_u: the evaluator of pot.kind. Where the kind is a constant (a loop specialised per kind)
 * the switch folds away; no default, so -Wswitch names a kind without a case. A kind not
 * listed cannot get here (potential_make refuses it): it would add nothing. */
#define NBR_POT_CASE_U_(SUF, K, name, id) case K: return pot_##id##_u##SUF(pot, r2, qq, fr);
NBR_HD real pair_u(PairPotential pot, real r2, real qq, real *fr)
{
    switch ((PotentialKind)pot.kind) { NBR_POTENTIALS(NBR_POT_CASE_U_, ) }
    *fr = 0;
    return 0;
}
NBR_HD double pair_u_double(PairPotential pot, double r2, double qq, double *fr)
{
    switch ((PotentialKind)pot.kind) { NBR_POTENTIALS(NBR_POT_CASE_U_, _double) }
    *fr = 0;
    return 0;
}

/* Runs DO(K) with K the constant of the kind `kind`, so that a loop inlined there is compiled
 * once per kind (no per-pair test; an uncharged kind does not even load charges); a kind not
 * listed stops with one line (potential_bad), never runs as another. C and host C++. */
#define NBR_POT_CASE_DO_(DO, K, name, id) case K: DO(K); break;
#define NBR_POTENTIAL_DISPATCH(kind, DO)                                                     \
    do {                                                                                    \
        const int nbr_kind_ = (kind);                                                       \
        if ((unsigned)nbr_kind_ >= (unsigned)POT_COUNT) potential_bad(nbr_kind_);           \
        switch ((PotentialKind)nbr_kind_) { NBR_POTENTIALS(NBR_POT_CASE_DO_, DO) }          \
    } while (0)

#endif
