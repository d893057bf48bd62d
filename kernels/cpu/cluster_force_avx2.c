/* cluster_force_avx2.c - the cluster-pair force loop for AVX2 + FMA (cluster_force_simd.h's
 * body), whatever -march the build has: in float 4x8, and 4x4 as two i-atoms per register; in
 * double 4x4. */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx2,fma")
#pragma GCC optimize("fp-contract=fast")   /* FMA: the build's -std=c11 contracts nothing */
#include <immintrin.h>
#endif
#include "cluster_force.h"

#if defined(__x86_64__) && defined(__GNUC__)
#ifdef NBR_FLOAT
#define VW 8
#define VSQRT(v) _mm256_sqrt_ps(v)
#define KANY(m) _mm256_movemask_ps((__m256)(m))
#define JW 8
#include "cluster_force_simd.h"
#undef JW
/* the 4 j values in both halves; the halves' sum added to them */
#define JW 4
#define KLOAD_J(p) ((KV)_mm256_broadcast_ps((const __m128 *)(p)))
#define KFOLD_J(p, v)                                                                                   \
    _mm_storeu_ps((p), _mm_add_ps(_mm_loadu_ps(p), _mm_add_ps(_mm256_castps256_ps128((__m256)(v)),         \
                                                          _mm256_extractf128_ps((__m256)(v), 1))))
#include "cluster_force_simd.h"

void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial)
{
    if (A->M == 4) simd_rows_j4(A, upot, virial);
    else simd_rows_j8(A, upot, virial);
}
#else
#define VW 4
#define VSQRT(v) _mm256_sqrt_pd(v)
#define KANY(m) _mm256_movemask_pd((__m256d)(m))
#define JW 4
#include "cluster_force_simd.h"

void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial) { simd_rows_j4(A, upot, virial); }
#endif
#else
void cluster_force_avx2(const ClusterForceArgs *A, double *upot, double *virial) { cluster_force_scalar(A, upot, virial); }
#endif
