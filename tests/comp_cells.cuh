/* comp_cells.cuh - group "cells" of test-components: the cell bins of every GPU program
 * (gpu_sim.cuh: cell_of_position, an atom's cell; cell_bin, its slot in the cell-major table,
 * 32-bit as gpu-layer's H and 16-bit as gpu-onchip's rows) in a one-thread-per-atom kernel,
 * against the CPU programs' cells (kernels/cpu/cells.c: cells_init's grid, cells_assign,
 * cells_link), exactly: every atom's cell, every cell's count, every atom in its own slot, every
 * cell's row the host's atoms. Random positions plus atoms on the cell faces and at the box's
 * edges (x = -L/2, the largest x below L/2), in grids of 3 and of 8 cells per axis. */

template <typename Idx>
__global__ void cells_kernel(const real4 *r, int n, CellGrid grid, int *cell_of, int *layer_of, int *count, Idx *slot,
                             int cap)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const int c = cell_of_position(r[i], grid.L, grid.inv_w, grid.G);
    cell_of[i] = c;
    layer_of[i] = cell_bin(i, c, count, slot, cap) - 1;
}

/* The positions of one configuration: n random ones, then atoms on every cell face (x, y or z
 * at -L/2 + k w, the other two random) and at the box's edges. */
static std::vector<real4> cells_positions(Rng &g, int n, const CellGrid &grid)
{
    std::vector<real4> r = random_positions(g, n, grid.L, 0);
    const real h = (real)0.5 * grid.L;
    /* the largest coordinate inside the box */
    const real top = sizeof(real) == sizeof(float) ? (real)nextafterf((float)h, 0.0f) : (real)nextafter((double)h, 0.0);
    for (int axis = 0; axis < 3; axis++)
        for (int k = 0; k <= grid.G; k++) {
            real4 a = random_positions(g, 1, grid.L, 0)[0];
            const real x = k == grid.G ? top : -h + (real)k * grid.w;
            (axis == 0 ? a.x : axis == 1 ? a.y : a.z) = x;
            r.push_back(a);
        }
    r.push_back(make_real4(-h, -h, -h, 0));
    r.push_back(make_real4(top, top, top, 0));
    r.push_back(make_real4(-h, top, 0, 0));
    return r;
}

