/* cluster_force_avx512.c - the cluster-pair force loop for AVX-512 (cluster_force_simd.h's
 * body), 512-bit registers: 4x8 in double; 4x8 in float as well, two i-atoms per register
 * against the j-cluster's 8 (GROMACS's 2xMM: an entry holds at most 8 atoms, so 4x16 would
 * need a wider entry). */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx512f,avx512vl,fma")
#include <immintrin.h>
#endif
#include "cluster_force.h"

#if defined(__x86_64__) && defined(__GNUC__)
#ifdef NBR_FLOAT
#define VW 16
#define JW 8
#define VSQRT(v) _mm512_sqrt_ps(v)
/* the 8 j values in both halves; the halves' sum added to them (AVX-512F only: no DQ) */
#define KLOAD_J(p) ((KV)_mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p)))))
#define KFOLD_J(p, v)                                                                                 \
    _mm256_storeu_ps((p), _mm256_add_ps(_mm256_loadu_ps(p),                                           \
                                        _mm256_add_ps(_mm512_castps512_ps256((__m512)(v)),            \
                                                      _mm256_castpd_ps(_mm512_extractf64x4_pd(         \
                                                          _mm512_castps_pd((__m512)(v)), 1)))))
#else
#define VW 8
#define VSQRT(v) _mm512_sqrt_pd(v)
#endif
#include "cluster_force_simd.h"

void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial) { simd_rows(A, upot, virial); }
#else
void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial) { cluster_force_scalar(A, upot, virial); }
#endif
