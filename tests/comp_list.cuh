/* comp_list.cuh - group "list" of test-components (with comp_rows.cuh): RUMD's n2 list build (rumd_lists.cuh:
 * build_n2_block, as list_n2.cu's kernel and gpu-rumd's chunk kernel call it) in a kernel of its
 * own, against an O(N^2) host list from the same positions (pbc_delta_double, in double, as the
 * reference forms its pairs), as sorted sets per atom: every j != i within r_n listed by i exactly
 * once, none beyond, m_i the number listed, and the build status's N_p (sum of m_i) and largest m_i.
 * A pair within rounding of r_n (|r^2 - r_n^2| <= 1e-5 r_n^2 in float, 1e-12 in double) may be listed
 * or not, at most once (the line says how many there are: 0 in double, a few in float here).
 *
 * Two random configurations (SP's density and r_n = 1.72, LJ's density and r_n = 3.8), lane
 * layouts of t_p = 1, 4, 7 (idle lanes), 32 and 64 (two warps per particle), blocks that do not
 * divide N, both W layouts and two read paths; and one build whose capacity is two entries short
 * of the largest m_i: the counts still the true ones, W never written past the capacity. */

template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) n2_kernel(TpLayout lay, PosSource pos, int n, PbcBox box, real rn2,
                                                  ListTarget out)
{
    extern __shared__ __align__(32) unsigned char n2_smem[];
    build_n2_block<Mode, Layout>(lay, pos, n, box, rn2, out, blockIdx.x, n2_smem);
}

struct HostList {
    std::vector<std::vector<int>> sure, edge;   /* per atom: within r_n; within rounding of it */
    long long total;                            /* sum of |sure| */
    int most, nedge;
};

static HostList host_list(const std::vector<real4> &r, real L, real rn2)
{
    const int n = (int)r.size();
    const double band = (sizeof(real) == sizeof(float) ? 1e-5 : 1e-12) * (double)rn2;
    HostList h;
    h.sure.assign(n, {});
    h.edge.assign(n, {});
    h.total = 0;
    h.most = 0;
    h.nedge = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (j == i) continue;
            const double dx = pbc_delta_double(r[i].x, r[j].x, L), dy = pbc_delta_double(r[i].y, r[j].y, L),
                         dz = pbc_delta_double(r[i].z, r[j].z, L);
            const double r2 = dx * dx + dy * dy + dz * dz;
            if (fabs(r2 - (double)rn2) <= band) { h.edge[i].push_back(j); h.nedge++; }
            else if (r2 < (double)rn2) h.sure[i].push_back(j);
        }
        h.total += (long long)h.sure[i].size();
        h.most = std::max(h.most, (int)h.sure[i].size());
    }
    return h;
}

/* The verdict on one build's lists: rows[i] the entries stored for atom i, count[i] its m_i, st the
 * build status (nullptr: none kept), past_cap a message where the build wrote past its capacity.
 * One check line, `what` naming the build. */
static void check_lists(const char *what, const std::vector<real4> &r, const HostList &h,
                        std::vector<std::vector<int>> rows, const std::vector<int> &count, int cap,
                        const BuildStatus *st, const char *past_cap)
{
    const int n = (int)r.size();
    const bool full = cap >= h.most + 1;   /* room for every entry (an edge pair included) */
    char why[300] = "", line[600];
    int bad = -1, edges_listed = 0, most = 0;
    long long total = 0;
    for (int i = 0; i < n && bad < 0; i++) {
        const std::vector<int> &sure = h.sure[i], &edge = h.edge[i];
        const int m = count[i];
        std::vector<int> &got = rows[i];
        total += m;
        most = std::max(most, m);
        std::sort(got.begin(), got.end());
        if (m < (int)sure.size() || m > (int)(sure.size() + edge.size())) {
            bad = i;
            snprintf(why, sizeof why, "m_i = %d on the device, %zu on the host (%zu more within rounding of r_n)", m,
                     sure.size(), edge.size());
            break;
        }
        for (size_t k = 0; k < got.size() && bad < 0; k++) {
            const int j = got[k];
            if (k > 0 && got[k - 1] == j) { bad = i; snprintf(why, sizeof why, "lists atom %d twice", j); }
            else if (std::binary_search(edge.begin(), edge.end(), j)) edges_listed++;
            else if (!std::binary_search(sure.begin(), sure.end(), j)) {
                bad = i;
                snprintf(why, sizeof why, "lists atom %d, not within r_n on the host", j);
            }
        }
        if (bad >= 0) break;
        if (full)   /* every sure neighbour stored */
            for (int j : sure)
                if (!std::binary_search(got.begin(), got.end(), j)) {
                    bad = i;
                    snprintf(why, sizeof why, "misses atom %d, within r_n on the host", j);
                    break;
                }
    }
    if (bad < 0 && past_cap) {
        bad = n;
        snprintf(why, sizeof why, "%s", past_cap);
    }
    if (bad < 0 && st && ((long long)st->nbr_total != total || st->nbr_max != most)) {
        bad = n;
        snprintf(why, sizeof why, "the build status says N_p %llu, largest m_i %d; the counts %lld, %d", st->nbr_total,
                 st->nbr_max, total, most);
    }
    if (bad >= 0 && bad < n)
        snprintf(line, sizeof line, "%s, capacity %d: atom %d at (%.9g, %.9g, %.9g) %s", what, cap, bad,
                 (double)r[bad].x, (double)r[bad].y, (double)r[bad].z, why);
    else if (bad >= 0)
        snprintf(line, sizeof line, "%s, capacity %d: %s", what, cap, why);
    else
        snprintf(line, sizeof line,
                 "%s, capacity %d: %d atoms' lists as the host's (N_p %lld, largest m_i %d; %d pairs within rounding of "
                 "r_n, %d listed)%s",
                 what, cap, n, total, most, h.nedge, edges_listed, full ? "" : ", counts past the capacity");
    expect(bad < 0, line);
}

