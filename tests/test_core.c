/* test_core.c - unit tests of the common core: exact invariants that need no variant.
 * Prints one line per check and ends with "N passed, M failed". */
#include "../common/core.h"
#include "../kernels/autotune.h"
#include "../kernels/capacity.h"
#include "../kernels/cells.h"
#include "../kernels/cpu/layers.h"
#include "../kernels/rebuild_rule.h"
#include "../common/pbc.h"
#include "../common/potential.h"
#include "../common/rng.h"
#include "rebuild_cases.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int passed, failed;

static void expect(int ok, const char *what, double got, double want)
{
    if (ok) passed++;
    else failed++;
    printf("%s  %s (got %.17g, want %.17g)\n", ok ? "ok  " : "FAIL", what, got, want);
}

static int close_rel(double a, double b, double tol) { return fabs(a - b) <= tol * fmax(fabs(b), 1e-300); }

/* Precision-dependent tolerance: a few ulps of the working type. */
#define TOL (64 * REAL_EPS)

static void test_potential(void)
{
    const double rc = pow(2.0, 1.0 / 6.0);
    PairPotential sp = potential_make(POT_LJ, rc, 1);
    real fr;
    /* SP is continuous at r_c: u(r_c^-) = 0 and the force vanishes there too */
    real u_at = pot_lj_u(sp, (real)(rc * rc) * (1 - (real)REAL_EPS), 0, &fr);
    expect(fabs(u_at) < 1e3 * REAL_EPS, "SP u(r_c) = 0 (continuous)", u_at, 0);
    expect(fabs(fr) < 1e3 * REAL_EPS, "SP f(r_c) = 0", fr, 0);
    /* force = -du/dr, checked by a central difference in double at r = 1.05 */
    PairPotential lj = potential_make(POT_LJ, 3, 0);
    double r = 1.05, h = 1e-5, fr1;
    real frr;
    double up = pot_lj_u(lj, (real)((r + h) * (r + h)), 0, &frr), um = pot_lj_u(lj, (real)((r - h) * (r - h)), 0, &frr);
    pot_lj_u(lj, (real)(r * r), 0, &frr);
    fr1 = frr * r;
    expect(close_rel(fr1, -(up - um) / (2 * h), sizeof(real) == 8 ? 1e-7 : 2e-2), "LJ force = -du/dr", fr1,
           -(up - um) / (2 * h));
    /* minimum of LJ at 2^(1/6): u = -1, f = 0 */
    double u_min = pot_lj_u(lj, (real)(rc * rc), 0, &frr);
    expect(close_rel(u_min, -1, TOL), "LJ u(2^(1/6)) = -1", u_min, -1);
}

/* Shifted-force Coulomb (the salt): u and f vanish at r_c, f = -du/dr, and one pair of unit
 * charges at r = 1 has, by hand, u = LJ(1) + (1 - 1/6 + (1 - 6)/36) = 0 + 0.69444... */
static void test_coulsf(void)
{
    const double rc = 6;
    PairPotential sf = potential_make(POT_LJ_COULSF, rc, 0);
    double fr;
    const double u1 = pair_u_double(sf, 1.0, 1.0, &fr);
    /* the parameters are kept in the working precision, hence its tolerance */
    expect(close_rel(u1, 1 - 1 / rc + (1 - rc) / (rc * rc), TOL), "SF Coulomb u(1), q q = 1, by hand", u1,
           1 - 1 / rc + (1 - rc) / (rc * rc));
    const double ua = pair_u_double(sf, rc * rc * (1 - 1e-12), -1.0, &fr), lj6 = 4 * (pow(rc, -12) - pow(rc, -6));
    expect(fabs(ua - lj6) < TOL, "SF Coulomb u(r_c^-) = 0: only the LJ term's u(6) is left", ua, lj6);
    double r = 1.3, h = 1e-6, frp, frm;
    const double up = pair_u_double(sf, (r + h) * (r + h), -1.0, &frp), um = pair_u_double(sf, (r - h) * (r - h), -1.0, &frm);
    pair_u_double(sf, r * r, -1.0, &fr);
    expect(close_rel(fr * r, -(up - um) / (2 * h), 1e-6), "SF Coulomb force = -du/dr (opposite charges, r 1.3)",
           fr * r, -(up - um) / (2 * h));
    real frr;
    pair_u(sf, (real)(rc * rc * (1 - 1e-6)), (real)1, &frr);
    expect(fabs(frr) < 1e-3, "SF Coulomb force -> 0 at r_c in the working precision", frr, 0);
}

