/* cluster_force_simd.h - the body of the SIMD cluster-pair force loops (cluster_force.h),
 * written once in GCC vector types and included by cluster_force_avx2.c and _avx512.c under
 * their target pragmas, once per j-cluster size. Needs VW (lanes), VSQRT(v), KANY(mask) and
 * JW (the j-cluster's M atoms, at most VW); it defines simd_rows_j<JW>.
 * A lane mask is a vector of 0 and -1 (KM = KVI), unless the including file has mask registers:
 * then it defines KM, the compares KLT(real a, b) and KILT(int a, b) and KSEL(v, m), and the
 * masks stay in k-registers (no vector made of each compare and tested again).
 * With JW < VW a register holds VW / JW i-atoms against the same j-cluster, each in its own JW
 * lanes (GROMACS's 2xMM), through the including file's KLOAD_J (the j values in every lane
 * group) and KFOLD_J (the groups' sum added to the j-cluster): AVX-512 in float runs 4x8 in 16
 * lanes this way, as an entry holds at most 8 atoms, and 4x4 in one register. */
#include <stdint.h>
#include <string.h>

#if !defined(JW) || JW > VW
#error "the including file defines JW, the j-cluster's atoms, at most VW"
#endif
#ifndef KANY
#error "the including file defines KANY(mask): whether any lane is on"
#endif
#if JW != VW && !(defined(KLOAD_J) && defined(KFOLD_J))
#error "JW < VW needs the including file's KLOAD_J and KFOLD_J"
#endif
#define VI (VW / JW)   /* i-atoms per register */
#define SIMD_CAT2(a, b) a##b
#define SIMD_CAT(a, b) SIMD_CAT2(a, b)
#define SIMD_J(name) SIMD_CAT(name, SIMD_CAT(_j, JW))   /* this instance's name */

#ifndef NBR_CLUSTER_SIMD_COMMON
#define NBR_CLUSTER_SIMD_COMMON
#ifdef NBR_FLOAT
typedef int32_t KI;
#else
typedef int64_t KI;
#endif
typedef real KV __attribute__((vector_size(VW * sizeof(real))));
typedef KI KVI __attribute__((vector_size(VW * sizeof(real))));

#ifndef KM
typedef KVI KM;
#define KLT(a, b) ((a) < (b))
#define KILT(a, b) ((a) < (b))
#define KSEL(v, m) ((KV)((KVI)(v) & (m)))
#endif
static inline double ksum(KV v)
{
    double s = 0;
    for (int l = 0; l < VW; l++) s += v[l];
    return s;
}
/* one case of the registry (common/potentials/all.h): the kind's evaluator body on VW lanes */
#define SIMD_POT_CASE(P, K, name, id) case K: NBR_POT_##id(KV, real, VSQRT, P, r2, qq, f, uu); break;
#endif

/* the j-cluster's JW values in each of the VI lane groups */
static inline KV SIMD_J(kload)(const real *p)
{
#if JW != VW
    return KLOAD_J(p);
#else
    KV v;
    memcpy(&v, p, sizeof v);
    return v;
#endif
}
/* adds the VI lane groups' sums to the j-cluster's JW values */
static inline void SIMD_J(kadd)(real *p, KV v)
{
#if JW != VW
    KFOLD_J(p, v);
#else
    KV s;
    memcpy(&s, p, sizeof s);
    s += v;
    memcpy(p, &s, sizeof s);
#endif
}

/* VW values from p (the unit's atoms and those after them: CLUSTER_SLACK slots past N),
 * lane l taking value sel[l] */
static inline KV SIMD_J(iload)(const real *p, KVI sel)
{
    KV v;
    memcpy(&v, p, sizeof v);
    return __builtin_shuffle(v, sel);
}
/* lane h < VI: the sum of lane group h's JW lanes, added in lane order as a scalar loop would */
static inline KV SIMD_J(igroups)(KV v)
{
    KVI sel;
    for (int l = 0; l < VW; l++) sel[l] = (l % VI) * JW;
    KV s = __builtin_shuffle(v, sel);
    for (int c = 1; c < JW; c++) s += __builtin_shuffle(v, sel + (KI)c);
    return s;
}

