/* cluster_list.cu - the cluster-pair list's build (see cluster_list.cuh). */
#include "cluster_list.cuh"

#include <math.h>
#include <string.h>
#include <vector>

/* A coordinate no atom has: padding and idle lanes sit there, so every distance to them is
 * beyond any cutoff (their r^2 overflows to inf in float, > r_c^2 in double). */
#define FAR_AWAY ((real)1e30)

__device__ __forceinline__ int floor_div_d(int a, int b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

void cluster_list_init(ClusterList *cl, GpuSim *g, int n, real L, real rn, int C, int Cj, const char *who)
{
    memset(cl, 0, sizeof *cl);
    ClusterGeom &geo = cl->geo;
    const double rho = n / ((double)L * L * L), a = cbrt(C / rho);
    geo.C = C;
    geo.Cj = Cj;
    geo.units = C / Cj;
    geo.G = (int)fmax(1.0, floor(L / a + 0.5));
    geo.Gz = (int)fmax(1.0, floor(L / (0.5 * a)));
    geo.ncols = geo.G * geo.G;
    if ((double)geo.ncols * geo.Gz > 1 << 30)
        nbr_fail(EXIT_INPUT, "%s: %d x %d columns of %d bins are too many for one sort: lower --ne", who, geo.G, geo.G,
                 geo.Gz);
    geo.nbins = geo.ncols * geo.Gz;
    geo.max_clusters = n / C + geo.ncols;
    geo.L = L;
    geo.w = L / geo.G;
    geo.inv_w = 1 / geo.w;
    geo.hz = L / geo.Gz;
    geo.inv_hz = 1 / geo.hz;
    geo.rn = rn;
    cellsort_reserve(&cl->sort, g, n, geo.nbins, CELLSORT_COUNT | CELLSORT_START | CELLSORT_END, 0, g->stream);
    const size_t nc = (size_t)geo.max_clusters, nu = nc * geo.units;
    cl->col_ncl = (int *)gpu_alloc(g, sizeof(int) * geo.ncols, "clusters per column");
    cl->col_cl = (int *)gpu_alloc(g, sizeof(int) * geo.ncols, "first cluster of each column");
    cl->col_cl_end = (int *)gpu_alloc(g, sizeof(int) * geo.ncols, "end of each column's clusters");
    cl->cl_first = (int *)gpu_alloc(g, sizeof(int) * nc, "first atom of each cluster");
    cl->cl_count = (int *)gpu_alloc(g, sizeof(int) * nc, "atoms of each cluster");
    cl->bb_lo = (real4 *)gpu_alloc(g, sizeof(real4) * nu, "the j-units' boxes");
    cl->bb_hi = (real4 *)gpu_alloc(g, sizeof(real4) * nu, "the j-units' boxes");
    cl->row_count = (int *)gpu_alloc(g, sizeof(int) * nc, "entries per cluster row");
    CUDA_CHECK(cudaMemsetAsync(cl->col_cl_end, 0, sizeof(int) * geo.ncols, g->stream));
    CUDA_CHECK(cudaMemsetAsync(cl->row_count, 0, sizeof(int) * nc, g->stream));
    cl->status_units = cl->col_cl_end + geo.ncols - 1;
}

void cluster_list_free(ClusterList *cl, GpuSim *g)
{
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    cellsort_free(&cl->sort, g);
    void *dev[] = {cl->col_ncl, cl->col_cl, cl->col_cl_end, cl->cl_first, cl->cl_count, cl->bb_lo, cl->bb_hi,
                   cl->row_count};
    for (void *p : dev) gpu_release(p);
    memset(cl, 0, sizeof *cl);
}

/* ---- the sort and the table ------------------------------------------------------------ */

/* Each bin's atoms (a few) in z order: insertion sort of perm[start, end) by r.z. */
__global__ void bin_zsort_kernel(const real4 *__restrict__ r, const int *__restrict__ start,
                                 const int *__restrict__ end, int *perm, int nbins, const int *gate)
{
    if (gate && !*gate) return;
    const int b = blockIdx.x * blockDim.x + threadIdx.x;
    if (b >= nbins) return;
    const int s = start[b], e = end[b];
    for (int k = s + 1; k < e; k++) {
        const int p = perm[k];
        const real z = r[p].z;
        int q = k - 1;
        while (q >= s && r[perm[q]].z > z) {
            perm[q + 1] = perm[q];
            q--;
        }
        perm[q + 1] = p;
    }
}

__global__ void column_clusters_kernel(ClusterGeom geo, const int *__restrict__ start, const int *__restrict__ end,
                                       int *col_ncl, const int *gate)
{
    if (gate && !*gate) return;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= geo.ncols) return;
    const int atoms = end[c * geo.Gz + geo.Gz - 1] - start[c * geo.Gz];
    col_ncl[c] = (atoms + geo.C - 1) / geo.C;
}