/* Every potential of the registry (common/potentials/all.h, so a new one is tested without a
 * line here): its force factor against a central difference of its own u, in double,
 * fr = -(1/r) du/dr, at a few r within r_c and for both signs of q_i q_j. With h = 1e-5 r the
 * difference's truncation error, h^2 u'''(r) / 6, is below 1e-8 of |du/dr| (LJ's steepest, r
 * 0.9) and its rounding ~1e-16 |u| / h; the tolerance, 1e-6 |du/dr| + 1e-9, leaves room for
 * both (the parameters are in the working precision, the same in every call: float alike). */
static void test_potentials_fd(void)
{
    const double rc = 2.5, rs[] = {0.9, 1.0, 1.12, 1.5, 2.0, 2.45}, qqs[] = {1, -1};
    for (int k = 0; k < POT_COUNT; k++) {
        const PairPotential pot = potential_make(k, rc, 0.25);
        double worst = 0, at = 0;
        for (size_t a = 0; a < sizeof rs / sizeof rs[0]; a++)
            for (size_t b = 0; b < 2; b++) {
                const double r = rs[a], h = 1e-5 * r, qq = qqs[b];
                double fr, frx;
                pair_u_double(pot, r * r, qq, &fr);
                const double up = pair_u_double(pot, (r + h) * (r + h), qq, &frx),
                             um = pair_u_double(pot, (r - h) * (r - h), qq, &frx);
                const double dudr = (up - um) / (2 * h), err = fabs(fr * r + dudr) / (1e-6 * fabs(dudr) + 1e-9);
                if (err > worst) worst = err, at = r;
            }
        char what[160];
        snprintf(what, sizeof what, "%s: fr = -(1/r) du/dr by central difference, r 0.9..2.45 < r_c 2.5 (worst at r %g)",
                 potential_names[k], at);
        expect(worst <= 1, what, worst, 1);
    }
    /* a kind beyond the list stops with one line, never evaluates as another */
    jmp_buf env;
    int code = 0;
    nbr_fail_trap(&env);
    if ((code = setjmp(env)) == 0) potential_make(POT_COUNT, rc, 0);
    nbr_fail_trap(NULL);
    expect(code == EXIT_INTERNAL, "potential kind POT_COUNT (not listed): potential_make stops, exit 1", code,
           EXIT_INTERNAL);
}

/* The same bits, +0 and -0 alike (a zero separation adds nothing whatever its sign). */
static int same_real(real x, real y) { return (x == 0 && y == 0) || memcmp(&x, &y, sizeof x) == 0; }
#define NBR_NEXTAFTER(x, y) _Generic((x), float: nextafterf, default: nextafter)(x, y)

/* pbc_delta_rint (the GPU pair loops' minimum image) against pbc_delta over random boxes and
 * pairs, wrapped or drifted a little past +-L/2 as between rebuilds, and pairs placed within a
 * few ulp of |a - b| = L/2: the same bits everywhere, except within a few ulp of L/2 (rint's tie,
 * the rounding of d / L), and there both results must be ~L/2 long (so beyond any r_n < L/2). */
