/* cluster_list.c - the CPU cluster-pair list's build (see cluster_list.h). */
#include "cluster_list.h"
#include "cpu_lists.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int floor_div(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void cpu_cluster_init(CpuClusterList *cl, Sim *s, int C)
{
    memset(cl, 0, sizeof *cl);
    const double rho = s->n / ((double)s->L * s->L * s->L), a = cbrt(C / rho);
    if (2 * (double)s->rn >= s->L)
        nbr_fail(EXIT_INPUT, "%s: r_n = %.4g is not below L/2 = %.4g: a pair would have two images within r_n; "
                 "raise --ne", s->variant->name, (double)s->rn, 0.5 * s->L);
    cl->C = C;
    cl->G = (int)fmax(1.0, floor(s->L / a + 0.5));
    cl->ncols = cl->G * cl->G;
    cl->L = s->L;
    cl->w = s->L / cl->G;
    cl->rn = s->rn;
    cl->cap_clusters = s->n / C + cl->ncols;
    const int nc = cl->cap_clusters, nu = nc * (C / CLUSTER_I);
    cl->col_cl = nbr_alloc(sizeof(int) * (cl->ncols + 1), "cluster columns");
    cl->cl_first = nbr_alloc(sizeof(int) * nc, "cluster table");
    cl->cl_count = nbr_alloc(sizeof(int) * nc, "cluster table");
    cl->lo = nbr_alloc(sizeof(real) * 3 * nc, "cluster boxes");
    cl->hi = nbr_alloc(sizeof(real) * 3 * nc, "cluster boxes");
    cl->unit_first = nbr_alloc(sizeof(int) * nu, "i-units");
    cl->unit_count = nbr_alloc(sizeof(int) * nu, "i-units");
    cl->row_start = nbr_alloc(sizeof(int) * (nu + 1), "cluster rows");
    cl->order = nbr_alloc(sizeof(int) * s->n, "cluster sort");
    cl->key = nbr_alloc(sizeof(int) * s->n, "cluster sort");
    cl->ent_cap = (size_t)nu * 32;
    cl->ent = nbr_alloc(sizeof(unsigned) * cl->ent_cap, "cluster-pair entries");
}

void cpu_cluster_free(CpuClusterList *cl)
{
    void *p[] = {cl->col_cl, cl->cl_first, cl->cl_count, cl->lo, cl->hi, cl->unit_first, cl->unit_count,
                 cl->row_start, cl->ent, cl->shifted, cl->order, cl->key};
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) free(p[k]);
    memset(cl, 0, sizeof *cl);
}

double cpu_cluster_bytes(const CpuClusterList *cl)
{
    return 4.0 * cl->row_start[cl->nunits] + 4.0 * (cl->nunits + 1) + 8.0 * cl->nunits +
           (8.0 + 24.0 / 4 * sizeof(real)) * cl->ncl;
}

typedef struct { real z; int i; } ZKey;
static inline int z_before(ZKey x, ZKey y) { return x.z < y.z || (x.z == y.z && x.i < y.i); }
/* Insertion sort by (z, i): a column arrives in the last build's z order, the atoms moved by
 * less than the skin since, so nearly sorted (qsort's calls of a comparator were 5% of an sp
 * run's time). The order is total, so the result is qsort's. */
static void sort_z(ZKey *a, int n)
{
    for (int k = 1; k < n; k++) {
        const ZKey v = a[k];
        int j = k;
        for (; j > 0 && z_before(v, a[j - 1]); j--) a[j] = a[j - 1];
        a[j] = v;
    }
}

