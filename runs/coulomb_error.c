/* coulomb_error.c - where the float kernels' Coulomb energy error comes from (issue 12), on the
 * CPU, by emulating the tiled kernel's float arithmetic against the exact energy (double
 * positions, double terms). Built and run by runs/coulomb_error.sh; reads x y z q lines (what
 * `coulomb --write` writes). Each float source is switched on one at a time, every other step
 * done in double and every sum compensated; the sources are switched on cumulatively, so each
 * row's change from the one above is that source's part:
 *   input    the positions and charges rounded to float, everything else exact
 *   dx, r^2  + the differences and r^2 in float (FMA chain, as nvcc contracts it)
 *   rsqrt    + the reciprocal square root correctly rounded to float (the GPU's MUFU.RSQ is
 *            approximate, ~2 ulp: the measured energy minus the kahan row is its part)
 *   (prod    + q_j * rsqrt rounded to float: the kernels do not round it, nvcc and OpenCL
 *            contract t += q_j * rsqrt into an FMA; shown for what a plain compiler would do)
 *   kahan    + the kernel's kahan summation: a float sum per tile of BLOCK terms (j in order,
 *            t = fmaf(q_j, rsqrt, t)), the tile sums Kahan-compensated, hi * q_i split exactly
 *   float    + the same plain float sum over the whole row (--acc float), row sums added exactly
 * in up to three columns: g, the positions as given; c, relative to the centre of their bounding
 * box (smaller numbers, but differences across 0 are no longer exact: worse); s, as given with
 * row i scaled by its own s_i in [1, 2), dx = fmaf(-s_i, x_j, s_i x_i) (what the kahan and
 * pairwise kernels do: rows of equal r^2 no longer share one rounding error). Output: one line
 * per source, relative error (E_emulated - E_exact) / |E_exact|. The charges' sum q_i * row is
 * taken in double for all but the kahan and float rows.
 *   usage: coulomb_error FILE [BLOCK (128) [E_EXACT (kcal/mol; nan: computed here) [COLUMNS (gcs)]]] */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct { double s, c; } Acc;   /* Neumaier: s + c */
static void acc_add(Acc *a, double t)
{
    double u = a->s + t;
    a->c += fabs(a->s) >= fabs(t) ? (a->s - u) + t : (t - u) + a->s;
    a->s = u;
}
static double acc_val(const Acc *a) { return a->s + a->c; }

/* the coordinates: as given; relative to the centre of their box; as given but row i scaled
 * by its own s_i in [1, 2) (the kernels' kahan and pairwise modes) */
enum { V_GIVEN, V_CENTRED, V_SCALED, NV };
static const char *const v_names[NV] = {"as given", "centred", "row-scaled"};

/* s_i: a hash of i in [1, 2) (coulomb.cu's row_scale) */
static float row_scale(long i)
{
    unsigned h = (unsigned)i;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return 1.0f + (float)(h >> 9) * 0x1p-23f;
}

enum { S_INPUT, S_R2, S_RSQRT, S_PROD, S_KAHAN, S_FLOAT, NS };
static const char *const src_names[NS] = {"input (positions, charges in float)", "+ dx, r^2 in float",
                                          "+ rsqrt in float (correctly rounded)",
                                          "  (+ q_j * rsqrt rounded: not on the GPU, an FMA)",
                                          "+ kahan: tile sums fmaf(q_j, rsqrt, t), Kahan over tiles",
                                          "+ plain float: fmaf(q_j, rsqrt, s) over the row"};

