/* check.c - validation of a variant on its current configuration (--check).
 *
 * The variant rebuilds its neighbour structure and computes forces on the atoms' current
 * positions; the O(N^2) double-precision reference runs on the same positions. Checked:
 *  1. per-atom force error  e_i = |f_i - f_ref_i| / max(|f_ref_i|, 0.01 m_rms), where
 *     m_i = sum over j of |f_ij| is the scale rounding works on and m_rms its rms over
 *     atoms: the floor keeps atoms whose forces cancel (on a lattice, all of them) from
 *     turning rounding into a failure, while one missing or wrong pair (|f_ij| ~ m_i/6)
 *     still fails by orders of magnitude. Per-atom energies likewise, floor 0.01 u_rms.
 *     Where the variant says check_last_force, the forces its last step computed from the
 *     structure the run used (before the rebuild) are checked the same way first;
 *  2. the total potential energy, relative;
 *  3. the stored neighbour structure: exactly the pairs with r < cutoff, each stored once
 *     (Newton 3) or once in each direction (full lists), none twice, no self pairs.
 *     Pairs within a rounding band of the cutoff (|r - r_cut| <= 8 eps L, eps of the
 *     working precision: positions are only known to that) may be present or absent;
 *     their number is reported.
 * Each check prints its line; the verdict and the largest errors also go to the run's CSV row
 * (Sim.checked; the columns check, check_f_err, ... in docs/csv.md).
 *
 * Tolerances. double: 1e-12 relative, as required. float: per-atom force and energy 2e-4,
 * total energy 2e-5. Why: float positions near |x| = L/2 ~ 28 carry absolute errors of
 * ~2e-6 (one ulp), so pair separations r ~ 1 are known to ~4e-6 relative; the SP force
 * goes as r^-14 and amplifies that 14-fold to ~5e-5 per pair; a handful of pairs summing
 * with partial cancellation, relative to the 0.01 f_rms floor, stays within 2e-4. The
 * total energy is a sum of N ~ 1e4..1e5 terms accumulated in float partial sums, whose
 * random rounding grows like sqrt(N) eps ~ 4e-5 worst case at 1e5 atoms, typically far less. */
#include "core.h"
#include "pbc.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#ifdef NBR_FLOAT
#define TOL_ATOM 2e-4
#define TOL_TOTAL 2e-5
#else
#define TOL_ATOM 1e-12
#define TOL_TOTAL 1e-12
#endif

/* Positions are known to about one ulp of L: a pair this close to a cutoff may fall on
 * either side of it, in the variant's arithmetic and in ours. */
static double rounding_band(const Sim *s) { return 8 * REAL_EPS * (double)s->L; }

typedef struct {
    uint64_t *key;
    size_t n, cap;
    int bad_self, bad_range, natoms;
} PairSet;

