/* cluster_force_scalar.c - the portable cluster-pair force loop and the run-time choice of
 * the SIMD level (cluster_force.h). */
#include "cluster_force.h"

#include <string.h>

const char *const simd_names[] = {"auto", "scalar", "avx2", "avx512", NULL};

int cluster_simd_available(int level)
{
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (level == SIMD_AVX2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    if (level == SIMD_AVX512) return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl");
#else
    if (level == SIMD_AVX2 || level == SIMD_AVX512) return 0;
#endif
    return 1;
}

int cluster_simd_width(int level)
{
    const int f = sizeof(real) == 4;
    return level == SIMD_AVX2 ? (f ? 8 : 4) : level == SIMD_AVX512 ? 8 : 4;
}

void cluster_force_scalar(const ClusterForceArgs *A, double *upot, double *virial)
{
    const real L = A->L, rc2 = A->pot.rc2;
    double usum = 0, wsum = 0;
    for (int u = 0; u < A->nunits; u++) {
        const int i0 = A->unit_first[u], ni = A->unit_count[u];
        for (int t = 0; t < ni; t++) {
            const int i = i0 + t;
            const real xi = A->x[i], yi = A->y[i], zi = A->z[i], qi = A->q[i];
            real fx = 0, fy = 0, fz = 0, ui = 0, wi = 0;
            for (int m = A->row_start[u]; m < A->row_start[u + 1]; m++) {
                const unsigned e = A->ent[m];
                const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);
                /* the image as pbc_delta forms it (see cluster_force_simd.h) */
                const real hx = (real)0.5 * shift_sx(code) * L, hy = (real)0.5 * shift_sy(code) * L,
                           hz = (real)0.5 * shift_sz(code) * L;
                for (int q = 0; q < A->M; q++) {
                    const int j = a0 + q;
                    const int on = (CLUSTER_PLANT == 4 || q < atoms) &&
                                   (code != SHIFT_NONE || j > i + (CLUSTER_PLANT == 3));
                    const real dx = (xi - hx) - (A->x[j] + hx), dy = (yi - hy) - (A->y[j] + hy), dz = (zi - hz) - (A->z[j] + hz);
                    const real r2 = dx * dx + dy * dy + dz * dz;
                    if (!on || !(r2 < rc2)) continue;
                    real f;
                    const real uu = pair_u(A->pot, r2, qi * A->q[j], &f);
                    fx += f * dx; fy += f * dy; fz += f * dz;
                    A->fx[j] -= f * dx; A->fy[j] -= f * dy; A->fz[j] -= f * dz;
                    ui += uu;
                    wi += f * r2;
                }
            }
            A->fx[i] += fx; A->fy[i] += fy; A->fz[i] += fz;
            usum += ui;
            wsum += wi;
        }
    }
    *upot = usum;
    *virial = wsum;
}
