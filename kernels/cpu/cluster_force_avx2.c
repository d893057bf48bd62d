/* cluster_force_avx2.c - the cluster-pair force loop for AVX2 + FMA (cluster_force_simd.h's
 * body): 4x4 in double, 4x8 in float, whatever -march the build has. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,fma")
#include <immintrin.h>
#endif
#include "cluster_force.h"

#if defined(__x86_64__) && defined(__GNUC__)
#ifdef NBR_FLOAT
#define VW 8
#define VSQRT(v) _mm256_sqrt_ps(v)
#else
#define VW 4
#define VSQRT(v) _mm256_sqrt_pd(v)
#endif
#include "cluster_force_simd.h"

void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial) { simd_rows(A, upot, virial); }
#else
void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial) { cluster_force_scalar(A, upot, virial); }
#endif