/* columns by counting sort, z inside a column; the atoms permuted to that order */
static void sort_atoms(CpuClusterList *cl, Sim *s)
{
    const int n = s->n, G = cl->G;
    const real inv_w = 1 / cl->w;
    int *count = cl->col_cl;   /* ncols + 1, reused as the column starts */
    memset(count, 0, sizeof(int) * (cl->ncols + 1));
    for (int i = 0; i < n; i++) {
        const int c = cell_coord(s->r[i].y, s->L, inv_w, G) * G + cell_coord(s->r[i].x, s->L, inv_w, G);
        cl->key[i] = c;
        count[c + 1]++;
    }
    for (int c = 0; c < cl->ncols; c++) count[c + 1] += count[c];
    int *at = nbr_alloc(sizeof(int) * cl->ncols, "cluster sort");
    memcpy(at, count, sizeof(int) * cl->ncols);
    for (int i = 0; i < n; i++) cl->order[at[cl->key[i]]++] = i;
    free(at);
    ZKey *zk = nbr_alloc(sizeof(ZKey) * n, "cluster sort");
    for (int k = 0; k < n; k++) zk[k] = (ZKey){s->r[cl->order[k]].z, cl->order[k]};
    for (int c = 0; c < cl->ncols; c++) sort_z(zk + count[c], count[c + 1] - count[c]);
    for (int k = 0; k < n; k++) cl->order[k] = zk[k].i;
    free(zk);
    reorder_atoms(s, cl->order);
}

static void grow(CpuClusterList *cl, size_t need)
{
    if (need <= cl->ent_cap) return;
    cl->ent_cap = need * 3 / 2;
    cl->ent = realloc(cl->ent, sizeof(unsigned) * cl->ent_cap);
    if (!cl->ent) nbr_fail(3, "cpu-cluster: out of memory for the cluster-pair entries");
}

static void grow_shifted(CpuClusterList *cl, size_t need)
{
    if (need <= cl->shifted_cap) return;
    cl->shifted_cap = need * 2;
    cl->shifted = realloc(cl->shifted, sizeof(unsigned) * cl->shifted_cap);
    if (!cl->shifted) nbr_fail(3, "cpu-cluster: out of memory for the cluster-pair entries");
}

/* the gap between [lo, hi] and [a, b] (0 where they overlap); conditionals, not libm's fmax
 * (a call each: 9% of a lammps-lj run's time when it was) */
static inline real gap(real lo, real hi, real a, real b)
{
    const real d = a - hi, e = lo - b, m = d > e ? d : e;
    return m > 0 ? m : 0;
}
/* the same gap for the 4 atoms of an i-unit at once, and whether any lane is set */
typedef real V4 __attribute__((vector_size(CLUSTER_I * sizeof(real))));
#ifdef NBR_FLOAT
typedef int32_t V4I __attribute__((vector_size(CLUSTER_I * sizeof(real))));
#else
typedef int64_t V4I __attribute__((vector_size(CLUSTER_I * sizeof(real))));
#endif
static inline V4 vmax(V4 a, V4 b)
{
    const V4I m = a < b;
    return (V4)(((V4I)a & ~m) | ((V4I)b & m));
}
static inline V4 vgap(V4 p, real a, real b) { return vmax(vmax(a - p, p - b), (V4){0}); }
static inline int vany(V4I m)   /* as 64-bit words: no lane extracted on its own */
{
    uint64_t w[sizeof m / 8], o = 0;
    memcpy(w, &m, sizeof m);
    for (size_t k = 0; k < sizeof m / 8; k++) o |= w[k];
    return o != 0;
}
static inline real rmin(real a, real b) { return a < b ? a : b; }
static inline real rmax(real a, real b) { return a > b ? a : b; }

