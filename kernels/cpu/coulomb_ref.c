/* coulomb_ref.c - the Coulomb energy on the CPU (see coulomb_ref.h).
 *
 * Every loop is the thesis's Appendix B loop, E = sum_i q_i sum_{j>i} q_j / r_ij, with the j loop
 * in L lanes (an `omp simd` loop over padded arrays: padding atoms have charge 0 and sit far
 * away, so they add exactly 0) and the i loop over the cores (dynamic schedule: row i has
 * n - 1 - i terms). A caught SIGINT / SIGTERM skips the rows not begun (a loop at a million atoms
 * takes minutes; a row, a millisecond): the caller sees it (nbr_interrupted) and stops. */
#include "coulomb_ref.h"
#include "../../common/core.h"
#include "../../common/csvrow.h"
#include "../../common/fail.h"
#include "../../common/interrupt.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

enum { L = 16 };                 /* lanes of the inner loop */
static const double FAR = 1e15;  /* where padding atoms sit */

static int nthreads(int threads)
{
#ifdef _OPENMP
    return threads > 0 ? threads : omp_get_max_threads();
#else
    (void)threads;
    return 1;
#endif
}

/* n rounded up to whole lanes, plus one more lane: a row starting at i + 1 reads L past it. */
static long padded(long n) { return (n + L - 1) / L * L + L; }

typedef struct { double *x, *y, *z, *q; long np; } Dbl;
typedef struct { float *x, *y, *z, *q; long np; } Flt;

/* The padded copy of the system in type T (padding atoms far away with charge 0), and its
 * release: written once for both precisions. */
#define PADDED_COPY(NAME, S, T)                                                                  \
    static void NAME##_make(S *d, const ChargeSystem *s)                                         \
    {                                                                                            \
        d->np = padded(s->n);                                                                    \
        size_t bytes = sizeof(T) * (size_t)d->np;                                                \
        d->x = nbr_alloc(bytes, "reference positions"); d->y = nbr_alloc(bytes, "reference positions"); \
        d->z = nbr_alloc(bytes, "reference positions"); d->q = nbr_alloc(bytes, "reference charges");   \
        for (long i = 0; i < d->np; i++) {                                                       \
            int in = i < s->n;                                                                   \
            d->x[i] = (T)(in ? s->x[i] : FAR); d->y[i] = (T)(in ? s->y[i] : FAR);                \
            d->z[i] = (T)(in ? s->z[i] : FAR); d->q[i] = (T)(in ? s->q[i] : 0);                  \
        }                                                                                        \
    }                                                                                            \
    static void NAME##_free(S *d) { free(d->x); free(d->y); free(d->z); free(d->q); }
PADDED_COPY(dbl, Dbl, double)
PADDED_COPY(flt, Flt, float)
#undef PADDED_COPY

/* Neumaier: s + c holds the sum; adds t. */
#define NEUMAIER(s, c, t)                                                   \
    do {                                                                    \
        double t_ = (t), u_ = (s) + t_;                                     \
        (c) += fabs(s) >= fabs(t_) ? ((s) - u_) + t_ : (t_ - u_) + (s);     \
        (s) = u_;                                                           \
    } while (0)