__global__ void cluster_table_kernel(ClusterGeom geo, const int *__restrict__ start, const int *__restrict__ end,
                                     const int *__restrict__ col_cl, const int *__restrict__ col_cl_end,
                                     int *cl_first, int *cl_count, const int *gate)
{
    if (gate && !*gate) return;
    const int c = blockIdx.x * blockDim.x + threadIdx.x;
    if (c >= geo.ncols) return;
    const int a0 = start[c * geo.Gz], atoms = end[c * geo.Gz + geo.Gz - 1] - a0;
    for (int k = 0, I = col_cl[c]; I < col_cl_end[c]; k++, I++) {
        cl_first[I] = a0 + k * geo.C;
        cl_count[I] = min(geo.C, atoms - k * geo.C);
    }
}

/* The box of every j-unit (an empty unit, past a short cluster's last atom: an empty box) */
__global__ void unit_boxes_kernel(ClusterGeom geo, const real4 *__restrict__ r, const int *__restrict__ cl_first,
                                  const int *__restrict__ cl_count, const int *total, real4 *bb_lo, real4 *bb_hi,
                                  const int *gate)
{
    if (gate && !*gate) return;
    const int u = blockIdx.x * blockDim.x + threadIdx.x;
    const int I = u / geo.units, k = u - I * geo.units;
    if (I >= *total) return;
    real4 lo = make_real4(FAR_AWAY, FAR_AWAY, FAR_AWAY, 0), hi = make_real4(-FAR_AWAY, -FAR_AWAY, -FAR_AWAY, 0);
    const int a0 = cl_first[I] + k * geo.Cj, a1 = cl_first[I] + min(cl_count[I], (k + 1) * geo.Cj);
    for (int a = a0; a < a1; a++) {
        const real4 p = r[a];
        lo.x = fmin(lo.x, p.x); lo.y = fmin(lo.y, p.y); lo.z = fmin(lo.z, p.z);
        hi.x = fmax(hi.x, p.x); hi.y = fmax(hi.y, p.y); hi.z = fmax(hi.z, p.z);
    }
    bb_lo[u] = lo;
    bb_hi[u] = hi;
}

