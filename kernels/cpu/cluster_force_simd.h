/* cluster_force_simd.h - the body of the SIMD cluster-pair force loops (cluster_force.h),
 * written once in GCC vector types and included by cluster_force_avx2.c and _avx512.c under
 * their target pragmas. Needs VW (lanes), VSQRT(v) and optionally JW (the j-cluster's M atoms,
 * default VW). With JW < VW a register holds VW / JW i-atoms against the same j-cluster, each
 * in its own JW lanes (GROMACS's 2xMM): AVX-512 in float runs 4x8 in 16 lanes this way, as an
 * entry holds at most 8 atoms. */
#include <stdint.h>
#include <string.h>

#ifndef JW
#define JW VW
#endif
#if JW != VW && !(defined(KLOAD_J) && defined(KFOLD_J))
#error "JW < VW needs the including file's KLOAD_J and KFOLD_J"
#endif
#define VI (VW / JW)   /* i-atoms per register */

#ifdef NBR_FLOAT
typedef int32_t KI;
#else
typedef int64_t KI;
#endif
typedef real KV __attribute__((vector_size(VW * sizeof(real))));
typedef KI KVI __attribute__((vector_size(VW * sizeof(real))));

/* the j-cluster's JW values in each of the VI lane groups (KLOAD_J: the including file's
 * broadcast where VI > 1) */
static inline KV kload(const real *p)
{
#ifdef KLOAD_J
    return KLOAD_J(p);
#else
    KV v;
    memcpy(&v, p, sizeof v);
    return v;
#endif
}
/* adds the VI lane groups' sums to the j-cluster's JW values (KFOLD_J: the halves' sum) */
static inline void kadd(real *p, KV v)
{
#ifdef KFOLD_J
    KFOLD_J(p, v);
#else
    KV s;
    memcpy(&s, p, sizeof s);
    s += v;
    memcpy(p, &s, sizeof s);
#endif
}
static inline KV kmask(KV v, KVI m) { return (KV)((KVI)v & m); }
static inline double ksum(KV v)
{
    double s = 0;
    for (int l = 0; l < VW; l++) s += v[l];
    return s;
}

/* one case of the registry (common/potentials/all.h): the kind's evaluator body on VW lanes */
#define SIMD_POT_CASE(P, K, name, id) case K: NBR_POT_##id(KV, real, VSQRT, P, r2, qq, f, uu); break;

/* one row for one potential kind (a constant at the call: each kind its own loop) */
static inline __attribute__((always_inline)) void simd_row(const ClusterForceArgs *A, int u, const int kind,
                                                               KV *uacc, KV *wacc)
{
    const int i0 = A->unit_first[u], ni = A->unit_count[u];
    const real L = A->L;
    const KV rc2 = (KV){0} + A->pot.rc2;
    KVI lane, ilane;   /* a lane's j-atom and its i-atom within the register's VI */
    for (int l = 0; l < VW; l++) { lane[l] = l % JW; ilane[l] = l / JW; }
    enum { NI = CLUSTER_I / VI };   /* registers of i-atoms */
    KV xi[NI], yi[NI], zi[NI], qi[NI], fx[NI], fy[NI], fz[NI];
    KVI ion[NI], iat[NI];
    KV ua = {0}, wa = {0};
    for (int t = 0; t < NI; t++) {
        real bx[VW], by[VW], bz[VW], bq[VW];
        for (int l = 0; l < VW; l++) {
            const int ti = t * VI + l / JW, i = ti < ni ? i0 + ti : i0;
            bx[l] = A->x[i]; by[l] = A->y[i]; bz[l] = A->z[i]; bq[l] = A->q[i];
        }
        memcpy(&xi[t], bx, sizeof bx); memcpy(&yi[t], by, sizeof by);
        memcpy(&zi[t], bz, sizeof bz); memcpy(&qi[t], bq, sizeof bq);
        fx[t] = fy[t] = fz[t] = (KV){0};
        iat[t] = ilane + (KI)(i0 + t * VI);
        ion[t] = iat[t] < (KI)(i0 + ni);   /* padding i-slots: their lanes off */
    }
    for (int m = A->row_start[u]; m < A->row_start[u + 1]; m++) {
        const unsigned e = A->ent[m];
        const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);
        /* the image as pbc_delta forms it, (r_i - S/2) - (r_j + S/2): both terms near |x| <= L/2,
         * not r_j + S near L, whose rounding a float lattice's cancelling forces show */
        const real hx = (real)0.5 * shift_sx(code) * L, hy = (real)0.5 * shift_sy(code) * L,
                   hz = (real)0.5 * shift_sz(code) * L;
        const KV xj = kload(A->x + a0) + hx, yj = kload(A->y + a0) + hy, zj = kload(A->z + a0) + hz;
        const KV qj = kload(A->q + a0);   /* dead where the kind ignores qq */
        const KVI jon = lane < (KI)(CLUSTER_PLANT == 4 ? JW : atoms);
        const KVI jidx = lane + (KI)a0;
        KV fxj = {0}, fyj = {0}, fzj = {0};
        for (int t = 0; t < NI; t++) {
            const KV dx = (xi[t] - hx) - xj, dy = (yi[t] - hy) - yj, dz = (zi[t] - hz) - zj;
            const KV r2 = dx * dx + dy * dy + dz * dz;
            KVI on = (r2 < rc2) & jon & ion[t];
            if (code == SHIFT_NONE) on &= jidx > iat[t] + (KI)(CLUSTER_PLANT == 3);
            const KV qq = qi[t] * qj;
            KV f, uu;
            switch ((PotentialKind)kind) { NBR_POTENTIALS(SIMD_POT_CASE, A->pot) }
            f = kmask(f, on);
            const KV gx = f * dx, gy = f * dy, gz = f * dz;
            fx[t] += gx; fy[t] += gy; fz[t] += gz;
            fxj -= gx; fyj -= gy; fzj -= gz;
            ua += kmask(uu, on);
            wa += f * r2;
        }
        kadd(A->fx + a0, fxj);
        kadd(A->fy + a0, fyj);
        kadd(A->fz + a0, fzj);
    }
    *uacc += ua;
    *wacc += wa;
    for (int ti = 0; ti < ni; ti++) {
        const int t = ti / VI, h = ti % VI;
        real sx = 0, sy = 0, sz = 0;
        for (int l = h * JW; l < (h + 1) * JW; l++) { sx += fx[t][l]; sy += fy[t][l]; sz += fz[t][l]; }
        A->fx[i0 + ti] += sx; A->fy[i0 + ti] += sy; A->fz[i0 + ti] += sz;
    }
}

/* every row, the kind chosen once */
static void simd_rows(const ClusterForceArgs *A, double *upot, double *virial)
{
    KV ua = {0}, wa = {0};
#define SIMD_ROWS(K) for (int u = 0; u < A->nunits; u++) simd_row(A, u, K, &ua, &wa)
    NBR_POTENTIAL_DISPATCH(A->pot.kind, SIMD_ROWS);
#undef SIMD_ROWS
    *upot = ksum(ua);
    *virial = ksum(wa);
}
