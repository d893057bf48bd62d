/* cluster_force.h - cpu-cluster's force loops over a cluster-pair list (cluster_list.h): the
 * portable scalar one and the SIMD ones, AVX2 (+FMA) and AVX-512, compiled for their
 * instruction sets whatever -march says (target pragmas) and picked at run time (--simd).
 * In each, a row's i-unit (4 atoms) is held as 4 broadcast vectors and a listed j-cluster of M
 * atoms (M the vector's lanes: 4x4 AVX2 double, 4x8 AVX2 float and AVX-512 double; AVX-512 float
 * runs 4x8 too, in 256-bit registers, as an entry holds at most 8 atoms) is loaded once for
 * all of them; masks (not branches) for the cutoff, the self cluster and padding; Newton 3,
 * the j forces subtracted once per entry. Positions, charges and forces in structure-of-arrays
 * form, in the list's atom order, CLUSTER_SLACK slots past N (loads of a short last cluster). */
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
} ClusterForceArgs;

/* 1 when this CPU (and build) can run the level */
int cluster_simd_available(int level);
/* M of a level in this precision */
int cluster_simd_width(int level);
/* forces added into f (zeroed by the caller); the sums of u and r.f over pairs */
void cluster_force_scalar(const ClusterForceArgs *A, double *upot, double *virial);
void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial);
void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial);

#endif