/* One build: layout (tp, pb), read path Mode, W layout Layout, capacity cap; one check line. */
template <int Mode, int Layout>
static void list_case(const char *what, const std::vector<real4> &r, real L, real rn, const HostList &h, int tp,
                      int pb, int cap)
{
    const int n = (int)r.size();
    const real rn2 = rn * rn;
    const TpLayout lay = tp_layout(tp, pb, "test-components");
    const int guard_rows = 4;   /* row layout: rows cap .. cap + 3 must stay untouched */
    const size_t wlen = Layout == WLAYOUT_ROW ? (size_t)(cap + guard_rows) * n : (size_t)cap * n;
    real4 *d_r = to_device(r);
    int *d_w = to_device(std::vector<int>(wlen, -7)), *d_count = to_device(std::vector<int>(n, -1));
    BuildStatus *d_status = to_device(std::vector<BuildStatus>(1, BuildStatus{0, 0, 0}));
    n2_kernel<Mode, Layout><<<blocks_for(n, lay.ppb), lay.threads, list_n2_smem(lay)>>>(
        lay, PosSource{d_r, 0}, n, pbc_box(L), rn2, ListTarget{d_w, d_count, cap, d_status});
    const std::vector<int> w = from_device(d_w, wlen, "n2_kernel");
    const std::vector<int> count = from_device(d_count, n, "n2_kernel");
    const BuildStatus st = from_device(d_status, 1, "n2_kernel")[0];
    cudaFree(d_r); cudaFree(d_w); cudaFree(d_count); cudaFree(d_status);

    std::vector<std::vector<int>> rows(n);
    char past[200] = "";
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < std::min(std::max(count[i], 0), cap); k++) rows[i].push_back(w[w_index<Layout>(k, i, n, cap)]);
        if (Layout == WLAYOUT_ROW && !past[0])
            for (int k = cap; k < cap + guard_rows; k++)
                if (w[w_index<Layout>(k, i, n, cap)] != -7) {
                    snprintf(past, sizeof past, "W written past the capacity %d, at m = %d (atom %d)", cap, k, i);
                    break;
                }
    }
    char name[200];
    snprintf(name, sizeof name, "list n2 %s, t_p %d p_b %d, %s layout", what, tp, pb,
             Layout == WLAYOUT_ROW ? "row" : "col");
    check_lists(name, r, h, rows, count, cap, &st, past[0] ? past : nullptr);
}

#include "comp_rows.cuh"

static void list_config(const char *what, int n, double rho, real rn, uint64_t seed)
{
    const real L = (real)cbrt(n / rho);
    Rng g = {seed};
    const std::vector<real4> r = random_positions(g, n, L, 0);
    const HostList h = host_list(r, L, rn * rn);
    const int cap = h.most + 8;
    list_case<READ_PLAIN, WLAYOUT_ROW>(what, r, L, rn, h, 1, 64, cap);
    list_case<READ_LDG, WLAYOUT_COL>(what, r, L, rn, h, 1, 100, cap);
    list_case<READ_PLAIN, WLAYOUT_COL>(what, r, L, rn, h, 4, 32, cap);
    list_case<READ_LDG, WLAYOUT_ROW>(what, r, L, rn, h, 7, 10, cap);
    list_case<READ_PLAIN, WLAYOUT_ROW>(what, r, L, rn, h, 32, 8, cap);
    list_case<READ_LDG, WLAYOUT_ROW>(what, r, L, rn, h, 64, 4, cap);
    list_case<READ_PLAIN, WLAYOUT_ROW>(what, r, L, rn, h, 4, 32, h.most - 2);   /* overflow */
    rows_config(what, r, L, rn, h);
}

static void test_list(void)
{
    list_config("SP (1500 atoms, rho 0.8, r_n 1.72)", 1500, 0.8, (real)1.72, 41);
    list_config("LJ (700 atoms, rho 0.38, r_n 3.8)", 700, 0.38, (real)3.8, 42);
}
