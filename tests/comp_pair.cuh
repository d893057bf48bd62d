/* comp_pair.cuh - group "pair" of test-components: the per-pair force, energy and virial of the
 * GPU force kernels (pair_force.cuh: pair_force_add, as the list loop calls it and as the all-pairs
 * loop does, SkipSelf), one thread per pair, against the CPU evaluator of the reference
 * (common/reference.c: pbc_delta_double and pair_u_double, in double from the same positions).
 *
 * Each potential the harness has (the presets: sp, lj, lammps-lj, salt's LJ + shifted-force
 * Coulomb with unlike and like charges) over a sweep of distances from 0.85 to r_c, just inside
 * r_c, and beyond it (just beyond, 1.0004 r_c, 1.01 r_c, 1.1 r_c), each pair in a random
 * direction from a random atom (so that many cross the periodic boundary), half of them from an
 * atom near a face of the box. Beyond r_c every sum must be exactly 0, on both sides; so must a
 * pair of an atom with itself in the all-pairs form. Within r_c the tolerance is relative to the
 * pair's magnitudes (the sum of the absolute values of the terms, so that a value that cancels to
 * near 0, as SP's force at r_c, is judged on the rounding of its terms):
 *   |f_dev - f_host| (each component) <= tol |fr|_mag r,  |u_dev - u_host| <= tol |u|_mag,
 *   |w_dev - w_host| <= tol |fr|_mag r^2,
 * tol = 1e-13 in double (the device forms the same dx bit for bit; r^2 and the potential differ
 * by the fused multiply-adds nvcc makes, a few ulp) and 1e-4 in float (the device's dx rounds at
 * the coordinates' magnitude, up to L/2 = 7: 1e-6 relative in r^2 at r = 0.85, 7 times that in
 * r^-14). "Just inside" and "just beyond" are 1e-10 r_c from r_c in double, 1e-4 r_c in float:
 * beyond the rounding of r^2 on either side, so both decide the same. */

struct PairCase {
    real4 ri, rj;
    double r;   /* the distance asked for (the positions are rounded) */
};

template <int Kind>
__global__ void pair_kernel(const PairCase *c, int npairs, PbcBox box, PairPotential pot, ForceSum *out,
                            ForceSum *out_all)
{
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= npairs) return;
    ForceSum a = {0, 0, 0, 0, 0}, b = {0, 0, 0, 0, 0};
    pair_force_add<Kind>(c[k].ri, c[k].rj, box, pot, a);         /* a list's pair */
    pair_force_add<Kind, true>(c[k].ri, c[k].rj, box, pot, b);   /* the all-pairs loop's (j may be i) */
    out[k] = a;
    out_all[k] = b;
}

struct PairWant {
    double f[3], u, w;
    double fmag, umag;   /* magnitudes: |fr| and |u| summed term by term */
    double r;            /* the distance of the rounded positions */
    int inside;
};

/* The CPU evaluator on the pair's positions, as common/reference.c forms it. */
static PairWant pair_host(const PairCase &c, const PairPotential &pot, double L)
{
    PairWant p = {};
    const double d[3] = {pbc_delta_double(c.ri.x, c.rj.x, L), pbc_delta_double(c.ri.y, c.rj.y, L),
                         pbc_delta_double(c.ri.z, c.rj.z, L)};
    const double r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
    p.inside = r2 < (double)pot.rc2 && r2 > 0;   /* i itself (r2 0) adds nothing */
    if (!p.inside) return p;
    const double qq = (double)c.ri.w * c.rj.w, ri2 = 1 / r2, ri6 = ri2 * ri2 * ri2, ri = sqrt(ri2), r = sqrt(r2);
    double fr;
    p.u = pair_u_double(pot, r2, qq, &fr);
    for (int k = 0; k < 3; k++) p.f[k] = fr * d[k];
    p.w = fr * r2;
    p.r = r;
    p.fmag = 48 * ri6 * ri6 * ri2 + 24 * ri6 * ri2;
    p.umag = 4 * ri6 * ri6 + 4 * ri6 + fabs((double)pot.lj.shift);
    if (pot.kind == POT_LJ_COULSF) {
        const pot_lj_coulsf &c = pot.lj_coulsf;
        p.fmag += fabs(qq) * (ri2 * ri + (double)c.rc_inv2 * ri);
        p.umag += fabs(qq) * (ri + (double)c.rc_inv + fabs(r - (double)c.rc) * (double)c.rc_inv2);
    }
    return p;
}

