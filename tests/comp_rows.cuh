/* comp_rows.cuh - group "list", its second part: the per-atom rows of atom_rows.cuh (gpu-onchip's
 * lists: rows_build by n2 or over the 27 cells around an atom's, groups of t_p lanes placing
 * entries by ballot) in kernels of their own, 16- and 32-bit, against the same host lists as the
 * n2 build's (check_lists): every j within r_n listed by i exactly once, m_i the true count past
 * the capacity, and nothing written past it (two guard entries after each row). The cells' bins
 * (rows_bin) must hold every atom: their largest occupancy within the slots, else the case fails.
 * Each row is then moved by rows_copy (a chunk's move between shared and global memory) into a
 * second store, which must hold the same count and entries and nothing past the capacity. */

template <typename Idx>
__global__ void rows_bin_kernel(const real4 *r, int n, real L, RowCells<Idx> g, int *most)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicMax(most, rows_bin(i, r[i], L, g));
}

/* atom i's row at list[i * stride], stride = cap + 2 */
/* atom i's row at list[i * stride], stride = cap + 2, and its copy at copy[i * stride] */
template <typename Idx>
__global__ void rows_kernel(const real4 *r, int n, int lanes, PbcBox box, real rn2, RowCells<Idx> g, Idx *list,
                            int *count, Idx *copy, int *copy_count, int cap, int stride)
{
    const int ltp = lanes_log2(lanes), tp = 1 << ltp, rank = blockIdx.x * blockDim.x + threadIdx.x,
              sub = rank & (tp - 1), i = rank >> ltp;
    const bool act = i < n;
    const int m = rows_build(i, act, sub, tp, r, n, box, rn2, g, list + (size_t)(act ? i : 0) * stride, cap);
    if (act && sub == 0) count[i] = m;
    __syncwarp();   /* the row's entries, placed by every lane of the group, are read by every lane */
    if (act) rows_copy(list + (size_t)i * stride, &count[i], copy + (size_t)i * stride, &copy_count[i], cap, sub, tp);
}

template <typename Idx>
static void rows_case(const char *what, const std::vector<real4> &r, real L, real rn, const HostList &h, int tp,
                      bool cells, int cap)
{
    const int n = (int)r.size(), stride = cap + 2, threads = 256;
    const Idx guard = (Idx)-7;   /* 65529 as 16 bits: no atom's index here */
    real4 *d_r = to_device(r);
    Idx *d_list = to_device(std::vector<Idx>((size_t)stride * n, guard));
    Idx *d_copy = to_device(std::vector<Idx>((size_t)stride * n, guard));
    int *d_count = to_device(std::vector<int>(n, -1)), *d_most = to_device(std::vector<int>(1, 0));
    int *d_copy_count = to_device(std::vector<int>(n, -1));
    RowCells<Idx> g = {0, 0, 0, nullptr, nullptr};
    char past[200] = "";
    if (cells) {
        g.m = (int)floor(L / (rn * (1 + 1e-5)));
        g.cap = 64;
        g.inv_h = (real)(g.m / L);
        const size_t ncell = (size_t)g.m * g.m * g.m;
        g.count = to_device(std::vector<int>(ncell, 0));
        g.slot = to_device(std::vector<Idx>(ncell * g.cap, guard));
        rows_bin_kernel<<<blocks_for(n, threads), threads>>>(d_r, n, L, g, d_most);
        const int most = from_device(d_most, 1, "rows_bin_kernel")[0];
        if (most > g.cap) snprintf(past, sizeof past, "a cell holds %d atoms, over the test's %d slots", most, g.cap);
    }
    rows_kernel<Idx><<<blocks_for((long)n * tp, threads), threads>>>(d_r, n, tp, pbc_box(L), rn * rn, g, d_list,
                                                                        d_count, d_copy, d_copy_count, cap, stride);
    const std::vector<Idx> list = from_device(d_list, (size_t)stride * n, "rows_kernel");
    const std::vector<int> count = from_device(d_count, n, "rows_kernel");
    const std::vector<Idx> copy = from_device(d_copy, (size_t)stride * n, "rows_kernel");
    const std::vector<int> copy_count = from_device(d_copy_count, n, "rows_kernel");
    cudaFree(d_r); cudaFree(d_list); cudaFree(d_count); cudaFree(d_most); cudaFree(d_copy); cudaFree(d_copy_count);
    if (cells) { cudaFree(g.count); cudaFree(g.slot); }

    std::vector<std::vector<int>> rows(n);
    for (int i = 0; i < n; i++) {
        for (int k = 0; k < std::min(std::max(count[i], 0), cap); k++) rows[i].push_back((int)list[(size_t)i * stride + k]);
        for (int k = cap; k < stride && !past[0]; k++)
            if (list[(size_t)i * stride + k] != guard)
                snprintf(past, sizeof past, "row written past the capacity %d, at m = %d (atom %d)", cap, k, i);
        for (int k = 0; k < stride && !past[0]; k++)   /* all cap entries are copied, the guards after them not */
            if (copy[(size_t)i * stride + k] != (k < cap ? list[(size_t)i * stride + k] : guard))
                snprintf(past, sizeof past, "rows_copy: atom %d's copy differs at m = %d (capacity %d)", i, k, cap);
        if (!past[0] && copy_count[i] != count[i])
            snprintf(past, sizeof past, "rows_copy: atom %d's count copied as %d, not %d", i, copy_count[i], count[i]);
    }
    char name[200];
    snprintf(name, sizeof name, "rows %s %d-bit %s, t_p %d", cells ? "cells" : "n2", (int)(8 * sizeof(Idx)), what, tp);
    check_lists(name, r, h, rows, count, cap, nullptr, past[0] ? past : nullptr);
}

static void rows_config(const char *what, const std::vector<real4> &r, real L, real rn, const HostList &h)
{
    const int cap = (h.most + 9) & ~1;   /* even: rows_copy moves 16-bit rows as 32-bit words */
    for (bool cells : {false, true}) {
        rows_case<uint16_t>(what, r, L, rn, h, 1, cells, cap);
        rows_case<uint16_t>(what, r, L, rn, h, 4, cells, cap);
        rows_case<uint16_t>(what, r, L, rn, h, 32, cells, cap);
        rows_case<int>(what, r, L, rn, h, 8, cells, cap);
        rows_case<uint16_t>(what, r, L, rn, h, 2, cells, (h.most - 2) & ~1);   /* overflow */
    }
}