void cpu_cluster_build(CpuClusterList *cl, Sim *s)
{
    sort_atoms(cl, s);
    const int G = cl->G, C = cl->C, upc = C / CLUSTER_I;
    const real L = cl->L, half = (real)0.5 * L, rn = cl->rn, rn2 = rn * rn;
    /* clusters per column (col_cl holds the column starts in atoms until now) */
    int *col_atom = nbr_alloc(sizeof(int) * (cl->ncols + 1), "cluster columns");
    memcpy(col_atom, cl->col_cl, sizeof(int) * (cl->ncols + 1));
    int ncl = 0;
    for (int c = 0; c < cl->ncols; c++) {
        cl->col_cl[c] = ncl;
        for (int a = col_atom[c]; a < col_atom[c + 1]; a += C, ncl++) {
            cl->cl_first[ncl] = a;
            cl->cl_count[ncl] = col_atom[c + 1] - a < C ? col_atom[c + 1] - a : C;
            real *lo = cl->lo + 3 * ncl, *hi = cl->hi + 3 * ncl;
            lo[0] = hi[0] = s->r[a].x; lo[1] = hi[1] = s->r[a].y; lo[2] = hi[2] = s->r[a].z;
            for (int b = a + 1; b < a + cl->cl_count[ncl]; b++) {
                const real p[3] = {s->r[b].x, s->r[b].y, s->r[b].z};
                for (int d = 0; d < 3; d++) { lo[d] = rmin(lo[d], p[d]); hi[d] = rmax(hi[d], p[d]); }
            }
        }
    }
    cl->col_cl[cl->ncols] = ncl;
    free(col_atom);
    cl->ncl = ncl;
    cl->nunits = ncl * upc;
    const int R = (int)(rn / cl->w) + 1, span = 2 * R + 1;
    /* per column offset and z image, the first cluster whose top reaches the unit's reach: the
     * units of one column come in z order, so it only moves up until the column changes (a
     * binary search per unit and neighbour column was a quarter of the build) */
    int *from = nbr_alloc(sizeof(int) * span * span * 3, "cluster search");
    size_t m = 0;
    long long slots = 0;   /* an integer sum: no floating-point chain through the search */
    for (int A = 0, prev = -1; A < ncl; A++) {
        const int col = (int)(cell_coord(s->r[cl->cl_first[A]].y, L, 1 / cl->w, G) * G +
                              cell_coord(s->r[cl->cl_first[A]].x, L, 1 / cl->w, G));
        const int cx = col % G, cy = col / G;
        if (col != prev)
            for (int k = 0; k < span * span * 3; k++) from[k] = -1;
        prev = col;
        for (int k = 0; k < upc; k++) {
            const int u = A * upc + k, i0 = cl->cl_first[A] + k * CLUSTER_I;
            int ni = cl->cl_count[A] - k * CLUSTER_I;
            ni = ni < 0 ? 0 : ni > CLUSTER_I ? CLUSTER_I : ni;
            cl->unit_first[u] = i0;
            cl->unit_count[u] = ni;
            cl->row_start[u] = (int)m;
            if (!ni) continue;
            real lo[3] = {s->r[i0].x, s->r[i0].y, s->r[i0].z}, hi[3] = {lo[0], lo[1], lo[2]};
            for (int b = i0 + 1; b < i0 + ni; b++) {
                const real p[3] = {s->r[b].x, s->r[b].y, s->r[b].z};
                for (int d = 0; d < 3; d++) { lo[d] = rmin(lo[d], p[d]); hi[d] = rmax(hi[d], p[d]); }
            }
            V4 ax, ay, az;   /* the unit's atoms, a short unit's last lanes repeating its first */
            for (int t = 0; t < CLUSTER_I; t++) {
                const vec3 p = s->r[t < ni ? i0 + t : i0];
                ax[t] = p.x, ay[t] = p.y, az[t] = p.z;
            }
            /* the own cluster first, unshifted, masked to j > i */
            size_t nsh = 0;
            grow(cl, m + 1);
            cl->ent[m++] = cluster_entry(cl->cl_first[A], cl->cl_count[A], SHIFT_NONE);
            for (int t = 0; t < ni; t++) {
                const int j_end = cl->cl_first[A] + cl->cl_count[A];
                slots += j_end - (i0 + t) - 1;
            }
            for (int dy = -R; dy <= R; dy++)
                for (int dx = -R; dx <= R; dx++) {
                    const int ix = cx + dx, iy = cy + dy, sx = floor_div(ix, G), sy = floor_div(iy, G);
                    const int c = (iy - sy * G) * G + (ix - sx * G);
                    if (c < col) continue;   /* Newton 3: its clusters all come before A */
                    const real x0 = ix * cl->w - half, y0 = iy * cl->w - half;
                    const real gx = gap(lo[0], hi[0], x0, x0 + cl->w), gy = gap(lo[1], hi[1], y0, y0 + cl->w);
                    if (gx * gx + gy * gy >= rn2) continue;
                    for (int sz = -1; sz <= 1; sz++) {
                        /* an image along z only where the unit's reach crosses that face */
                        if ((sz < 0 && lo[2] + half >= rn) || (sz > 0 && half - hi[2] >= rn)) continue;
                        const int code = shift_code(CLUSTER_PLANT == 2 ? -sx : sx, sy, sz);
                        const real Sx = sx * L, Sy = sy * L, Sz = sz * L;
                        /* the column's clusters in z order: the first whose top reaches lo - r_n */
                        int *f = from + ((dy + R) * span + (dx + R)) * 3 + (sz + 1);
                        int b0 = *f < 0 ? cl->col_cl[c] : *f;
                        while (b0 < cl->col_cl[c + 1] && cl->hi[3 * b0 + 2] + Sz < lo[2] - rn) b0++;
                        *f = b0;
                        /* Newton 3: B > A, or A itself through an image above 13 (the column holds
                         * its clusters in index order, so the scan starts there) */
                        const int first = code > SHIFT_NONE ? A : A + 1;
                        if (b0 < first) b0 = first;
                        /* every candidate written, kept by advancing the count (no branch on
                         * the test's outcome, which no predictor guesses) */
                        const int b_end = cl->col_cl[c + 1];
                        unsigned *dst;
                        size_t *nd;
                        if (code == SHIFT_NONE) {
                            grow(cl, m + (b_end > b0 ? b_end - b0 : 0));
                            dst = cl->ent, nd = &m;
                        } else {
                            grow_shifted(cl, nsh + (b_end > b0 ? b_end - b0 : 0));
                            dst = cl->shifted, nd = &nsh;
                        }
                        /* the count and the tables in locals: gcc reloads them around each
                         * store through dst otherwise */
                        size_t k = *nd;
                        int kept_atoms = 0;
                        const real *const clo = cl->lo, *const chi = cl->hi, top = hi[2] + rn;
                        const int *const cfirst = cl->cl_first, *const ccount = cl->cl_count;
                        for (int B = b0; B < b_end && clo[3 * B + 2] + Sz <= top; B++) {
                            if (CLUSTER_PLANT == 1 && B == A + 1 && code == SHIFT_NONE) continue;
                            /* within r_n of one of the unit's atoms (so of its box too): the union
                             * of their spheres is tighter than the box's reach, and each slot
                             * listed costs every step */
                            const real *bl = clo + 3 * B, *bh = chi + 3 * B;
                            const V4 ex = vgap(ax, bl[0] + Sx, bh[0] + Sx), ey = vgap(ay, bl[1] + Sy, bh[1] + Sy),
                                     ez = vgap(az, bl[2] + Sz, bh[2] + Sz);
                            const int near = vany(ex * ex + ey * ey + ez * ez < rn2);
                            dst[k] = cluster_entry(cfirst[B], ccount[B], code);
                            k += near;
                            kept_atoms += near * ccount[B];
                        }
                        *nd = k;
                        slots += (long long)ni * kept_atoms;
                    }
                }
            /* the entries through an image last: the force loops run them in a copy of their own */
            grow(cl, m + nsh);
            memcpy(cl->ent + m, cl->shifted, sizeof(unsigned) * nsh);
            m += nsh;
        }
    }
    free(from);
    cl->row_start[cl->nunits] = (int)m;
    cl->slots = (double)slots;
}

double cpu_cluster_pairs(const CpuClusterList *cl, const Sim *s, const int *row_start, const unsigned *ent, PairFn fn,
                         void *arg, double *within)
{
    const double rn2 = (double)s->rn * s->rn, rc2 = (double)(real)s->p.rc * (real)s->p.rc;
    double slots = 0;
    *within = 0;
    for (int u = 0; u < cl->nunits; u++)
        for (int m = row_start[u]; m < row_start[u + 1]; m++)
            slots += cluster_entry_cover((const real *)s->r, 3, cl->unit_first[u], cl->unit_count[u], ent[m], 1,
                                         s->L, rn2, rc2, fn, arg, within);
    return slots;
}