static void test_pbc_rint(void)
{
    Rng g;
    rng_seed(&g, 2024);
    long pairs = 0, across = 0, near = 0, differ = 0, bad = 0;
    double first_a = 0, first_b = 0, first_L = 0;
    for (int box = 0; box < 2000; box++) {
        const real L = (real)(3 * pow(100.0, rng_uniform(&g))), h = (real)0.5 * L;
        const PbcBox pb = pbc_box(L);
        for (int k = 0; k < 2000; k++) {
            const int kind = k % 4;
            real a = (real)((rng_uniform(&g) - 0.5) * L), b = (real)((rng_uniform(&g) - 0.5) * L);
            if (kind == 1) {   /* drifted up to 2% of L past the box since the last wrap */
                a = (real)(a * (1 + 0.04 * rng_uniform(&g)));
                b = (real)(b * (1 + 0.04 * rng_uniform(&g)));
            } else if (kind >= 2) {   /* |a - b| within a few ulp of L/2, on either side */
                const double side = kind == 2 ? 1 : -1;
                a = (real)((rng_uniform(&g) - 0.5) * h);
                b = (real)(a - side * h);
                for (int step = (int)(rng_uniform(&g) * 9) - 4; step != 0; step += step > 0 ? -1 : 1)
                    b = NBR_NEXTAFTER(b, step > 0 ? (real)INFINITY : (real)-INFINITY);
            }
            const real want = pbc_delta(a, b, L), got = pbc_delta_rint(a, b, pb);
            const double d = fabs((double)a - (double)b), tol = 4 * REAL_EPS * h;
            pairs++;
            across += d >= h;
            near += fabs(d - h) <= tol;
            if (same_real(got, want)) continue;
            differ++;
            if (fabs(d - h) <= tol && fabs(fabs((double)got) - h) <= tol && fabs(fabs((double)want) - h) <= tol)
                continue;
            if (!bad++) first_a = a, first_b = b, first_L = L;
        }
    }
    printf("# pbc_delta_rint: %ld pairs, %ld across L/2, %ld within 4 eps L/2 of it, %ld differ from pbc_delta\n",
           pairs, across, near, differ);
    expect(bad == 0, "pbc_delta_rint: pbc_delta's bits except within a few ulp of |a - b| = L/2", bad, 0);
    if (bad)
        printf("# first: a %.17g b %.17g L %.17g: pbc_delta %.17g, pbc_delta_rint %.17g\n", first_a, first_b,
               first_L, (double)pbc_delta((real)first_a, (real)first_b, (real)first_L),
               (double)pbc_delta_rint((real)first_a, (real)first_b, pbc_box((real)first_L)));
    expect(across > pairs / 4 && near > pairs / 4, "pbc_delta_rint: the pairs cross and meet L/2", (double)near, 0);
}

static void test_pbc(void)
{
    const real L = 10;
    expect(pbc_wrap((real)5, L) == -5, "wrap(+L/2) = -L/2", pbc_wrap((real)5, L), -5);
    expect(pbc_wrap((real)-5, L) == -5, "wrap(-L/2) stays", pbc_wrap((real)-5, L), -5);
    expect(pbc_wrap((real)7.5, L) == (real)-2.5, "wrap(7.5) = -2.5", pbc_wrap((real)7.5, L), -2.5);
    /* the one minimum image (host, device and, in double, the reference) */
    expect(pbc_delta((real)1, (real)2, L) == -1, "delta inside the box is a - b", pbc_delta((real)1, (real)2, L), -1);
    expect(fabs(pbc_delta((real)4.75, (real)-4.75, L) - -0.5) < 1e-6, "delta across +L/2 is the image",
           pbc_delta((real)4.75, (real)-4.75, L), -0.5);
    expect(fabs(pbc_delta((real)-4.75, (real)4.75, L) - 0.5) < 1e-6, "delta across -L/2 is the image",
           pbc_delta((real)-4.75, (real)4.75, L), 0.5);
    expect(pbc_delta_double(4.75, -4.75, 10.0) == -0.5, "double delta across the boundary",
           pbc_delta_double(4.75, -4.75, 10.0), -0.5);
    /* across the boundary the result carries one rounding: in the working precision, two
     * coordinates near +-L/2 of a large box give the image separation to ~1 ulp of itself */
    {
        const real Lb = (real)41.3, a = (real)20.6431, b = (real)-20.5237;
        const double exact = ((double)a - 0.5 * (double)Lb) - ((double)b + 0.5 * (double)Lb);
        const double got = pbc_delta(a, b, Lb);
        expect(fabs(got - exact) <= 2 * REAL_EPS * fabs(exact), "image separation rounded once", got, exact);
    }
    test_pbc_rint();
    int G = 5;
    real inv_w = G / L;
    expect(cell_coord((real)-5, L, inv_w, G) == 0, "cell of -L/2 is 0", cell_coord((real)-5, L, inv_w, G), 0);
    expect(cell_coord((real)(5 - 1e-6), L, inv_w, G) == G - 1, "cell just below L/2 is G-1",
           cell_coord((real)(5 - 1e-6), L, inv_w, G), G - 1);
    expect(cell_coord((real)-3, L, inv_w, G) == 1, "atom on the face -3 belongs to cell 1",
           cell_coord((real)-3, L, inv_w, G), 1);
}