/* The sweep for cut-off rc in a box of edge L: nsweep distances from 0.85 to below rc, then just
 * inside, then beyond; each pair from a random atom (every other one near a face) in a random
 * direction, with charges qi and (alternating) +-qi where `charged`. */
static std::vector<PairCase> pair_sweep(Rng &g, double rc, real L, int charged, int nsweep)
{
    const double near = sizeof(real) == sizeof(float) ? 1e-4 : 1e-10;
    std::vector<double> rs;
    for (int k = 0; k < nsweep; k++) rs.push_back(0.85 + (rc - 0.85) * k / nsweep);
    const double inside[] = {rc * (1 - 1e-2), rc * (1 - 1e-3), rc * (1 - 10 * near), rc * (1 - near)};
    const double beyond[] = {rc * (1 + near), rc * (1 + 10 * near), rc * 1.0004, rc * 1.01, rc * 1.1};
    for (double r : inside) rs.push_back(r);
    for (double r : beyond) rs.push_back(r);
    std::vector<PairCase> cases;
    for (int rep = 0; rep < 4; rep++)
        for (size_t k = 0; k < rs.size(); k++) {
            PairCase c;
            c.r = rs[k];
            real4 a = random_positions(g, 1, L, 0)[0];
            if (k % 2) a.x = (real)(0.5 * (double)L - 0.05 * g.uniform()) * (rep % 2 ? 1 : -1);
            double u[3], uu;
            do {   /* a random direction */
                for (int m = 0; m < 3; m++) u[m] = 2 * g.uniform() - 1;
                uu = u[0] * u[0] + u[1] * u[1] + u[2] * u[2];
            } while (uu > 1 || uu < 1e-2);
            uu = sqrt(uu);
            const double at[3] = {a.x, a.y, a.z};
            real b[3];
            for (int m = 0; m < 3; m++) b[m] = pbc_wrap((real)(at[m] + c.r * u[m] / uu), L);
            const real qi = charged ? 1 : 0, qj = charged ? ((k + rep) % 2 ? qi : -qi) : 0;
            c.ri = make_real4(a.x, a.y, a.z, qi);
            c.rj = make_real4(b[0], b[1], b[2], qj);
            cases.push_back(c);
        }
    return cases;
}

/* One check line per potential and form: the first pair (by index) out of tolerance, or every pair
 * within it. */