void cluster_list_sort_and_table(ClusterList *cl, real4 *r, real4 *r_alt, real4 *v, real4 *v_alt, int n,
                                 const int *gate, int threads, cudaStream_t stream)
{
    const ClusterGeom &geo = cl->geo;
    CellSort *cs = &cl->sort;
    const int T = threads;
    cellsort_count(ColumnBins{geo}, r, n, cs->key, cs->slot, cs->count, gate, T, stream);
    cellsort_scan(cs, cs->count, cs->start, cs->end, geo.nbins, gate, stream);
    cellsort_place(cs->key, cs->slot, cs->start, n, cs->perm, gate, T, stream);
    bin_zsort_kernel<<<blocks_for(geo.nbins, T), T, 0, stream>>>(r, cs->start, cs->end, cs->perm, geo.nbins, gate);
    LAUNCH_CHECK("bin_zsort_kernel");
    cellsort_gather(cs->perm, n, cell_moves(r, r_alt, v, v_alt), gate, T, stream);
    cellsort_copy_back(cell_moves(r_alt, r, v_alt, v), n, cs->count, geo.nbins, gate, gate, T, stream);
    column_clusters_kernel<<<blocks_for(geo.ncols, T), T, 0, stream>>>(geo, cs->start, cs->end, cl->col_ncl, gate);
    LAUNCH_CHECK("column_clusters_kernel");
    cellsort_scan(cs, cl->col_ncl, cl->col_cl, cl->col_cl_end, geo.ncols, gate, stream);
    cluster_table_kernel<<<blocks_for(geo.ncols, T), T, 0, stream>>>(geo, cs->start, cs->end, cl->col_cl,
                                                                     cl->col_cl_end, cl->cl_first, cl->cl_count, gate);
    LAUNCH_CHECK("cluster_table_kernel");
    const long units = (long)geo.max_clusters * geo.units;
    unit_boxes_kernel<<<blocks_for(units, T), T, 0, stream>>>(geo, r, cl->cl_first, cl->cl_count, cl->status_units,
                                                              cl->bb_lo, cl->bb_hi, gate);
    LAUNCH_CHECK("unit_boxes_kernel");
}

/* ---- the search ------------------------------------------------------------------------ */

__device__ __forceinline__ real gap(real lo, real hi, real a, real b)   /* [lo, hi] to [a, b] */
{
    return fmax((real)0, fmax(a - hi, lo - b));
}

__device__ __forceinline__ unsigned entry_of(int first, int atoms, int code)
{
    return (unsigned)first << ENTRY_FIRST | (unsigned)(atoms - 1) << ENTRY_ATOMS | (unsigned)code;
}

/* A warp per i-cluster: its own units (code 13) first; then each lane takes one column image
 * within r_n of the box in x and y and finds, with the bins that reach within r_n in z, its
 * candidates: up to three ranges (one per periodic image along z) of atoms (Cj = 1) or of the
 * units over them. The warp then walks all lanes' candidates as one sequence, 32 at a time (a
 * candidate's range found by a search of the lanes' running totals in shared memory), tests each
 * against the box and places the listed ones by a ballot, in the sequence's order. So the loads
 * of one column's bounds are not a chain the warp waits on column after column (1.0 ms a build
 * at 1M atoms, 8x1, when it was). */
enum { SEARCH_THREADS = 128, SEGS = 3 };