static void test_layers(void)
{
    /* 5 atoms in 3 cells: l_i counts the earlier atoms of the same cell */
    const int cell_of[5] = {2, 0, 2, 2, 1};
    int count[3], layer_of[5], H[3 * 4], order[5];
    const int nl = layers_assign(cell_of, 5, 3, count, layer_of);
    expect(nl == 3, "N_l is the largest occupancy", nl, 3);
    expect(layer_of[0] == 0 && layer_of[2] == 1 && layer_of[3] == 2 && layer_of[1] == 0, "layers in index order",
           layer_of[3], 2);
    for (int i = 0; i < 5; i++) H[cell_of[i] * 4 + layer_of[i]] = i;
    const int k = layers_cell_order(H, count, 3, 4, order);
    const int want[5] = {1, 4, 0, 2, 3};
    int same = k == 5;
    for (int i = 0; i < 5 && same; i++) same = order[i] == want[i];
    expect(same, "cell order: cells by index, then layers", order[0], 1);
}

static void test_capacity(void)
{
    Sim s;
    memset(&s, 0, sizeof s);
    Capacity c;
    capacity_init(&c, "t", "list", "entries", "max-nbr", 0, 10, 4);
    expect(c.cap % 4 == 0 && c.cap >= 11, "automatic capacity: estimate + margin, a multiple of the quantum",
           (double)c.cap, 16);
    expect(capacity_short(&s, &c, c.cap) == 0, "a build that fits does not grow", (double)s.stats.grows, 0);
    const size_t before = c.cap;
    expect(capacity_short(&s, &c, before + 1) == 1 && c.cap > before + 1 && s.stats.grows == 1,
           "a build that needs more grows, with margin, and is counted", (double)c.cap, before + 2);
}

static void test_cells_bounded(void)
{
    /* a dilute box: 1728 atoms in an edge of 12 / 1e-6^(1/3) = 1200 would need 697^3 cells of
     * width r_n; storage stays bounded by the atoms */
    CellGrid g = cells_init((real)1200, 1.72, 1728, "t");
    expect((double)g.ncells <= 8.0 * 1728 + 27 && g.G >= 3 && g.w >= 1.72, "cell storage bounded by the atoms",
           g.ncells, 8 * 1728 + 27);
    CellGrid d = cells_init((real)20, 1.72, 4096, "t");
    expect(d.G == 11, "a dense box keeps cells of the minimum width", d.G, 11);
}

