/* cluster_force_avx512.c - the cluster-pair force loop for AVX-512 (cluster_force_simd.h's
 * body): 4x8 in double (512-bit registers); 4x8 in float as well (256-bit registers with
 * AVX-512VL's instructions: an entry holds at most 8 atoms, so 4x16 would need a wider entry). */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx512f,avx512vl,fma")
#include <immintrin.h>
#endif
#include "cluster_force.h"

#if defined(__x86_64__) && defined(__GNUC__)
#define VW 8
#ifdef NBR_FLOAT
#define VSQRT(v) _mm256_sqrt_ps(v)
#else
#define VSQRT(v) _mm512_sqrt_pd(v)
#endif
#include "cluster_force_simd.h"

void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial) { simd_rows(A, upot, virial); }
#else
void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial) { cluster_force_scalar(A, upot, virial); }
#endif