template <int Cj>
__global__ void __launch_bounds__(SEARCH_THREADS) cluster_search_kernel(ClusterGeom geo, const real4 *__restrict__ r,
                                                                        const int *__restrict__ start,
                                                                        const int *__restrict__ end,
                                                                        const int *__restrict__ col_cl,
                                                                        const int *__restrict__ cl_first,
                                                                        const int *__restrict__ cl_count,
                                                                        const real4 *__restrict__ bb_lo,
                                                                        const real4 *__restrict__ bb_hi,
                                                                        const int *total, unsigned *W, int cap,
                                                                        int *row_count, BuildStatus *status,
                                                                        const int *gate)
{
    if (gate && !*gate) return;
    __shared__ int seg_first[SEARCH_THREADS / 32][32 * SEGS], seg_len[SEARCH_THREADS / 32][32 * SEGS],
        seg_code[SEARCH_THREADS / 32][32 * SEGS], lane_end[SEARCH_THREADS / 32][32];
    __shared__ real4 iatoms[SEARCH_THREADS / 32][8];
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
    const int I = (int)(((long)blockIdx.x * blockDim.x + threadIdx.x) >> 5);
    if (I >= *total) return;   /* whole warps */
    const int first = cl_first[I], cnt = cl_count[I];
    /* I's box: the union of its units' */
    real4 lo = bb_lo[(long)I * geo.units], hi = bb_hi[(long)I * geo.units];
    for (int k = 1; k < geo.units; k++) {
        const real4 l = bb_lo[(long)I * geo.units + k], h = bb_hi[(long)I * geo.units + k];
        lo.x = fmin(lo.x, l.x); lo.y = fmin(lo.y, l.y); lo.z = fmin(lo.z, l.z);
        hi.x = fmax(hi.x, h.x); hi.y = fmax(hi.y, h.y); hi.z = fmax(hi.z, h.z);
    }
    const real L = geo.L, half = (real)0.5 * L, rn2 = geo.rn * geo.rn;
    const real4 r0 = r[first];
    real4 *ia = iatoms[threadIdx.x >> 5];
    if (Cj == 1 && lane < cnt) ia[lane] = r[first + lane];
    __syncwarp();
    const int cx = cell_coord(r0.x, L, geo.inv_w, geo.G), cy = cell_coord(r0.y, L, geo.inv_w, geo.G);
    unsigned *row = W + (size_t)I * cap;
    int m = 0;            /* entries found (stored while < cap) */
    long atoms_sum = 0;   /* j atoms over the entries (Cj > 1; Cj = 1: m) */
    auto emit = [&](bool in, int first_atom, int atoms, int code) {
        const unsigned ball = __ballot_sync(full, in);
        const int pos = m + __popc(ball & ((1u << lane) - 1));
        if (in && pos < cap) row[pos] = entry_of(first_atom, atoms, code);
        m += __popc(ball);
        if (Cj > 1) {
            int got = in ? atoms : 0;
            for (int o = 16; o > 0; o >>= 1) got += __shfl_xor_sync(full, got, o);
            atoms_sum += got;
        }
    };
    /* the own cluster's units, unshifted, first */
    {
        const int k = lane, a0 = first + k * Cj;
        emit(k < geo.units && k * Cj < cnt, a0, min(Cj, cnt - k * Cj), SHIFT_NONE);
    }
    const int R = (int)(geo.rn * geo.inv_w) + 1, side = 2 * R + 1, ncand = side * side;
    const int b0 = (int)floor((lo.z - geo.rn + half) * geo.inv_hz), b1 = (int)floor((hi.z + geo.rn + half) * geo.inv_hz);
    const int sz0 = floor_div_d(b0, geo.Gz), sz1 = min(floor_div_d(b1, geo.Gz), sz0 + SEGS - 1);
    int *sf = seg_first[warp], *sl = seg_len[warp], *sc = seg_code[warp], *le = lane_end[warp];
    for (int base = 0; base < ncand; base += 32) {
        /* this lane's column image and its candidate ranges */
        const int o = base + lane;
        const int dx = o % side - R, dy = o / side - R;
        const int ix = cx + dx, iy = cy + dy;
        const int sx = floor_div_d(ix, geo.G), sy = floor_div_d(iy, geo.G);
        const real x0 = ix * geo.w - half, y0 = iy * geo.w - half;
        const real gx = gap(lo.x, hi.x, x0, x0 + geo.w), gy = gap(lo.y, hi.y, y0, y0 + geo.w);
        int mine = 0;
        if (o < ncand && gx * gx + gy * gy < rn2) {
            const int col = (iy - sy * geo.G) * geo.G + (ix - sx * geo.G);
            const int cs = start[col * geo.Gz], c0 = Cj > 1 ? col_cl[col] : 0;
            for (int sz = sz0, k = 0; sz <= sz1; sz++, k++) {
                const int s0 = max(b0 - sz * geo.Gz, 0), s1 = min(b1 - sz * geo.Gz, geo.Gz - 1);
                const int a0 = start[col * geo.Gz + s0], a1 = end[col * geo.Gz + s1];
                int f = a0, len = a1 - a0;
                if (Cj > 1 && len > 0) {   /* the units over atoms [a0, a1): consecutive */
                    f = (c0 + (a0 - cs) / geo.C) * geo.units + ((a0 - cs) % geo.C) / Cj;
                    len = (c0 + (a1 - 1 - cs) / geo.C) * geo.units + ((a1 - 1 - cs) % geo.C) / Cj - f + 1;
                }
                sf[lane * SEGS + k] = f;
                sl[lane * SEGS + k] = max(len, 0);
                sc[lane * SEGS + k] = (CLUSTER_PLANT == 2 ? 1 - sx : sx + 1) + 3 * (sy + 1) + 9 * (sz + 1);
                mine += max(len, 0);
            }
        }
        for (int k = (mine ? sz1 - sz0 + 1 : 0); k < SEGS; k++) sl[lane * SEGS + k] = 0;
        /* running totals over the lanes */
        int incl = mine;
        for (int d = 1; d < 32; d <<= 1) {
            const int y = __shfl_up_sync(full, incl, d);
            if (lane >= d) incl += y;
        }
        le[lane] = incl;
        const int ncands = __shfl_sync(full, incl, 31);
        __syncwarp();
        for (int t0 = 0; t0 < ncands; t0 += 32) {
            const int t = t0 + lane;
            bool in = false;
            int fa = 0, na = 1, code = SHIFT_NONE;
            if (t < ncands) {
                int L0 = 0;   /* the first lane whose running total passes t */
                for (int step = 16; step > 0; step >>= 1)
                    if (le[L0 + step - 1] <= t) L0 += step;
                int rem = t - (L0 ? le[L0 - 1] : 0), k = 0;
                while (rem >= sl[L0 * SEGS + k]) rem -= sl[L0 * SEGS + k++];
                const int c = sf[L0 * SEGS + k] + rem;
                code = sc[L0 * SEGS + k];
                const real Sx = (code % 3 - 1) * L, Sy = (code / 3 % 3 - 1) * L, Sz = (code / 9 - 1) * L;
                if (Cj == 1) {
                    /* within r_n of the box, then of one of the cluster's atoms: the union of their
                     * spheres is ~3/4 of the box's reach (lammps-lj, 8 and 4 atoms), and every slot
                     * listed costs the force kernel each step */
                    fa = c;
                    if (!(code == SHIFT_NONE && c >= first && c < first + cnt)) {
                        real4 p = r[c];
                        p.x += Sx; p.y += Sy; p.z += Sz;
                        const real ex = gap(lo.x, hi.x, p.x, p.x), ey = gap(lo.y, hi.y, p.y, p.y),
                                   ez = gap(lo.z, hi.z, p.z, p.z);
                        if (ex * ex + ey * ey + ez * ez < rn2 &&
                            !(CLUSTER_PLANT == 1 && code == SHIFT_NONE && c == first + cnt))
                            for (int q = 0; q < cnt && !in; q++) {
                                const real ddx = ia[q].x - p.x, ddy = ia[q].y - p.y, ddz = ia[q].z - p.z;
                                in = ddx * ddx + ddy * ddy + ddz * ddz < rn2;
                            }
                    }
                } else {
                    const int J = c / geo.units, k2 = c - J * geo.units;
                    if (!(code == SHIFT_NONE && J == I)) {
                        const real4 l = bb_lo[c], h = bb_hi[c];
                        const real ex = gap(lo.x, hi.x, l.x + Sx, h.x + Sx), ey = gap(lo.y, hi.y, l.y + Sy, h.y + Sy),
                                   ez = gap(lo.z, hi.z, l.z + Sz, h.z + Sz);
                        fa = cl_first[J] + k2 * Cj;
                        na = min(Cj, cl_count[J] - k2 * Cj);
                        in = na > 0 && ex * ex + ey * ey + ez * ez < rn2;
                    }
                }
            }
            emit(in, fa, na, code);
        }
        __syncwarp();   /* the table is rewritten by the next round of columns */
    }
    if (lane == 0) {
        row_count[I] = m;
        atomicMax(&status->nbr_max, m);
        /* the pair slots of real atoms the force kernel evaluates, i != j */
        if (Cj == 1) atoms_sum = m;
        atomicAdd(&status->nbr_total, (unsigned long long)(cnt * atoms_sum - cnt));
    }
}