static void test_offsets(void)
{
    int ok = 1;
    for (int k = 1; k < 14; k++)
        for (int d = 0; d < 3; d++) ok &= cell_offsets[k][d] == -cell_offsets[k + 13][d];
    expect(ok, "offsets k and k+13 are opposite (half set has no opposite pair)", ok, 1);
    int seen[27] = {0};
    for (int k = 0; k < 27; k++)
        seen[(cell_offsets[k][0] + 1) + 3 * (cell_offsets[k][1] + 1) + 9 * (cell_offsets[k][2] + 1)]++;
    ok = 1;
    for (int k = 0; k < 27; k++) ok &= seen[k] == 1;
    expect(ok, "the 27 offsets are distinct", ok, 1);
    vec3 sh;
    int c = cell_neighbor(0, 2, 1, -1, 1, 0, 3, 6, &sh);
    expect(c == cell_index(2, 0, 1, 3) && sh.x == -6 && sh.y == 6 && sh.z == 0,
           "cell_neighbor wraps and reports the image shift", c, cell_index(2, 0, 1, 3));
}

static void test_rng(void)
{
    Rng a, b;
    rng_seed(&a, 42);
    rng_seed(&b, 42);
    int same = 1, in_range = 1;
    double mean = 0;
    for (int k = 0; k < 100000; k++) {
        double x = rng_uniform(&a);
        same &= x == rng_uniform(&b);
        in_range &= x >= 0 && x < 1;
        mean += x / 100000;
    }
    expect(same, "same seed, same sequence", same, 1);
    expect(in_range, "uniform in [0,1)", in_range, 1);
    expect(fabs(mean - 0.5) < 0.005, "uniform mean 0.5", mean, 0.5);
}

static Sim *make_sim(int system, int ne, int config)
{
    static Sim s;
    free(s.r); free(s.v); free(s.a); free(s.u); free(s.q);
    memset(&s, 0, sizeof s);
    char *argv[] = {"test", "--system", system == SYS_SP ? "sp" : "lj", NULL};
    params_parse(&s.p, NULL, NULL, 3, argv, 0, 0, 0, "test", "");
    s.p.ne = ne;
    s.p.config = config;
    s.n = ne * ne * ne;
    s.L = (real)params_box(&s.p);
    s.rn = (real)params_rn(&s.p);
    s.pot = potential_make(s.p.potential, s.p.rc, s.p.shift);
    s.r = malloc(sizeof(vec3) * s.n); s.v = malloc(sizeof(vec3) * s.n);
    s.a = malloc(sizeof(vec3) * s.n); s.u = malloc(sizeof(real) * s.n); s.q = malloc(sizeof(real) * s.n);
    state_init(&s);
    return &s;
}

/* Lattice energy per atom by summing over lattice vectors, for comparison. */
static double lattice_energy(double a, double rc, double shift)
{
    double sum = 0;
    int m = (int)ceil(rc / a) + 1;
    for (int x = -m; x <= m; x++)
        for (int y = -m; y <= m; y++)
            for (int z = -m; z <= m; z++) {
                double r2 = a * a * (x * x + y * y + z * z);
                if (r2 == 0 || r2 >= rc * rc) continue;
                double ri6 = 1 / (r2 * r2 * r2);
                sum += 0.5 * (4 * ri6 * (ri6 - 1) + shift);
            }
    return sum;
}