static void pair_judge(const char *pot_name, const char *form, const std::vector<PairCase> &cases,
                       const std::vector<ForceSum> &dev, const std::vector<PairWant> &want, double tol)
{
    char line[500];
    int bad = -1, inside = 0, beyond = 0;
    double worst = 0;
    const char *what = "";
    for (size_t k = 0; k < cases.size() && bad < 0; k++) {
        const PairWant &w = want[k];
        const ForceSum &d = dev[k];
        if (!w.inside) {
            beyond++;
            if (d.fx != 0 || d.fy != 0 || d.fz != 0 || d.u != 0 || d.w != 0) { bad = (int)k; what = "not 0 beyond r_c"; }
            continue;
        }
        inside++;
        const double r = w.r;
        const double fbound = tol * w.fmag * r * 1.01, wbound = tol * w.fmag * r * r * 1.01, ubound = tol * w.umag;
        const double df = std::max(fabs(d.fx - w.f[0]), std::max(fabs(d.fy - w.f[1]), fabs(d.fz - w.f[2])));
        const double du = fabs(d.u - w.u), dw = fabs(d.w - w.w);
        worst = std::max(worst, std::max(df / fbound, std::max(du / ubound, dw / wbound)) * tol);
        if (!(df <= fbound)) { bad = (int)k; what = "force"; }
        else if (!(du <= ubound)) { bad = (int)k; what = "energy"; }
        else if (!(dw <= wbound)) { bad = (int)k; what = "virial"; }
    }
    if (bad >= 0) {
        const PairWant &w = want[bad];
        const ForceSum &d = dev[bad];
        snprintf(line, sizeof line,
                 "pair %s %s: pair %d at r = %.10g (q %g %g): %s: f (%.6g, %.6g, %.6g) u %.10g w %.10g on the device, "
                 "f (%.6g, %.6g, %.6g) u %.10g w %.10g on the host (tolerance %g of the magnitudes)",
                 pot_name, form, bad, cases[bad].r, (double)cases[bad].ri.w, (double)cases[bad].rj.w, what, (double)d.fx,
                 (double)d.fy, (double)d.fz, (double)d.u, (double)d.w, w.f[0], w.f[1], w.f[2], w.u, w.w, tol);
    } else
        snprintf(line, sizeof line,
                 "pair %s %s: %d pairs within r_c agree with the reference (largest error %.2g of the magnitudes, "
                 "tolerance %g), %d beyond it give 0",
                 pot_name, form, inside, worst, tol, beyond);
    expect(bad < 0, line);
}

template <int Kind>
static void pair_case(const char *name, int kind, double rc, double shift, int charged, uint64_t seed)
{
    const double tol = sizeof(real) == sizeof(float) ? 1e-4 : 1e-13;
    const real L = 14;   /* over 2 r_c for salt's r_c = 6 */
    const PairPotential pot = potential_make(kind, rc, shift);
    Rng g = {seed};
    std::vector<PairCase> cases = pair_sweep(g, (double)(real)rc, L, charged, 60);
    const int nlisted = (int)cases.size();
    for (int k = 0; k < 8; k++) {   /* an atom with itself: the all-pairs loop meets it */
        PairCase c = cases[k];
        c.rj = c.ri;
        c.r = 0;
        cases.push_back(c);
    }
    const int n = (int)cases.size();
    std::vector<PairWant> want(n);
    for (int k = 0; k < n; k++) want[k] = pair_host(cases[k], pot, (double)L);
    PairCase *d_cases = to_device(cases);
    ForceSum *d_out = to_device(std::vector<ForceSum>(n)), *d_all = to_device(std::vector<ForceSum>(n));
    pair_kernel<Kind><<<blocks_for(n, 64), 64>>>(d_cases, n, pbc_box(L), pot, d_out, d_all);
    std::vector<ForceSum> out = from_device(d_out, n, "pair_kernel"), all = from_device(d_all, n, "pair_kernel");
    cudaFree(d_cases); cudaFree(d_out); cudaFree(d_all);
    /* the list's form never meets i itself: only the pairs proper */
    const std::vector<PairCase> listed(cases.begin(), cases.begin() + nlisted);
    const std::vector<ForceSum> out_listed(out.begin(), out.begin() + nlisted);
    const std::vector<PairWant> want_listed(want.begin(), want.begin() + nlisted);
    pair_judge(name, "(list)", listed, out_listed, want_listed, tol);
    pair_judge(name, "(all pairs, with i itself)", cases, all, want, tol);
}

static void test_pair(void)
{
    /* the presets of common/params.c */
    pair_case<POT_LJ>("sp", POT_LJ, pow(2.0, 1.0 / 6), 1, 0, 21);
    pair_case<POT_LJ>("lj", POT_LJ, 3, 0, 0, 22);
    pair_case<POT_LJ>("lammps-lj", POT_LJ, 2.5, 0, 0, 23);
    pair_case<POT_LJ_COULSF>("salt", POT_LJ_COULSF, 6, 0, 1, 24);
    pair_case<POT_LJ_COULSF>("sp-coulsf", POT_LJ_COULSF, pow(2.0, 1.0 / 6), 1, 1, 25);
}