static void add_pair(int i, int j, void *arg)
{
    PairSet *ps = arg;
    if (i == j) { ps->bad_self++; return; }
    if (i < 0 || j < 0 || i >= ps->natoms || j >= ps->natoms) { ps->bad_range++; return; }
    if (ps->n == ps->cap) {
        ps->cap = ps->cap ? 2 * ps->cap : 1 << 16;
        ps->key = realloc(ps->key, ps->cap * sizeof *ps->key);
        if (!ps->key) nbr_fail(3, "check: out of memory collecting pairs");
    }
    uint64_t lo = i < j ? i : j, hi = i < j ? j : i;
    ps->key[ps->n++] = lo * (uint64_t)ps->natoms + hi;
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* 0 when the stored pairs are exactly the brute-force set (up to borderline pairs); the wrong
 * entries (missing, extra, wrong multiplicity, self, out of range) in s->checked.pairs_bad. */
static int check_pairs(Sim *s)
{
    const Variant *v = s->variant;
    const int n = s->n;
    const double L = s->L, band = rounding_band(s);
    const double cut = v->pair_cutoff < 0 ? s->p.rc : v->pair_cutoff > 0 ? v->pair_cutoff : (double)s->rn;
    PairSet ps = {.natoms = n};
    v->for_each_pair(s, add_pair, &ps);
    qsort(ps.key, ps.n, sizeof *ps.key, cmp_u64);

    long missing = 0, extra = 0, wrong_mult = 0, borderline = 0, expected = 0;
    size_t at = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d[3] = {pbc_delta_double(s->r[i].x, s->r[j].x, L), pbc_delta_double(s->r[i].y, s->r[j].y, L),
                           pbc_delta_double(s->r[i].z, s->r[j].z, L)};
            double d2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            double r = sqrt(d2);
            int inside = r < cut - band, border = !inside && r <= cut + band;
            if (!inside && !border) continue;
            uint64_t key = (uint64_t)i * n + j;
            while (at < ps.n && ps.key[at] < key) { extra++; at++; } /* stored, not a neighbour */
            int count = 0;
            while (at < ps.n && ps.key[at] == key) { count++; at++; }
            /* a borderline pair may be stored by one row and not the other: gpu-dd's rows see each
             * other through ghost images shifted by +-L, rounded apart (likely what failed seed 13
             * of float salt at 345fce3: one pair's multiplicity, 8 borderline pairs, an odd number
             * of entries); the lists' cut r_n lies beyond r_c, so it carries no force either way.
             * More than the multiplicity is still wrong. */
            if (border) { borderline++; if (count > v->pair_multiplicity) wrong_mult++; continue; }
            expected++;
            if (count == 0) missing++;
            else if (count != v->pair_multiplicity) wrong_mult++;
        }
    extra += (long)(ps.n - at);
    int fail = missing || extra || wrong_mult || ps.bad_self || ps.bad_range;
    s->checked.pairs_bad = missing + extra + wrong_mult + ps.bad_self + ps.bad_range;
    printf("check pairs (r < %.6g): %ld expected, %zu stored entries, %ld borderline, "
           "missing %ld, extra %ld, wrong multiplicity %ld, self %d, out of range %d: %s\n",
           cut, expected, ps.n, borderline, missing, extra, wrong_mult, ps.bad_self, ps.bad_range,
           fail ? "FAIL" : "ok");
    free(ps.key);
    return fail;
}

/* The largest per-atom force error of s->a against ref (header, item 1); its atom in *worst. */
static double force_error(const Sim *s, const Reference *ref, int *worst)
{
    const int n = s->n;
    double m2 = 0;
    for (int i = 0; i < n; i++) m2 += ref->fmag[i] * ref->fmag[i];
    /* per-atom errors are relative to the atom's value, but never to less than a floor, since
     * rounding works on the terms, not on their sum (with charges, F_i of an atom can be near 0
     * while its ~400 terms are not): 1% of the typical sum of |f_ij| */
    double f_floor = 0.01 * sqrt(m2 / n), ferr = 0;
    if (f_floor == 0) f_floor = 1e-300;
    *worst = 0;
    for (int i = 0; i < n; i++) {
        const double *fr = ref->f[i];
        double dx = s->a[i].x - fr[0], dy = s->a[i].y - fr[1], dz = s->a[i].z - fr[2];
        double mag = sqrt(fr[0] * fr[0] + fr[1] * fr[1] + fr[2] * fr[2]);
        double e = fmax(0, sqrt(dx * dx + dy * dy + dz * dz) - ref->fband[i]) / fmax(mag, f_floor);
        if (!(e <= ferr)) { ferr = e; *worst = i; }  /* NaN counts as the worst */
    }
    return ferr;
}

/* Variant.check_last_force: the forces the run's last step left in s->a (downloaded), from the
 * structure it used at the positions it left; a fault that shows only between builds (gpu-cluster's
 * pruned rows) is invisible to the rebuilt structure checked after this. */