static void test_lattice(void)
{
    for (int system = SYS_SP; system <= SYS_LJ; system++) {
        Sim *s = make_sim(system, 12, CONFIG_LATTICE);
        Reference ref;
        reference_compute(s, 0, &ref);
        double (*f)[3] = ref.f, U = ref.upot;
        double want = lattice_energy((double)s->L / s->p.ne, s->p.rc, s->p.shift), fmax_ = 0;
        for (int i = 0; i < s->n; i++) fmax_ = fmax(fmax_, fabs(f[i][0]) + fabs(f[i][1]) + fabs(f[i][2]));
        char what[128];
        snprintf(what, sizeof what, "%s lattice energy per atom (reference forces)", system_names[system]);
        expect(close_rel(U / s->n, want, sizeof(real) == 8 ? 1e-12 : 1e-5), what, U / s->n, want);
        snprintf(what, sizeof what, "%s lattice forces vanish", system_names[system]);
        expect(fmax_ < (sizeof(real) == 8 ? 1e-10 : 1e-3), what, fmax_, 0);
        /* initial velocities: zero momentum, mean v^2 = 3T (1 - 1/N) after removing the drift */
        double p[3] = {0, 0, 0}, vv = 0;
        for (int i = 0; i < s->n; i++) {
            p[0] += s->v[i].x; p[1] += s->v[i].y; p[2] += s->v[i].z;
            vv += (double)s->v[i].x * s->v[i].x + (double)s->v[i].y * s->v[i].y + (double)s->v[i].z * s->v[i].z;
        }
        snprintf(what, sizeof what, "%s initial momentum is zero", system_names[system]);
        expect(fabs(p[0]) + fabs(p[1]) + fabs(p[2]) < s->n * 100 * REAL_EPS, what, fabs(p[0]) + fabs(p[1]) + fabs(p[2]), 0);
        snprintf(what, sizeof what, "%s initial temperature near T", system_names[system]);
        expect(fabs(vv / (3 * s->n) - s->p.temp) < 0.01 * s->p.temp, what, vv / (3 * s->n), s->p.temp);
        reference_free(&ref);
    }
}

static void test_configs(void)
{
    for (int config = CONFIG_LATTICE; config <= CONFIG_BOUNDARY; config++) {
        Sim *s = make_sim(SYS_SP, 8, config);
        int inside = 1;
        for (int i = 0; i < s->n; i++)
            inside &= s->r[i].x >= -s->L / 2 && s->r[i].x < s->L / 2 && s->r[i].y >= -s->L / 2 &&
                      s->r[i].y < s->L / 2 && s->r[i].z >= -s->L / 2 && s->r[i].z < s->L / 2;
        char what[128];
        snprintf(what, sizeof what, "config %s: every atom in [-L/2, L/2)", config_names[config]);
        expect(inside, what, inside, 1);
    }
    /* the boundary configuration really puts atoms on cell faces */
    Sim *s = make_sim(SYS_SP, 8, CONFIG_BOUNDARY);
    int G = (int)floor((double)s->L / s->rn), on_face = 0;
    double w = (double)s->L / G;
    for (int i = 0; i < s->n; i++) {
        double q = ((double)s->r[i].x + 0.5 * s->L) / w;
        on_face += fabs(q - floor(q + 0.5)) < 1e-6;
    }
    expect(on_face > s->n / 20, "config boundary: atoms exactly on cell faces", on_face, s->n / 20);
}

/* The autotuner's search (kernels/autotune.c) on a fake timing function with a planted
 * minimum: seconds per step = base(list) x (1 + 2 (skin - 0.7)^2) x (1 + 0.02 log2(p_b/96)^2)
 * x (1 + 0.03 (t_p - 3)^2), n2 5% faster when sorted every 500 steps. */
typedef struct {
    double base[4];   /* by ListMethod */
    int pb0, tp0;
    int trials;
} FakeGpu;

static double fake_trial(void *ctx, const TuneParams *p, const char *phase)
{
    FakeGpu *f = ctx;
    (void)phase;
    f->trials++;
    const double lp = log2((double)p->pb / f->pb0), sk = p->list == LIST_NONE ? 0 : p->skin - 0.7;
    return f->base[p->list] * (1 + 2 * sk * sk) * (1 + 0.02 * lp * lp) * (1 + 0.03 * (p->tp - f->tp0) * (p->tp - f->tp0)) *
           (p->list == LIST_N2 && p->sort_every == 500 ? 0.95 : 1.0);
}

static double fake_clock(void *ctx) { return ((FakeGpu *)ctx)->trials; }   /* one second a trial */

static int tuned_to(const TuneResult *r, int list, double skin, int pb, int tp, int sort_every)
{
    return r->best.list == list && fabs(r->best.skin - skin) < 1e-9 && r->best.pb == pb && r->best.tp == tp &&
           (list == LIST_SORT || r->best.sort_every == sort_every);
}