template <typename Idx>
static void cells_case(const char *what, real L, double min_width, int nrandom, uint64_t seed)
{
    char line[400];
    const CellGrid grid = cells_init(L, min_width, nrandom, "test-components");
    Rng g = {seed};
    const std::vector<real4> r = cells_positions(g, nrandom, grid);
    const int n = (int)r.size(), nc = grid.ncells;
    if (sizeof(Idx) < sizeof(int) && n > 65535) { expect(0, "cells: a 16-bit case of over 65535 atoms"); return; }

    /* the host: kernels/cpu/cells.c */
    std::vector<vec3> rv(n);
    for (int i = 0; i < n; i++) rv[i] = vec3{r[i].x, r[i].y, r[i].z};
    std::vector<int> host_cell(n), head(nc), next(n), host_count(nc, 0);
    cells_assign(&grid, rv.data(), n, host_cell.data());
    cells_link(&grid, rv.data(), n, head.data(), next.data());
    int most = 0;
    for (int c = 0; c < nc; c++) {
        for (int i = head[c]; i >= 0; i = next[i]) host_count[c]++;
        most = std::max(most, host_count[c]);
    }
    const int cap = (most + 4 + 3) / 4 * 4;   /* room for all (and for a planted extra count) */

    /* the device */
    int *d_cell = to_device(std::vector<int>(n, -1)), *d_layer = to_device(std::vector<int>(n, -1));
    int *d_count = to_device(std::vector<int>(nc, 0));
    Idx *d_slot = to_device(std::vector<Idx>((size_t)nc * cap, (Idx)-1));
    real4 *d_r = to_device(r);
    cells_kernel<Idx><<<blocks_for(n, 128), 128>>>(d_r, n, grid, d_cell, d_layer, d_count, d_slot, cap);
    const std::vector<int> cell = from_device(d_cell, n, "cells_kernel");
    const std::vector<int> layer = from_device(d_layer, n, "cells_kernel");
    const std::vector<int> count = from_device(d_count, nc, "cells_kernel");
    const std::vector<Idx> slot = from_device(d_slot, (size_t)nc * cap, "cells_kernel");
    cudaFree(d_cell); cudaFree(d_layer); cudaFree(d_count); cudaFree(d_slot); cudaFree(d_r);

    /* every atom's cell */
    int bad = -1;
    for (int i = 0; i < n && bad < 0; i++)
        if (cell[i] != host_cell[i]) bad = i;
    if (bad >= 0)
        snprintf(line, sizeof line, "cells %s: atom %d at (%.17g, %.17g, %.17g) in cell %d on the device, %d on the host",
                 what, bad, (double)r[bad].x, (double)r[bad].y, (double)r[bad].z, cell[bad], host_cell[bad]);
    else
        snprintf(line, sizeof line, "cells %s: the cell of each of %d atoms (G = %d) as on the host", what, n, grid.G);
    expect(bad < 0, line);
    if (bad >= 0) return;

    /* every cell's count */
    for (int c = 0; c < nc && bad < 0; c++)
        if (count[c] != host_count[c]) bad = c;
    if (bad >= 0)
        snprintf(line, sizeof line, "cells %s: cell %d counts %d atoms on the device, %d on the host", what, bad,
                 count[bad], host_count[bad]);
    else
        snprintf(line, sizeof line, "cells %s: the count of each of %d cells as on the host (largest %d)", what, nc,
                 most);
    expect(bad < 0, line);
    if (bad >= 0) return;

    /* every atom in its own slot: H[c cap + l_i] = i, l_i < k_c */
    for (int i = 0; i < n && bad < 0; i++) {
        const int c = cell[i], l = layer[i];
        if (l < 0 || l >= count[c] || (int)slot[(size_t)c * cap + l] != i) bad = i;
    }
    if (bad >= 0) {
        const int c = cell[bad], l = layer[bad];
        snprintf(line, sizeof line, "cells %s: atom %d has layer %d of cell %d (count %d), whose slot holds %d", what, bad,
                 l, c, count[c], l >= 0 && l < cap ? (int)slot[(size_t)c * cap + l] : -1);
    } else
        snprintf(line, sizeof line, "cells %s: every atom in its own slot of its cell's row (%d-bit)", what,
                 (int)(8 * sizeof(Idx)));
    expect(bad < 0, line);
    if (bad >= 0) return;

    /* every cell's row: the host's atoms of the cell (in increasing order, cells_link's) */
    std::vector<int> row, want;
    for (int c = 0; c < nc && bad < 0; c++) {
        row.assign(slot.begin() + (size_t)c * cap, slot.begin() + (size_t)c * cap + count[c]);
        std::sort(row.begin(), row.end());
        want.clear();
        for (int i = head[c]; i >= 0; i = next[i]) want.push_back(i);
        if (row != want) bad = c;
    }
    if (bad >= 0)
        snprintf(line, sizeof line, "cells %s: the row of cell %d differs from the host's atoms of the cell", what, bad);
    else
        snprintf(line, sizeof line, "cells %s: each cell's row the host's atoms of the cell", what);
    expect(bad < 0, line);
}

static void test_cells(void)
{
    cells_case<int>("G 8, 4000 atoms", (real)11.7, 1.4, 4000, 11);
    cells_case<int>("G 3, 300 atoms", (real)5.0, 1.6, 300, 12);
    cells_case<unsigned short>("G 8, 4000 atoms, 16-bit rows", (real)11.7, 1.4, 4000, 13);
    cells_case<int>("G 7, 9000 atoms, L not a multiple of w", (real)10.3, 1.43, 9000, 14);
}