static int check_last_force(Sim *s)
{
    Reference ref;
    reference_compute(s, rounding_band(s), &ref);
    int worst;
    const double ferr = force_error(s, &ref, &worst);
    const int fail = !(ferr <= TOL_ATOM);
    s->checked.last_f_err = ferr;
    printf("check last forces (step %d, the run's own structure): max per-atom error %.3g (atom %d), "
           "tolerance %.1g: %s\n", s->step, ferr, worst, TOL_ATOM, fail ? "FAIL" : "ok");
    reference_free(&ref);
    return fail;
}

int check_run(Sim *s, int unstable)
{
    const Variant *v = s->variant;
    const int n = s->n;
    /* no verdict until the end: a run interrupted inside the check writes none (report.c) */
    s->checked = (CheckResult){.f_err = -1, .u_err = -1, .e_rel = -1, .w_err = -1, .last_f_err = -1, .pairs_bad = -1};
    if (unstable) {
        printf("check %s: FAIL (the run was unstable: its state is not a valid configuration to check)\n", v->name);
        s->checked.verdict = -1;   /* compared nothing: the row's errors are empty */
        return 1;
    }
    s->production = 0;          /* nothing below is timed */
    v->wrap(s);                 /* the reference takes wrapped positions; forces are the same */
    if (v->download) v->download(s);
    const int last_fail = v->check_last_force && s->step > 0 ? check_last_force(s) : 0;
    if (v->build) v->build(s);
    v->forces(s);
    v->props(s);                /* GPU variants finish the energy reduction here */
    if (v->download) v->download(s);

    Reference ref;
    reference_compute(s, rounding_band(s), &ref);

    double f2 = 0, u2 = 0;
    for (int i = 0; i < n; i++) {
        f2 += ref.f[i][0] * ref.f[i][0] + ref.f[i][1] * ref.f[i][1] + ref.f[i][2] * ref.f[i][2];
        u2 += ref.umag[i] * ref.umag[i];
    }
    /* energies as forces (force_error), floor 3% of the typical sum of |u_ij| / 2: a float U_i of
     * ~420 salt terms was off by up to 2.3e-6 of that sum (38 float epsilons, ~2 sqrt(n) eps) in
     * 41 gpu-dd runs at be7d857 and 345fce3, beyond 1% x 2e-4; 3% x 2e-4 is ~5 sqrt(n) eps */
    double u_floor = 0.03 * sqrt(u2 / n);
#ifdef NBR_PLANT_CHECK_U
    /* test build test-check-u only (Makefile): NBR_CHECK_PLANT_U=x adds x times its sum of
     * |u_ij| / 2 to atom 0's U, a planted error the energy check must catch (1e-4) or pass (1e-7) */
    const char *plant_u = getenv("NBR_CHECK_PLANT_U");
    if (plant_u && *plant_u && v->has_u) s->u[0] += atof(plant_u) * ref.umag[0];
#endif
    if (u_floor == 0) u_floor = 1e-300;
    int fworst, uworst = 0;
    const double ferr = force_error(s, &ref, &fworst);
    double uerr = 0;
    if (v->has_u)
        for (int i = 0; i < n; i++) {
            double eu = fmax(0, fabs(s->u[i] - ref.u[i]) - ref.uband[i]) / fmax(fabs(ref.u[i]), u_floor);
            if (!(eu <= uerr)) { uerr = eu; uworst = i; }
        }
    double traw = fabs(s->props.upot_sum - ref.upot) / fmax(fabs(ref.upot), 1e-300);
    double terr = fmax(0, fabs(s->props.upot_sum - ref.upot) - ref.uband_total) /
                  fmax(fabs(ref.upot), 1e-300);
    /* the virial, like U, sums pair terms: the same tolerance, relative to the sum of |r.f|
     * (the virial itself can be near zero where attraction and repulsion balance) */
    double verr = fmax(0, fabs(s->props.virial_sum - ref.virial) - ref.virial_band) / fmax(ref.virial_abs, 1e-300);
    int fail = last_fail || !(ferr <= TOL_ATOM) || !(terr <= TOL_TOTAL) || (v->has_u && !(uerr <= TOL_ATOM)) ||
               !(verr <= TOL_TOTAL);
    s->checked.compared = 1;
    s->checked.f_err = ferr;
    s->checked.u_err = v->has_u ? uerr : -1;
    s->checked.e_rel = terr;
    s->checked.w_err = verr;
    printf("check forces: max per-atom error %.3g (atom %d), tolerance %.1g; rms force %.6g; "
           "%ld pair(s) within rounding of r_c: %s\n", ferr, fworst, TOL_ATOM, sqrt(f2 / n), ref.border_pairs,
           !(ferr <= TOL_ATOM) ? "FAIL" : "ok");
    if (v->has_u)
        printf("check energies: max per-atom error %.3g (atom %d), tolerance %.1g: %s\n", uerr, uworst, TOL_ATOM,
               !(uerr <= TOL_ATOM) ? "FAIL" : "ok");
    printf("check total energy: U = %.12g, reference %.12g, relative error %.3g (%.3g beyond the "
           "borderline pairs' share), tolerance %.1g: %s\n",
           s->props.upot_sum, ref.upot, traw, terr, TOL_TOTAL, !(terr <= TOL_TOTAL) ? "FAIL" : "ok");
    printf("check virial: W = %.12g, reference %.12g, error %.3g relative to sum |r.f| (beyond the borderline "
           "pairs' share), tolerance %.1g: %s\n",
           s->props.virial_sum, ref.virial, verr, TOL_TOTAL, !(verr <= TOL_TOTAL) ? "FAIL" : "ok");
    if (sim_stores_pairs(s)) fail |= check_pairs(s);
    printf("check %s: %s\n", v->name, fail ? "FAIL" : "PASS");
    s->checked.verdict = fail ? -1 : 1;
    reference_free(&ref);
    return fail;
}

