/* cluster_force_scalar.c - the portable cluster-pair force loop and the run-time choice of
 * the SIMD level (cluster_force.h). */
#include "cluster_force.h"
#include "../rebuild_rule.h"

#include <math.h>
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

real cluster_prune_reach2(double rc, double buffer)
{
    const real r = (real)rc + (real)(CLUSTER_PLANT == 5 ? 0 : buffer);
    return r * r;
}

int cpu_cluster_prune_due(int rebuilt, double disp, double disp_pruned, double threshold)
{
    return prune_due(rebuilt, disp, disp_pruned, CLUSTER_PLANT == 6 ? INFINITY : threshold);
}

void cluster_prune_scalar(const ClusterForceArgs *A)
{
    real H[27][3];
    cluster_half_shifts(A->L, H);
    int kept = 0;
    for (int u = 0; u < A->nunits; u++) {
        const int i0 = A->unit_first[u], ni = A->unit_count[u];
        A->row_out[u] = kept;
        for (int m = A->row_start[u]; m < A->row_start[u + 1]; m++) {
            const unsigned e = A->ent[m];
            const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);
            const real hx = H[code][0], hy = H[code][1], hz = H[code][2];
            int keep = 0;
            for (int i = i0; i < i0 + ni && !keep; i++)
                for (int j = a0; j < a0 + atoms && !keep; j++) {
                    if (code == SHIFT_NONE && j <= i) continue;
                    const real dx = (A->x[i] - hx) - (A->x[j] + hx), dy = (A->y[i] - hy) - (A->y[j] + hy),
                               dz = (A->z[i] - hz) - (A->z[j] + hz);
                    keep = dx * dx + dy * dy + dz * dz < A->rin2;
                }
            if (keep) A->ent_out[kept++] = e;
        }
    }
    A->row_out[A->nunits] = kept;
}

int cluster_simd_takes(int level, int M)
{
    return M == 4 || (M == 8 && !(level == SIMD_AVX2 && sizeof(real) == 8));
}

void cluster_force_scalar(const ClusterForceArgs *A, double *upot, double *virial)
{
    const real rc2 = A->pot.rc2;
    real H[27][3];
    cluster_half_shifts(A->L, H);
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
                const real hx = H[code][0], hy = H[code][1], hz = H[code][2];
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