double coulomb_ref_exact(const ChargeSystem *sys, int threads, double *abs_sum)
{
    Dbl d;
    dbl_make(&d, sys);
    long n = sys->n;
    double *hi = nbr_alloc(sizeof(double) * (size_t)(n + 1), "reference row sums");
    double *lo = nbr_alloc(sizeof(double) * (size_t)(n + 1), "reference row sums");
    double *ab = nbr_alloc(sizeof(double) * (size_t)(n + 1), "reference row sums");
    const double *x = d.x, *y = d.y, *z = d.z, *q = d.q;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads(threads))
    for (long i = 0; i < n; i++) {
        if (nbr_interrupted()) continue;   /* the row sums are dropped: the caller stops */
        double s[L] = {0}, c[L] = {0}, a[L] = {0};
        const double xi = x[i], yi = y[i], zi = z[i];
        for (long j0 = i + 1; j0 < n; j0 += L) {
#pragma omp simd
            for (int l = 0; l < L; l++) {
                long j = j0 + l;
                double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
                double t = q[j] / sqrt(dx * dx + dy * dy + dz * dz);
                NEUMAIER(s[l], c[l], t);
                a[l] += fabs(t);
            }
        }
        double S = 0, C = 0, A = 0;
        for (int l = 0; l < L; l++) { NEUMAIER(S, C, s[l]); C += c[l]; A += a[l]; }
        hi[i] = q[i] * S;
        lo[i] = q[i] * C;
        ab[i] = fabs(q[i]) * A;
    }
    double S = 0, C = 0, A = 0;
    for (long i = 0; i < n; i++) { NEUMAIER(S, C, hi[i]); C += lo[i]; A += ab[i]; }
    if (abs_sum) *abs_sum = COULOMB_K * A;
    free(hi); free(lo); free(ab);
    dbl_free(&d);
    return COULOMB_K * (S + C);
}

/* The spread that rounding the positions to float alone gives E (first order, each coordinate
 * off by up to half an ulp, uniform: sd u |x| / sqrt(3) with u = 2^-24): sqrt(sum (F_id x_id)^2)
 * u / sqrt(3), F_i = -dE/dr_i from double terms over full rows. */
double coulomb_ref_rounding_spread(const ChargeSystem *sys, int threads)
{
    Dbl d;
    dbl_make(&d, sys);
    const long n = sys->n;
    const double *x = d.x, *y = d.y, *z = d.z, *q = d.q;
    double sum = 0;
#pragma omp parallel for schedule(dynamic, 16) reduction(+ : sum) num_threads(nthreads(threads))
    for (long i = 0; i < n; i++) {
        double fx = 0, fy = 0, fz = 0;
        const double xi = x[i], yi = y[i], zi = z[i];
#pragma omp simd reduction(+ : fx, fy, fz)
        for (long j = 0; j < n; j++) {
            const double dx = xi - x[j], dy = yi - y[j], dz = zi - z[j], r2 = dx * dx + dy * dy + dz * dz;
            const double w = j == i ? 0 : q[j] / (r2 * sqrt(r2));
            fx += w * dx, fy += w * dy, fz += w * dz;
        }
        fx *= COULOMB_K * q[i] * xi, fy *= COULOMB_K * q[i] * yi, fz *= COULOMB_K * q[i] * zi;
        sum += fx * fx + fy * fy + fz * fz;
    }
    dbl_free(&d);
    return 0x1p-24 / sqrt(3.0) * sqrt(sum);
}

/* ---- --impl ref --------------------------------------------------------------------------- */
typedef struct { Dbl d; Flt f; float *hi, *lo; } RefCtx;

static void ref_setup(CoulombRun *r)
{
    RefCtx *c = calloc(1, sizeof *c);
    if (!c) nbr_fail(EXIT_CAPACITY, "cannot allocate the reference context");
    if (r->p->acc == ACC_DOUBLE) dbl_make(&c->d, r->sys);
    else if (r->p->acc != ACC_EXACT) flt_make(&c->f, r->sys);   /* exact makes its own */
    if (r->p->acc == ACC_KAHAN) {
        c->hi = nbr_alloc(sizeof(float) * (size_t)(r->sys->n + 1), "row sums");
        c->lo = nbr_alloc(sizeof(float) * (size_t)(r->sys->n + 1), "row sums");
    }
    r->ctx = c;
}

/* The plain all-pairs sum, written once for both precisions: row sums over j > i, then
 * q_i times each, threads over the rows. */