static void test_autotune(void)
{
    TuneResult r;
    /* sort fastest: found with its skin, p_b and t_p */
    FakeGpu f = {{0, 3.0, 1.1, 1.0}, 96, 3, 0};
    Tuner t = {fake_trial, &f, 20000, 0, NULL};
    autotune_search(&t, &r);
    printf("autotune: sort planted: list %s skin %.3f p_b %d t_p %d after %d trials\n", list_names[r.best.list],
           r.best.skin, r.best.pb, r.best.tp, r.trials);
    expect(tuned_to(&r, LIST_SORT, 0.7, 96, 3, 0), "autotune finds the planted minimum (sort, skin 0.7, p_b 96, t_p 3)",
           r.best_s, 1.0);
    expect(r.baseline.list == LIST_SORT && r.baseline.pb == 64 && r.baseline.tp == 1 && r.baseline.skin == 0.5,
           "autotune baseline = RUMD's defaults at N = 20000", r.baseline.pb, 64);
    /* n2 fastest, sorted every 500 steps */
    FakeGpu g = {{0, 3.0, 0.9, 1.0}, 48, 2, 0};
    t.ctx = &g;
    autotune_search(&t, &r);
    expect(tuned_to(&r, LIST_N2, 0.7, 48, 2, 500), "autotune finds n2 with its sort interval (500), p_b 48, t_p 2",
           r.best.sort_every, 500);
    /* the check can fail: a minimum where the appendix does not look (p_b 16 above N = 4000) */
    FakeGpu h = {{0, 3.0, 1.1, 1.0}, 16, 3, 0};
    t.ctx = &h;
    autotune_search(&t, &r);
    expect(!tuned_to(&r, LIST_SORT, 0.7, 16, 3, 0) && r.best.pb == 32,
           "autotune check fails on an unreachable minimum (p_b 16 omitted at N = 20000: 32 found)", r.best.pb, 32);
    /* the budget: one second a trial, 6 allowed; the best of those, flagged */
    FakeGpu k = {{0, 3.0, 1.1, 1.0}, 96, 3, 0};
    Tuner tb = {fake_trial, &k, 20000, 6, fake_clock};
    autotune_search(&tb, &r);
    expect(r.budget_exhausted && r.trials == 6 && r.best_s <= r.baseline_s, "autotune stops at its budget (6 trials)",
           r.trials, 6);
    /* threads per block as the kernels lay them out */
    expect(autotune_threads(32, 4) == 128 && autotune_threads(16, 1) == 32 && autotune_threads(32, 3) == 128 &&
               autotune_threads(16, 64) == 1024,
           "autotune thread counts (whole warps)", autotune_threads(32, 3), 128);
}

/* The generic search (autotune_generic: coordinate descent, golden section for the skin) on a
 * fake timing function with a planted minimum: skin 0.43, threads index 4, t_p index 2, read
 * index 2 (the last value of its domain); trials with skin > 0.9 fail (a box too small for the
 * cells); every point must be timed once at most. */
typedef struct {
    int trials, repeats, failed;
    double seen[512][4];
} FakeKnobs;

static double fake_knobs(void *ctx, const double *x, const char *phase)
{
    FakeKnobs *f = ctx;
    (void)phase;
    for (int m = 0; m < f->trials && m < 512; m++)
        if (memcmp(f->seen[m], x, sizeof f->seen[m]) == 0) f->repeats++;
    if (f->trials < 512) memcpy(f->seen[f->trials], x, sizeof f->seen[0]);
    f->trials++;
    if (x[0] > 0.9) { f->failed++; return -1; }
    const double sk = x[0] - 0.43, th = x[1] - 4, tp = x[2] - 2;
    return 1e-5 * (1 + 2 * sk * sk) * (1 + 0.05 * th * th) * (1 + 0.03 * tp * tp) * (x[3] == 2 ? 1.0 : 1.1);
}

static double fake_knobs_clock(void *ctx) { return ((FakeKnobs *)ctx)->trials; }