void cluster_list_search(ClusterList *cl, const real4 *r, int n, int *W, int cap, BuildStatus *status,
                         const int *gate, cudaStream_t stream)
{
    const ClusterGeom &geo = cl->geo;
    const int T = SEARCH_THREADS, blocks = blocks_for((long)geo.max_clusters * 32, T);
    auto launch = [&](auto cj) {
        constexpr int Cj = decltype(cj)::value;
        cluster_search_kernel<Cj><<<blocks, T, 0, stream>>>(geo, r, cl->sort.start, cl->sort.end, cl->col_cl,
                                                              cl->cl_first, cl->cl_count, cl->bb_lo, cl->bb_hi,
                                                              cl->status_units, (unsigned *)W, cap, cl->row_count,
                                                              status, gate);
    };
    switch (geo.Cj) {
    case 1: launch(std::integral_constant<int, 1>{}); break;
    case 2: launch(std::integral_constant<int, 2>{}); break;
    case 4: launch(std::integral_constant<int, 4>{}); break;
    default: launch(std::integral_constant<int, 8>{}); break;
    }
    LAUNCH_CHECK("cluster_search_kernel");
}

/* ---- host views ------------------------------------------------------------------------ */

double cluster_list_pairs(const ClusterList *cl, GpuSim *g, int n, int cap, real rc, PairFn fn, void *arg,
                          double *within_rc)
{
    return cluster_rows_pairs(cl, g, (const unsigned *)g->W, cl->row_count, n, cap, rc, fn, arg, within_rc);
}

