/* comp_scan.cuh - group "scan" of test-components: the gated scan of per-cell counts
 * (kernels/cuda/cell_scan.cuh, the counting sort's middle step) against the host's exclusive
 * scan, exactly: start and end of every cell, by both ways (one block walking the tiles, three
 * launches), gated on and ungated; and with the gate off nothing written, which is what lets a
 * graph hold the scan on every step. Sizes on both sides of each way's limit in tiles. */

/* One case: ncells random counts (0-9), start and end (where with_end) prefilled with -7. */
static void scan_case(int ncells, int gate_value, bool gated, bool with_end, uint64_t seed)
{
    char line[300];
    Rng g = {seed};
    std::vector<int> count(ncells), want_start(ncells), want_end(ncells);
    for (int c = 0, run = 0; c < ncells; c++) {
        count[c] = (int)(g.next() % 10);
        want_start[c] = run;
        run += count[c];
        want_end[c] = run;
    }
    const size_t room = cell_scan_tiles((size_t)ncells);
    const bool wide = cell_scan_wide((size_t)ncells, room, gated);
    int *d_count = to_device(count), *d_start = to_device(std::vector<int>(ncells, -7));
    int *d_end = with_end ? to_device(std::vector<int>(ncells, -7)) : nullptr;
    int *d_tiles = to_device(std::vector<int>(room, -7)), *d_gate = to_device(std::vector<int>(1, gate_value));
    cell_scan_gated(d_count, d_start, d_end, ncells, d_tiles, room, gated ? d_gate : nullptr, 0);
    const std::vector<int> start = from_device(d_start, ncells, "cell_scan_gated");
    const std::vector<int> end = with_end ? from_device(d_end, ncells, "cell_scan_gated") : std::vector<int>();
    cudaFree(d_count); cudaFree(d_start); cudaFree(d_end); cudaFree(d_tiles); cudaFree(d_gate);

    const bool runs = !gated || gate_value;
    int bad = -1;
    for (int c = 0; c < ncells && bad < 0; c++) {
        const int s0 = runs ? want_start[c] : -7, e0 = runs ? want_end[c] : -7;
        if (start[c] != s0 || (with_end && end[c] != e0)) bad = c;
    }
    const char *how = wide ? "three launches" : "one block";
    if (bad >= 0)
        snprintf(line, sizeof line, "scan %d cells (%zu tiles, %s, %s%s): cell %d start %d end %d, want %d and %d",
                 ncells, room, how, gated ? (gate_value ? "gate on" : "gate off") : "ungated", with_end ? ", end" : "",
                 bad, start[bad], with_end ? end[bad] : -7, runs ? want_start[bad] : -7, runs ? want_end[bad] : -7);
    else
        snprintf(line, sizeof line, "scan %d cells (%zu tiles, %s, %s%s): %s", ncells, room, how,
                 gated ? (gate_value ? "gate on" : "gate off") : "ungated", with_end ? ", end" : "",
                 runs ? "every start and end the host's" : "nothing written");
    expect(bad < 0, line);
}

static void test_scan(void)
{
    const int limit_ungated = CELL_SCAN_WIDE_TILES * CELL_SCAN_THREADS,
              limit_gated = CELL_SCAN_WIDE_TILES_GATED * CELL_SCAN_THREADS;
    const int sizes[] = {1, 1000, limit_ungated, limit_ungated + 1, limit_gated, limit_gated + 1, 3 * limit_gated + 17};
    uint64_t seed = 31;
    for (int n : sizes) {
        scan_case(n, 1, true, true, seed++);
        scan_case(n, 1, false, true, seed++);
        scan_case(n, 0, true, true, seed++);
    }
    scan_case(limit_gated + 1, 1, true, false, seed++);   /* start only */
    scan_case(1000, 1, true, false, seed++);
}