/* --verify-lists. The rebuild rule promises that between builds every pair within r_c is
 * in the structure built with r_n = r_c + delta: no atom moves more than delta/2. This
 * checks the promise at the structure's last use, against brute force on the current
 * positions (O(N^2): a verification mode, not a benchmark). Pairs within rounding of r_c
 * may be absent. */
int verify_lists(Sim *s, int built_at)
{
    const Variant *v = s->variant;
    if (!sim_stores_pairs(s) || v->pair_cutoff < 0) return 0;   /* nothing kept between builds */
    if (v->download) v->download(s);
    const int n = s->n;
    const double L = s->L, rc = s->p.rc, inside = rc - rounding_band(s);
    PairSet ps = {.natoms = n};
    v->for_each_pair(s, add_pair, &ps);
    qsort(ps.key, ps.n, sizeof *ps.key, cmp_u64);
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            double d[3] = {pbc_delta_double(s->r[i].x, s->r[j].x, L), pbc_delta_double(s->r[i].y, s->r[j].y, L),
                           pbc_delta_double(s->r[i].z, s->r[j].z, L)};
            double r = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
            if (r >= inside) continue;
            uint64_t key = (uint64_t)i * n + j;
            if (!bsearch(&key, ps.key, ps.n, sizeof *ps.key, cmp_u64))
                nbr_fail(EXIT_VERIFY, "%s: verify-lists: step %d: pair (%d, %d) at r = %.6g < r_c = %.6g is missing "
                                      "from the neighbour structure built at step %d (summed largest displacement "
                                      "since then %.4g = %.3g delta; rebuild at --rebuild-frac %.3g delta)",
                         v->name, s->step, i, j, r, rc, built_at, s->disp_acc, s->disp_acc / s->p.delta,
                         s->p.rebuild_frac);
        }
    free(ps.key);
    return 1;
}