double cluster_rows_pairs(const ClusterList *cl, GpuSim *g, const unsigned *W_dev, const int *rows_dev, int n, int cap,
                          real rc, PairFn fn, void *arg, double *within_rc)
{
    const ClusterGeom &geo = cl->geo;
    int total = 0;
    CUDA_CHECK(cudaMemcpyAsync(&total, cl->status_units, sizeof(int), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    std::vector<int> first(total), count(total), rows(total);
    std::vector<unsigned> W((size_t)total * cap);
    std::vector<real4> r(n);
    CUDA_CHECK(cudaMemcpyAsync(first.data(), cl->cl_first, sizeof(int) * total, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(count.data(), cl->cl_count, sizeof(int) * total, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(rows.data(), rows_dev, sizeof(int) * total, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(W.data(), W_dev, sizeof(int) * (size_t)total * cap, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(r.data(), g->r, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    const double L = geo.L, rn2 = (double)geo.rn * geo.rn, rc2 = (double)rc * rc;
    double slots = 0, inside = 0;
    for (int I = 0; I < total; I++) {
        const int m_I = rows[I] < cap ? rows[I] : cap;
        for (int m = 0; m < m_I; m++) {
            const unsigned e = W[(size_t)I * cap + m];
            const int a0 = (int)(e >> ENTRY_FIRST), atoms = (int)(e >> ENTRY_ATOMS & 7) + 1, code = (int)(e & ENTRY_CODE_MASK);
            const double S[3] = {(code % 3 - 1) * L, (code / 3 % 3 - 1) * L, (code / 9 - 1) * L};
            for (int t = 0; t < count[I]; t++) {
                const int i = first[I] + t;
                for (int q = 0; q < atoms; q++) {
                    const int j = a0 + q;
                    if (j == i && code == SHIFT_NONE) continue;
                    const double dx = (double)r[i].x - ((double)r[j].x + S[0]), dy = (double)r[i].y - ((double)r[j].y + S[1]),
                                 dz = (double)r[i].z - ((double)r[j].z + S[2]);
                    const double d2 = dx * dx + dy * dy + dz * dz;
                    slots++;
                    if (d2 < rc2) inside++;
                    if (fn && d2 < rn2) fn(i, j, arg);
                }
            }
        }
    }
    if (within_rc) *within_rc = inside;
    return slots;
}

double cluster_list_bytes(const ClusterGeom &geo, double n, double entries)
{
    const double r4 = sizeof(real4);
    const double sort = r4 * n + 8 * n + 8.0 * geo.nbins + 4 * n + 8 * r4 * n;   /* as sort_cells_bytes */
    const double table = 12.0 * geo.ncols + 8.0 * geo.max_clusters + r4 * n + 2 * r4 * geo.max_clusters * geo.units;
    const double search = r4 * n + 4 * entries + 4.0 * geo.max_clusters;
    return sort + table + search;
}