/* One entry of the row (SELF: the own cluster, masked to j > i; SHIFTED: through its image) */
#define SIMD_ENTRY(SELF, SHIFTED)                                                                     \
    do {                                                                                              \
        const unsigned e = ent[m];                                                                    \
        const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);                  \
        const real hx = SHIFTED ? H[code][0] : 0, hy = SHIFTED ? H[code][1] : 0,                      \
                   hz = SHIFTED ? H[code][2] : 0;                                                     \
        KV xj = SIMD_J(kload)(X + a0), yj = SIMD_J(kload)(Y + a0), zj = SIMD_J(kload)(Z + a0);          \
        if (SHIFTED) { xj += hx; yj += hy; zj += hz; }                                                \
        const KV qj = SIMD_J(kload)(Q + a0);   /* dead where the kind ignores qq */                   \
        const KM jon = KILT(lane, (KVI){0} + (KI)(CLUSTER_PLANT == 4 ? JW : atoms));                   \
        const KVI jidx = lane + (KI)a0;                                                               \
        KV fxj = {0}, fyj = {0}, fzj = {0};                                                           \
        KM keep = {0}, any = {0};                                                                     \
        for (int t = 0; t < NI; t++) {                                                                \
            KV dx, dy, dz;                                                                            \
            if (SHIFTED) { dx = (xi[t] - hx) - xj; dy = (yi[t] - hy) - yj; dz = (zi[t] - hz) - zj; }  \
            else { dx = xi[t] - xj; dy = yi[t] - yj; dz = zi[t] - zj; }                               \
            const KV r2 = dx * dx + dy * dy + dz * dz;                                                \
            KM slot = jon & ion[t];                                                                   \
            if (SELF) slot &= KILT(iat[t] + (KI)(CLUSTER_PLANT == 3), jidx);                          \
            if (prune) keep |= KLT(r2, rin2) & slot;                                                  \
            const KM on = KLT(r2, rc2) & slot;                                                        \
            /* no pair of the register within r_c (half of them at lammps-lj's cutoff): the      */   \
            /* evaluator's sums would only add zeros                                             */   \
            if (!KANY(on)) continue;                                                                  \
            any |= on;                                                                                \
            const KV qq = qi[t] * qj;                                                                 \
            KV f, uu;                                                                                 \
            switch ((PotentialKind)kind) { NBR_POTENTIALS(SIMD_POT_CASE, A->pot) }                    \
            f = KSEL(f, on);                                                                          \
            const KV gx = f * dx, gy = f * dy, gz = f * dz;                                           \
            fx[t] += gx; fy[t] += gy; fz[t] += gz;                                                    \
            fxj -= gx; fyj -= gy; fzj -= gz;                                                          \
            ua += KSEL(uu, on);                                                                       \
            wa += f * r2;                                                                             \
        }                                                                                             \
        if (prune && KANY(keep)) ent_out[(*kept)++] = e;                                              \
        if (KANY(any)) {                                                                              \
            SIMD_J(kadd)(FX + a0, fxj);                                                               \
            SIMD_J(kadd)(FY + a0, fyj);                                                               \
            SIMD_J(kadd)(FZ + a0, fzj);                                                               \
        }                                                                                             \
    } while (0)

