/* cluster_force_avx512.c - the cluster-pair force loop for AVX-512 (cluster_force_simd.h's
 * body), 512-bit registers: 4x8 and 4x4 in both precisions, a register holding 2 (float 4x8,
 * double 4x4) or 4 (float 4x4) i-atoms against the j-cluster (GROMACS's 2xMM: an entry holds at
 * most 8 atoms, so 4x16 would need a wider entry). */
#if defined(__x86_64__) && defined(__GNUC__)
#pragma GCC target("avx512f,avx512vl,fma")
#pragma GCC optimize("fp-contract=fast")   /* FMA: the build's -std=c11 contracts nothing */
#include <immintrin.h>
#endif
#include "cluster_force.h"

#if defined(__x86_64__) && defined(__GNUC__)
#ifdef NBR_FLOAT
#define VW 16
#define VSQRT(v) _mm512_sqrt_ps(v)
#define KM __mmask16   /* masks in k-registers */
#define KLT(a, b) _mm512_cmp_ps_mask((__m512)(a), (__m512)(b), _CMP_LT_OQ)
#define KILT(a, b) _mm512_cmplt_epi32_mask((__m512i)(a), (__m512i)(b))
#define KSEL(v, m) ((KV)_mm512_maskz_mov_ps((m), (__m512)(v)))
#define KANY(m) ((m) != 0)
/* the 256-bit halves' sum (AVX-512F only: no DQ) */
#define HALVES_PS(v)                                                                                  \
    _mm256_add_ps(_mm512_castps512_ps256((__m512)(v)),                                                \
                  _mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd((__m512)(v)), 1)))
/* the 8 j values in both halves; the halves' sum added to them */
#define JW 8
#define KLOAD_J(p) ((KV)_mm512_castpd_ps(_mm512_broadcast_f64x4(_mm256_castps_pd(_mm256_loadu_ps(p)))))
#define KFOLD_J(p, v) _mm256_storeu_ps((p), _mm256_add_ps(_mm256_loadu_ps(p), HALVES_PS(v)))
#include "cluster_force_simd.h"
#undef JW
#undef KLOAD_J
#undef KFOLD_J
/* the 4 j values in each quarter; the quarters' sum added to them */
#define JW 4
#define KLOAD_J(p) ((KV)_mm512_broadcast_f32x4(_mm_loadu_ps(p)))
#define KFOLD_J(p, v)                                                                                   \
    do {                                                                                                \
        const __m256 h = HALVES_PS(v);                                                                  \
        _mm_storeu_ps((p), _mm_add_ps(_mm_loadu_ps(p),                                                  \
                                      _mm_add_ps(_mm256_castps256_ps128(h), _mm256_extractf128_ps(h, 1)))); \
    } while (0)
#include "cluster_force_simd.h"
#else
#define VW 8
#define VSQRT(v) _mm512_sqrt_pd(v)
#define KM __mmask8
#define KLT(a, b) _mm512_cmp_pd_mask((__m512d)(a), (__m512d)(b), _CMP_LT_OQ)
#define KILT(a, b) _mm512_cmplt_epi64_mask((__m512i)(a), (__m512i)(b))
#define KSEL(v, m) ((KV)_mm512_maskz_mov_pd((m), (__m512d)(v)))
#define KANY(m) ((m) != 0)
#define JW 8
#include "cluster_force_simd.h"
#undef JW
/* the 4 j values in both halves; the halves' sum added to them */
#define JW 4
#define KLOAD_J(p) ((KV)_mm512_broadcast_f64x4(_mm256_loadu_pd(p)))
#define KFOLD_J(p, v)                                                                                   \
    _mm256_storeu_pd((p), _mm256_add_pd(_mm256_loadu_pd(p), _mm256_add_pd(_mm512_castpd512_pd256((__m512d)(v)), \
                                                                        _mm512_extractf64x4_pd((__m512d)(v), 1))))
#include "cluster_force_simd.h"
#endif

void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial)
{
    if (A->M == 4) simd_rows_j4(A, upot, virial);
    else simd_rows_j8(A, upot, virial);
}
#else
void cluster_force_avx512(const ClusterForceArgs *A, double *upot, double *virial) { cluster_force_scalar(A, upot, virial); }
#endif