static void test_autotune_generic(void)
{
    GenTuner t = {4, {{"delta", 0, 0.05, 1.5, 0.05, 0.6}, {"threads", 6, 0, 0, 0, 2}, {"tp", 6, 0, 0, 0, 0},
                      {"read", 3, 0, 0, 0, 0}}, fake_knobs, NULL, 0, NULL};
    static FakeKnobs f;
    memset(&f, 0, sizeof f);
    t.ctx = &f;
    GenResult r;
    const int rc = autotune_generic(&t, &r);
    printf("autotune generic: skin %.3f threads %g tp %g read %g after %d trials (%d sweeps, %d failed)\n", r.x[0],
           r.x[1], r.x[2], r.x[3], r.trials, r.sweeps, f.failed);
    expect(rc == 0 && fabs(r.x[0] - 0.43) <= 0.05 && r.x[1] == 4 && r.x[2] == 2 && r.x[3] == 2,
           "generic autotune finds the planted minimum (skin 0.43, threads 4, t_p 2, read 2)", r.x[0], 0.43);
    expect(f.repeats == 0 && r.trials == f.trials, "generic autotune times no point twice", f.repeats, 0);
    expect(f.failed > 0 && r.best_s > 0, "generic autotune skips failed trials (skin > 0.9)", f.failed, 1);
    expect(r.start_s > r.best_s && r.trials < 60, "generic autotune beats its start in under 60 trials", r.trials, 60);
    /* the budget: one second a trial, 5 allowed */
    static FakeKnobs g;
    memset(&g, 0, sizeof g);
    GenTuner tb = t;
    tb.ctx = &g;
    tb.budget_s = 5;
    tb.clock_s = fake_knobs_clock;
    autotune_generic(&tb, &r);
    expect(r.budget_exhausted && r.trials == 5, "generic autotune stops at its budget (5 trials)", r.trials, 5);
    /* a start that cannot run: 1 */
    static FakeKnobs h;
    memset(&h, 0, sizeof h);
    GenTuner ts = t;
    ts.ctx = &h;
    ts.knob[0].start = 1.4;
    const int start_rc = autotune_generic(&ts, &r);
    expect(start_rc == 1 && h.trials == 1, "generic autotune: a failed start ends the search", h.trials, 1);
}

/* The rebuild rule on crafted steps (tests/rebuild_cases.h; test_components.cu runs the same on
 * the GPU): the threshold reached exactly rebuilds, one ulp short does not, and the sum is rounded
 * as a product then a sum. */
static void test_rebuild_rule(void)
{
    for (int k = 0; k < REBUILD_NCASES; k++) {
        const RebuildCase *c = &rebuild_cases[k];
        double disp = c->disp;
        const int due = rebuild_after_step(&disp, c->vv, c->dt, c->threshold);
        expect(due == c->due, c->what, due, c->due);
    }
    unsigned long long h = 0;
    for (int k = 0; k < 3; k++) h = rebuild_hash_add(h, rebuild_hash_steps[k]);
    expect(h == REBUILD_HASH_WANT, "rebuild hash of builds at steps 7, 19, 40", (double)h, (double)REBUILD_HASH_WANT);
    const int p0 = prune_due(1, 0, 0, 1), p1 = prune_due(0, 0.75, 0.25, 0.5),
              p2 = prune_due(0, 0.75, 0.25, 0x1.0000000000001p-1);
    expect(p0 == 1, "a rebuild prunes", p0, 1);
    expect(p1 == 1, "prune due at 0.75 - 0.25 = 0.5 exactly", p1, 1);
    expect(p2 == 0, "no prune one ulp below", p2, 0);
}

int main(void)
{
    test_potential();
    test_potentials_fd();
    test_coulsf();
    test_pbc();
    test_offsets();
    test_layers();
    test_capacity();
    test_cells_bounded();
    test_rng();
    test_lattice();
    test_configs();
    test_autotune();
    test_autotune_generic();
    test_rebuild_rule();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