#define NBR_PLAIN_ENERGY_BODY(T, SQRT)                                                         \
    {                                                                                          \
        const T *x = d->x, *y = d->y, *z = d->z, *q = d->q;                                    \
        T e = 0;                                                                               \
        _Pragma("omp parallel for schedule(dynamic, 16) reduction(+ : e) num_threads(nthreads(threads))") \
        for (long i = 0; i < n; i++) {                                                         \
            if (nbr_interrupted()) continue;                                                   \
            T s = 0;                                                                           \
            const T xi = x[i], yi = y[i], zi = z[i];                                           \
            _Pragma("omp simd reduction(+ : s)")                                               \
            for (long j = i + 1; j < n; j++) {                                                 \
                T dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];                              \
                s += q[j] / SQRT(dx * dx + dy * dy + dz * dz);                                 \
            }                                                                                  \
            e += q[i] * s;                                                                     \
        }                                                                                      \
        return COULOMB_K * (double)e;                                                          \
    }
static double energy_double(const Dbl *d, long n, int threads) NBR_PLAIN_ENERGY_BODY(double, sqrt)
static double energy_float(const Flt *d, long n, int threads) NBR_PLAIN_ENERGY_BODY(float, sqrtf)
#undef NBR_PLAIN_ENERGY_BODY

/* Kahan in float: s + c is the sum, c the part lost so far (Kahan's sign convention negated). */
#define KAHAN_F(s, c, t)                   \
    do {                                   \
        float y_ = (t) + (c);              \
        float u_ = (s) + y_;               \
        (c) = y_ - (u_ - (s));             \
        (s) = u_;                          \
    } while (0)

static double energy_kahan(const Flt *d, long n, int threads, float *hi, float *lo)
{
    const float *x = d->x, *y = d->y, *z = d->z, *q = d->q;
#pragma omp parallel for schedule(dynamic, 16) num_threads(nthreads(threads))
    for (long i = 0; i < n; i++) {
        if (nbr_interrupted()) continue;
        float s[L] = {0}, c[L] = {0};
        const float xi = x[i], yi = y[i], zi = z[i];
        for (long j0 = i + 1; j0 < n; j0 += L) {
#pragma omp simd
            for (int l = 0; l < L; l++) {
                long j = j0 + l;
                float dx = xi - x[j], dy = yi - y[j], dz = zi - z[j];
                KAHAN_F(s[l], c[l], q[j] / sqrtf(dx * dx + dy * dy + dz * dz));
            }
        }
        float S = 0, C = 0;
        for (int l = 0; l < L; l++) { KAHAN_F(S, C, s[l]); KAHAN_F(S, C, c[l]); }
        hi[i] = q[i] * S;
        lo[i] = q[i] * C;
    }
    float S = 0, C = 0;
    for (long i = 0; i < n; i++) { KAHAN_F(S, C, hi[i]); KAHAN_F(S, C, lo[i]); }
    return COULOMB_K * ((double)S + (double)C);
}

static double ref_energy(CoulombRun *r, double *seconds)
{
    RefCtx *c = r->ctx;
    long n = r->sys->n;
    int th = r->p->threads;
    double t0 = wall_seconds(), e;
    switch (r->p->acc) {
    case ACC_DOUBLE: e = energy_double(&c->d, n, th); break;
    case ACC_KAHAN: e = energy_kahan(&c->f, n, th, c->hi, c->lo); break;
    case ACC_EXACT: e = coulomb_ref_exact(r->sys, th, NULL); break;
    default: e = energy_float(&c->f, n, th); break;
    }
    *seconds = wall_seconds() - t0;
    return e;
}

static void ref_teardown(CoulombRun *r)
{
    RefCtx *c = r->ctx;
    if (!c) return;
    if (r->p->acc == ACC_DOUBLE) dbl_free(&c->d); else flt_free(&c->f);
    free(c->hi); free(c->lo);
    free(c);
    r->ctx = NULL;
}

static const char *ref_device(CoulombRun *r)
{
    static char text[200];
    char model[160];
    csv_cpu_model(model, sizeof model);
    snprintf(text, sizeof text, "%s (%d OpenMP threads)", model, nthreads(r->p->threads));
    return text;
}

const CoulombImpl coulomb_ref_impl = {
    .kind = CIMPL_REF, .knobs = CKNOB_REF, .compiler = NULL,
    .setup = ref_setup, .energy = ref_energy, .device_name = ref_device, .teardown = ref_teardown,
};
