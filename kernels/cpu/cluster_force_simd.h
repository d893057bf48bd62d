/* cluster_force_simd.h - the body of the SIMD cluster-pair force loops (cluster_force.h),
 * written once in GCC vector types and included by cluster_force_avx2.c and _avx512.c under
 * their target pragmas. Needs VW (lanes = M) and VSQRT(v). */
#include <stdint.h>
#include <string.h>

#ifdef NBR_FLOAT
typedef int32_t KI;
#else
typedef int64_t KI;
#endif
typedef real KV __attribute__((vector_size(VW * sizeof(real))));
typedef KI KVI __attribute__((vector_size(VW * sizeof(real))));

static inline KV kload(const real *p) { KV v; memcpy(&v, p, sizeof v); return v; }
static inline void kstore(real *p, KV v) { memcpy(p, &v, sizeof v); }
static inline KV kmask(KV v, KVI m) { return (KV)((KVI)v & m); }
static inline double ksum(KV v)
{
    double s = 0;
    for (int l = 0; l < VW; l++) s += v[l];
    return s;
}

/* one row for one potential kind (a constant at the call: each kind its own loop) */
static inline __attribute__((always_inline)) void simd_row(const ClusterForceArgs *A, int u, const int coul,
                                                               KV *uacc, KV *wacc)
{
    const int i0 = A->unit_first[u], ni = A->unit_count[u];
    const real L = A->L;
    const KV rc2 = (KV){0} + A->pot.rc2, shift = (KV){0} + A->pot.shift;
    KVI lane;
    for (int l = 0; l < VW; l++) lane[l] = l;
    KV xi[CLUSTER_I], yi[CLUSTER_I], zi[CLUSTER_I], qi[CLUSTER_I], fx[CLUSTER_I], fy[CLUSTER_I], fz[CLUSTER_I];
    KVI ion[CLUSTER_I];
    KV ua = {0}, wa = {0};
    for (int t = 0; t < CLUSTER_I; t++) {
        const int i = t < ni ? i0 + t : i0;
        xi[t] = (KV){0} + A->x[i]; yi[t] = (KV){0} + A->y[i]; zi[t] = (KV){0} + A->z[i];
        qi[t] = (KV){0} + A->q[i];
        fx[t] = fy[t] = fz[t] = (KV){0};
        ion[t] = (KVI){0} - (KI)(t < ni);   /* padding i-slots: all lanes off */
    }
    for (int m = A->row_start[u]; m < A->row_start[u + 1]; m++) {
        const unsigned e = A->ent[m];
        const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);
        /* the image as pbc_delta forms it, (r_i - S/2) - (r_j + S/2): both terms near |x| <= L/2,
         * not r_j + S near L, whose rounding a float lattice's cancelling forces show */
        const real hx = (real)0.5 * shift_sx(code) * L, hy = (real)0.5 * shift_sy(code) * L,
                   hz = (real)0.5 * shift_sz(code) * L;
        const KV xj = kload(A->x + a0) + hx, yj = kload(A->y + a0) + hy, zj = kload(A->z + a0) + hz;
        const KV qj = coul ? kload(A->q + a0) : (KV){0};
        const KVI jon = lane < (KI)(CLUSTER_PLANT == 4 ? VW : atoms);
        const KVI jidx = lane + (KI)a0;
        KV fxj = {0}, fyj = {0}, fzj = {0};
        for (int t = 0; t < CLUSTER_I; t++) {
            const KV dx = (xi[t] - hx) - xj, dy = (yi[t] - hy) - yj, dz = (zi[t] - hz) - zj;
            const KV r2 = dx * dx + dy * dy + dz * dz;
            KVI on = (r2 < rc2) & jon & ion[t];
            if (code == SHIFT_NONE) on &= jidx > (KI)(i0 + t + (CLUSTER_PLANT == 3));
            const KV ri2 = 1 / r2, ri6 = ri2 * ri2 * ri2;
            KV f = 48 * ri6 * (ri6 - (real)0.5) * ri2, uu = 4 * ri6 * (ri6 - 1) + shift;
            if (coul) {
                const KV qq = qi[t] * qj, ri = VSQRT(ri2), r = r2 * ri;
                f += qq * (ri2 * ri - A->pot.rc_inv2 * ri);
                uu += qq * (ri - A->pot.rc_inv + (r - A->pot.rc) * A->pot.rc_inv2);
            }
            f = kmask(f, on);
            const KV gx = f * dx, gy = f * dy, gz = f * dz;
            fx[t] += gx; fy[t] += gy; fz[t] += gz;
            fxj -= gx; fyj -= gy; fzj -= gz;
            ua += kmask(uu, on);
            wa += f * r2;
        }
        kstore(A->fx + a0, kload(A->fx + a0) + fxj);
        kstore(A->fy + a0, kload(A->fy + a0) + fyj);
        kstore(A->fz + a0, kload(A->fz + a0) + fzj);
    }
    *uacc += ua;
    *wacc += wa;
    for (int t = 0; t < ni; t++) {
        real sx = 0, sy = 0, sz = 0;
        for (int l = 0; l < VW; l++) { sx += fx[t][l]; sy += fy[t][l]; sz += fz[t][l]; }
        A->fx[i0 + t] += sx; A->fy[i0 + t] += sy; A->fz[i0 + t] += sz;
    }
}

/* every row, the kind chosen once */
static void simd_rows(const ClusterForceArgs *A, double *upot, double *virial)
{
    KV ua = {0}, wa = {0};
    if (A->pot.kind == POT_LJ_COULSF)
        for (int u = 0; u < A->nunits; u++) simd_row(A, u, 1, &ua, &wa);
    else
        for (int u = 0; u < A->nunits; u++) simd_row(A, u, 0, &ua, &wa);
    *upot = ksum(ua);
    *virial = ksum(wa);
}