int main(int argc, char **argv)
{
    if (argc < 2) { fprintf(stderr, "usage: %s FILE.xyzq [BLOCK [E_EXACT]]\n", argv[0]); return 2; }
    const long block = argc > 2 ? atol(argv[2]) : 128;
    const double K = 332.0636, e_given = argc > 3 ? atof(argv[3]) : NAN;   /* kcal/mol */
    const int given = !isnan(e_given);
    const char *variants = argc > 4 ? argv[4] : "gcs";
    FILE *f = fopen(argv[1], "r");
    if (!f) { perror(argv[1]); return 2; }
    long cap = 1 << 16, n = 0;
    double *x = malloc(cap * sizeof *x), *y = malloc(cap * sizeof *y), *z = malloc(cap * sizeof *z),
           *q = malloc(cap * sizeof *q);
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#' || line[0] == '\n') continue;
        if (n == cap) {
            cap *= 2;
            x = realloc(x, cap * sizeof *x); y = realloc(y, cap * sizeof *y);
            z = realloc(z, cap * sizeof *z); q = realloc(q, cap * sizeof *q);
        }
        if (sscanf(line, "%lf %lf %lf %lf", &x[n], &y[n], &z[n], &q[n]) != 4) {
            fprintf(stderr, "%s: bad line %ld\n", argv[1], n + 1);
            return 2;
        }
        n++;
    }
    fclose(f);
    double lo[3] = {INFINITY, INFINITY, INFINITY}, hi[3] = {-INFINITY, -INFINITY, -INFINITY};
    for (long i = 0; i < n; i++) {
        const double p[3] = {x[i], y[i], z[i]};
        for (int d = 0; d < 3; d++) { lo[d] = fmin(lo[d], p[d]); hi[d] = fmax(hi[d], p[d]); }
    }
    printf("# %s: %ld atoms, box [%.4g, %.4g] x [%.4g, %.4g] x [%.4g, %.4g] A, tiles of %ld\n", argv[1], n, lo[0],
           hi[0], lo[1], hi[1], lo[2], hi[2], block);

    float *fx = malloc(n * sizeof *fx), *fy = malloc(n * sizeof *fy), *fz = malloc(n * sizeof *fz),
          *fq = malloc(n * sizeof *fq);
    Acc ex = {0, 0}, abs_sum = {0, 0};
    double err[NV][NS];
    for (int v = 0; v < NV; v++) {
        if (!strchr(variants, "gcs"[v])) continue;
        const int centred = v == V_CENTRED, scaled = v == V_SCALED;
        double c[3] = {0, 0, 0};
        if (centred)
            for (int d = 0; d < 3; d++) c[d] = 0.5 * (lo[d] + hi[d]);
        for (long i = 0; i < n; i++) {
            fx[i] = (float)(x[i] - c[0]); fy[i] = (float)(y[i] - c[1]); fz[i] = (float)(z[i] - c[2]);
            fq[i] = (float)q[i];
        }
        Acc tot[NS];
        memset(tot, 0, sizeof tot);
#pragma omp parallel
        {
            Acc my[NS], my_ex = {0, 0}, my_abs = {0, 0};
            memset(my, 0, sizeof my);
            float *term = malloc(block * sizeof *term);
#pragma omp for schedule(dynamic, 8)
            for (long i = 0; i < n; i++) {
                /* the exact row and each source's row, as differences from the exact terms */
                double rex = 0, rabs = 0, r_in = 0, r_r2 = 0, r_rs = 0, r_prod = 0;
                float ks = 0, kc = 0, fs = 0;   /* kahan: s + c; plain float */
                const double xi = x[i], yi = y[i], zi = z[i];
                /* V_SCALED: row i in coordinates scaled by s_i (dx = s_i x_i - s_i x_j in one FMA) */
                const float si = scaled ? row_scale(i) : 1.0f;
                const float fxi = si * fx[i], fyi = si * fy[i], fzi = si * fz[i];
                for (long t0 = i + 1; t0 < n; t0 = (t0 / block + 1) * block) {   /* tile by tile */
                    const long t1 = (t0 / block + 1) * block < n ? (t0 / block + 1) * block : n;
#pragma omp simd reduction(+ : rex, rabs, r_in, r_r2, r_rs, r_prod)
                    for (long j = t0; j < t1; j++) {
                        const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
                        const double e = given ? 0 : q[j] / sqrt(dx * dx + dy * dy + dz * dz);
                        /* float positions, exact differences in double */
                        const double ddx = (double)fx[i] - fx[j], ddy = (double)fy[i] - fy[j], ddz = (double)fz[i] - fz[j];
                        const double e_in = fq[j] / sqrt(ddx * ddx + ddy * ddy + ddz * ddz);
                        const float gx = fmaf(-si, fx[j], fxi), gy = fmaf(-si, fy[j], fyi), gz = fmaf(-si, fz[j], fzi);
                        const float r2 = fmaf(gz, gz, fmaf(gy, gy, gx * gx));
                        const double rs = 1.0 / sqrt((double)r2);
                        const double e_r2 = fq[j] * rs;
                        const float rsf = (float)rs;
                        term[j - t0] = rsf;
                        rex += e; rabs += fabs(e);
                        r_in += e_in; r_r2 += e_r2; r_rs += fq[j] * (double)rsf; r_prod += fq[j] * rsf;
                    }
                    float tsum = 0;   /* the kernel's order: j ascending within the tile */
                    for (long j = t0; j < t1; j++) {
                        tsum = fmaf(fq[j], term[j - t0], tsum);
                        fs = fmaf(fq[j], term[j - t0], fs);
                    }
                    float yk = tsum + kc, u = ks + yk;
                    kc = yk - (u - ks);
                    ks = u;
                }
                const double qi = q[i];
                const float qs = fq[i] * si;   /* q_i s_i: what the kernel multiplies the row by */
                const float h = ks * qs, l = kc * qs + fmaf(ks, qs, -h);
                const double fqi = fq[i];   /* the rows' sums are a few units, exact to ~1e-16 */
                acc_add(&my[S_INPUT], fqi * r_in);
                acc_add(&my[S_R2], fqi * (double)si * r_r2);
                acc_add(&my[S_RSQRT], fqi * (double)si * r_rs);
                acc_add(&my[S_PROD], fqi * (double)si * r_prod);
                acc_add(&my[S_KAHAN], (double)h + (double)l);
                acc_add(&my[S_FLOAT], (double)(fs * qs));
                if (!given && v == V_GIVEN) { acc_add(&my_ex, qi * rex); acc_add(&my_abs, fabs(qi) * rabs); }
            }
#pragma omp critical
            {
                for (int k = 0; k < NS; k++) { acc_add(&tot[k], my[k].s); acc_add(&tot[k], my[k].c); }
                if (v == V_GIVEN) {
                    acc_add(&ex, my_ex.s); acc_add(&ex, my_ex.c);
                    acc_add(&abs_sum, my_abs.s); acc_add(&abs_sum, my_abs.c);
                }
            }
            free(term);
        }
        if (given) ex.s = e_given / K;
        for (int k = 0; k < NS; k++) err[v][k] = (acc_val(&tot[k]) - acc_val(&ex)) / fabs(acc_val(&ex));
    }
    if (given) printf("# E_exact = %.15g kcal/mol (given)\n", e_given);
    else printf("# E_exact = %.15g kcal/mol (double, compensated), condition sum|E_ij|/|E| = %.4g\n",
                K * acc_val(&ex), acc_val(&abs_sum) / fabs(acc_val(&ex)));
    printf("%-60s", "# float source (cumulative)");
    for (int v = 0; v < NV; v++)
        if (strchr(variants, "gcs"[v])) printf(" %14s", v_names[v]);
    printf("\n");
    for (int k = 0; k < NS; k++) {
        printf("%-60s", src_names[k]);
        for (int v = 0; v < NV; v++)
            if (strchr(variants, "gcs"[v])) printf(" %14.4g", err[v][k]);
        printf("\n");
    }
    return 0;
}