/* one row for one potential kind (a constant at the call: each kind its own loop) */
static inline __attribute__((always_inline)) void SIMD_J(simd_row)(const ClusterForceArgs *A, int u, const int kind,
                                                                   const int prune, const real (*H)[3], int *kept,
                                                                   KV *uacc, KV *wacc)
{
    const int i0 = A->unit_first[u], ni = A->unit_count[u];
    /* A's arrays in locals: the j-folds' stores (intrinsics, which may alias anything) would
     * otherwise reload each pointer from A after every entry */
    const real *const X = A->x, *const Y = A->y, *const Z = A->z, *const Q = A->q;
    real *const FX = A->fx, *const FY = A->fy, *const FZ = A->fz;
    const unsigned *const ent = A->ent;
    unsigned *const ent_out = A->ent_out;
    const KV rc2 = (KV){0} + A->pot.rc2, rin2 = (KV){0} + A->rin2;
    KVI lane, ilane;   /* a lane's j-atom and its i-atom within the register's VI */
    for (int l = 0; l < VW; l++) { lane[l] = l % JW; ilane[l] = l / JW; }
    enum { NI = CLUSTER_I / VI };   /* registers of i-atoms */
    KV xi[NI], yi[NI], zi[NI], qi[NI], fx[NI], fy[NI], fz[NI];
    KM ion[NI];
    KVI iat[NI];
    KV ua = {0}, wa = {0};
    for (int t = 0; t < NI; t++) {
        /* lane l: atom t VI + l / JW of the unit, a padding slot atom 0 (one permute of a
         * load, not lane-wise stores that a vector load then cannot forward from) */
        const KVI ti = ilane + (KI)(t * VI), sel = ti & (ti < (KI)ni);
        xi[t] = SIMD_J(iload)(X + i0, sel); yi[t] = SIMD_J(iload)(Y + i0, sel);
        zi[t] = SIMD_J(iload)(Z + i0, sel); qi[t] = SIMD_J(iload)(Q + i0, sel);
        fx[t] = fy[t] = fz[t] = (KV){0};
        iat[t] = ilane + (KI)(i0 + t * VI);
        ion[t] = KILT(iat[t], (KVI){0} + (KI)(i0 + ni));   /* padding i-slots: their lanes off */
    }
    /* A row: the own cluster first where it is there (the self mask, only there: every other
     * j-cluster of a half list lies above the unit), then the unshifted entries, then those
     * with a periodic image (the build lists them last); each run its own copy of the body */
    int m = A->row_start[u];
    const int end = A->row_start[u + 1];
    if (m < end && entry_code(ent[m]) == SHIFT_NONE && entry_first(ent[m]) <= i0) {
        SIMD_ENTRY(1, 0);
        m++;
    }
    for (; m < end && entry_code(ent[m]) == SHIFT_NONE; m++) SIMD_ENTRY(0, 0);
    for (; m < end; m++) SIMD_ENTRY(0, 1);
    *uacc += ua;
    *wacc += wa;
    real sx[NI][VW], sy[NI][VW], sz[NI][VW];
    for (int t = 0; t < NI; t++) {
        const KV gx = SIMD_J(igroups)(fx[t]), gy = SIMD_J(igroups)(fy[t]), gz = SIMD_J(igroups)(fz[t]);
        memcpy(sx[t], &gx, sizeof gx); memcpy(sy[t], &gy, sizeof gy); memcpy(sz[t], &gz, sizeof gz);
    }
    for (int ti = 0; ti < ni; ti++) {
        const int t = ti / VI, h = ti % VI;
        FX[i0 + ti] += sx[t][h]; FY[i0 + ti] += sy[t][h]; FZ[i0 + ti] += sz[t][h];
    }
}

/* every row, the kind and whether it prunes chosen once */
static void SIMD_J(simd_rows)(const ClusterForceArgs *A, double *upot, double *virial)
{
    KV ua = {0}, wa = {0};
    int kept = 0;
    real H[27][3];
    cluster_half_shifts(A->L, H);
#define SIMD_ROWS(K)                                                                        \
    if (A->ent_out)                                                                         \
        for (int u = 0; u < A->nunits; u++) {                                               \
            A->row_out[u] = kept;                                                           \
            SIMD_J(simd_row)(A, u, K, 1, (const real(*)[3])H, &kept, &ua, &wa);             \
        }                                                                                   \
    else                                                                                    \
        for (int u = 0; u < A->nunits; u++) SIMD_J(simd_row)(A, u, K, 0, (const real(*)[3])H, &kept, &ua, &wa)
    NBR_POTENTIAL_DISPATCH(A->pot.kind, SIMD_ROWS);
#undef SIMD_ROWS
    if (A->ent_out) A->row_out[A->nunits] = kept;
    *upot = ksum(ua);
    *virial = ksum(wa);
}
#undef SIMD_ENTRY
#undef VI
#undef SIMD_J
