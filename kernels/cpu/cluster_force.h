/* cluster_force.h - cpu-cluster's force loops over a cluster-pair list (cluster_list.h): the
 * portable scalar one and the SIMD ones, AVX2 (+FMA) and AVX-512, compiled for their
 * instruction sets whatever -march says (target pragmas) and picked at run time (--simd).
 * In each, a row's i-unit (4 atoms) is held in registers and a listed j-cluster of M atoms
 * (--jcluster: by default the vector's lanes, 4 in AVX2 double, else 8; 4 as well, where a
 * register then holds 2 or 4 i-atoms) is loaded once for all of them; masks for the cutoff, the
 * self cluster and padding, and a branch past the evaluator where no lane is within r_c (most,
 * at short cutoffs); Newton 3, the j forces subtracted once per entry. The SIMD loops run a row
 * in three parts, each its own copy of the body: the own cluster (the only one masked to j > i),
 * the unshifted entries, those through an image (the build lists them last). Positions, charges
 * and forces in structure-of-arrays form, in the list's atom order, CLUSTER_SLACK slots past N
 * (loads of a short last cluster). */
#ifndef NBR_CPU_CLUSTER_FORCE_H
#define NBR_CPU_CLUSTER_FORCE_H

#include "cluster_list.h"

/* the levels (cpu-cluster's --simd, its own option): auto = the widest this CPU has */
typedef enum { SIMD_AUTO, SIMD_SCALAR, SIMD_AVX2, SIMD_AVX512 } SimdLevel;
extern const char *const simd_names[];   /* --simd's values, by level */

typedef struct {
    const real *x, *y, *z, *q;
    real *fx, *fy, *fz;
    const int *unit_first, *unit_count, *row_start;
    const unsigned *ent;
    int nunits, M;        /* M: the j-cluster size the list was built with */
    real L;
    PairPotential pot;
    /* --prune: where not NULL, the loop also writes the inner rows, the entries of the rows read
     * with a slot within rin2 (cluster_prune_reach2) */
    unsigned *ent_out;
    int *row_out;         /* nunits + 1 */
    real rin2;
} ClusterForceArgs;

/* S/2 of each shift code: an entry's image is formed as pbc_delta forms it, (r_i - S/2) - (r_j + S/2),
 * both terms near |x| <= L/2, not r_j + S near L, whose rounding a float lattice's cancelling
 * forces show */
static inline void cluster_half_shifts(real L, real H[27][3])
{
    for (int c = 0; c < 27; c++) {
        H[c][0] = (real)0.5 * shift_sx(c) * L;
        H[c][1] = (real)0.5 * shift_sy(c) * L;
        H[c][2] = (real)0.5 * shift_sz(c) * L;
    }
}

/* 1 when this CPU (and build) can run the level */
int cluster_simd_available(int level);
/* M of a level in this precision (the default), and whether the level's loop takes j-clusters
 * of M atoms: 4 and 8 everywhere but AVX2 double (4 only) */
int cluster_simd_width(int level);
int cluster_simd_takes(int level, int M);
/* --prune b: the inner rows' reach (r_c + b)^2, and whether they are rewritten at this force:
 * after a build, or once the summed largest displacement since the last prune reaches threshold
 * (kernels/rebuild_rule.h's prune_due) */
real cluster_prune_reach2(double rc, double buffer);
int cpu_cluster_prune_due(int rebuilt, double disp, double disp_pruned, double threshold);
/* the scalar loop's prune: the inner rows from A's rows, without forces */
void cluster_prune_scalar(const ClusterForceArgs *A);
/* forces added into f (zeroed by the caller); the sums of u and r.f over pairs; the SIMD loops
 * write the inner rows as they go where A->ent_out is set, the scalar one ignores it */
void cluster_force_scalar(const ClusterForceArgs *A, double *upot, double *virial);
void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial);
void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial);

#endif
