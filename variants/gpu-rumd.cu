/* gpu-rumd - RUMD's GPU methods (Bailey et al., SciPost Phys. 2017) on nbrlab's GPU harness.
 *
 * Forces (the paper's Fig. 3): t_p threads per particle (--tp) in blocks of p_b particles
 * (--pb); thread k of particle i takes the neighbours k, k + t_p, ... of its list and the t_p
 * partial forces, energies and virials are summed with warp shuffles; t_p = 1 has its own
 * kernel without that sum, as the paper advises (both of the shared pair-force family,
 * kernels/cuda/pair_force.cuh, that gpu-layer runs too). --prefetch on loads the
 * next neighbour's index and position before the current pair is worked on; --read picks
 * the read path of positions (texture, ldg = the read-only cache, plain).
 * Neighbour list: W[m * N + i] (RUMD's column-major list: the m-th neighbours of consecutive
 * particles adjacent; nbrlab's "row" layout), holding every j within r_n = r_c + skin; its
 * capacity follows kernels/capacity.h (starts from the density's estimate, grows on overflow
 * and the build is redone, or a hard --max-nbr stops the run with one line), never truncated.
 * List methods (--list):
 *   none  no list: the force kernel visits all N - 1 others every step (tiny N);
 *   n2    Fig. 4: each block holds p_b particles, reads the system in tiles of p_b positions
 *         through shared memory, t_p threads per particle test a tile's entries, a shared
 *         atomic slot counter per particle places each neighbour found;
 *   sort  Fig. 5: cells of edge >= r_n / 2 (so 5 x 5 x 5 = 125 cells are searched), atoms
 *         sorted by cell and every particle array (r, v) rearranged to that order, each cell
 *         then two integers cellStart / cellEnd; one thread per particle.
 *   auto  RUMD's default: n2 below N = 8000, else sort (n2 where sort's 5 cells per axis do not fit).
 * The sort: with the host deciding rebuilds, cub::DeviceRadixSort on (cell, index) pairs, as
 * RUMD does with Thrust. With --decide device the device decides rebuilds (RUMD's
 * updateRequired): every rebuild kernel returns at once unless the control block says this
 * step rebuilds. A device-wide radix sort cannot be skipped from the device (RUMD itself asks
 * the host here, its section 7), so the device decision sorts by counting: an atomic slot per
 * atom in its cell, CUB's block scan for the cell starts, a scatter; every kernel gated.
 * Lists n2 and none sort the atoms the same way every --sort-every steps, at the next
 * rebuild (the paper's appendix: it still helps the data cache near the n2/sort crossover).
 * Atoms keep no fixed storage slot (as in gpu-layer's reordering): r and v move together, the
 * forces are recomputed after every sort, and --check compares per atom in the current order.
 * Charges (--system salt) ride in r.w, as in every GPU program, and move with every sort.
 * Everything else -- leapfrog, reductions, device decision and replay, CUDA graphs, timers,
 * download, pair enumeration -- is the shared GPU harness (kernels/cuda/). */
#include "../kernels/cuda/gpu_sim.cuh"
#include "../kernels/autotune.h"
#include "../kernels/cuda/pair_force.cuh"
#include "../kernels/cuda/cellsort.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One simulation per process: the variant's own state beside GpuSim. */
static struct {
    int method;               /* LIST_NONE / LIST_N2 / LIST_SORT, resolved */
    TpLayout lay;             /* force kernel and n2 build */
    CellGrid grid;            /* cells of edge >= r_n / 2 (sort) */
    int cell_bits;            /* key bits of the radix sort */
    CellSort sort;            /* keys, permutation, cellStart / cellEnd */
    int force_blocks;         /* blocks of p_b particles */
    int force_group;          /* force blocks per partial of the per-atom launch */
} R;

static const char *NAME = "gpu-rumd";

/* The kernels have internal linkage: other GPU programs' kernels may share their names. */
namespace {

/* ---- forces: the shared pair-force family (kernels/cuda/pair_force.cuh) ------------------ */

/* Blocks of p_b particles with t_p lanes each (t_p = 1: the paper's separate kernel without the
 * t_p sum), the row list or all pairs (--list none); the block sums land in the per-atom
 * launch's partials PART_UPOT / PART_VIRIAL, R.force_group force blocks to a partial. */
static void rumd_forces(Sim *s)
{
    GpuSim *g = gpu_of(s);
    PairForceArgs A = pair_force_args(s, g);
    A.lay = R.lay;
    A.group = R.force_group;
    A.force_blocks = R.force_blocks;
    const PairForceKind k = {s->p.read, WLAYOUT_ROW, s->pot.kind, R.lay.tp, 0, s->p.prefetch, R.method == LIST_NONE};
    pair_force_launch(A, k, R.force_blocks, R.lay.threads, g->stream);
}

/* ---- list build n2 (Fig. 4) -------------------------------------------------------------- */

template <int Mode>
__global__ void __launch_bounds__(1024) build_n2_kernel(TpLayout lay, PosSource pos, int n, real L, real rn2,
                                                        int *__restrict__ W, int *__restrict__ nbr_count, int nbr_cap,
                                                        BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;   /* device decision: no rebuild this step */
    extern __shared__ __align__(32) unsigned char shared_raw[];   /* real4 may be a 32-byte double4 */
    real4 *tile = (real4 *)shared_raw;            /* ppb positions */
    int *slots = (int *)(tile + lay.ppb);         /* ppb slot counters */
    int local, sub;
    bool idle;
    tp_place(lay, local, sub, idle);
    const int i = blockIdx.x * lay.ppb + local;
    const bool active = !idle && i < n;
    for (int k = threadIdx.x; k < lay.ppb; k += blockDim.x) slots[k] = 0;
    const real4 ri = active ? fetch_pos<Mode>(pos, i) : make_real4(0, 0, 0, 0);
    for (int base = 0; base < n; base += lay.ppb) {
        const int len = min(lay.ppb, n - base);
        __syncthreads();   /* the previous tile is no longer read (and the counters are zeroed) */
        for (int k = threadIdx.x; k < len; k += blockDim.x) tile[k] = fetch_pos<Mode>(pos, base + k);
        __syncthreads();
        if (active)
            for (int k = sub; k < len; k += lay.tp) {
                const int j = base + k;
                real dx, dy, dz;
                if (j != i && min_image_r2(ri, tile[k], L, dx, dy, dz) < rn2) {
                    const int m = atomicAdd(&slots[local], 1);
                    if (m < nbr_cap) W[w_index<WLAYOUT_ROW>(m, i, n, nbr_cap)] = j;
                }
            }
    }
    __syncthreads();
    const int m = active && sub == 0 ? slots[local] : 0;
    if (active && sub == 0) nbr_count[i] = m;
    record_nbr_stats(m, status);
}

/* ---- the sort by cell and the list build sort (Fig. 5) ----------------------------------- */

/* The 125 cells around particle i's (edge >= r_n / 2, so every j within r_n is in one of
 * them), each a range [cellStart, cellEnd) of the sorted particles; one thread per particle. */
template <int Mode>
__global__ void __launch_bounds__(1024) build_sort_kernel(PosSource pos, const int *__restrict__ start,
                                                          const int *__restrict__ end, CellGrid grid, int n, real rn2,
                                                          int *__restrict__ W, int *__restrict__ nbr_count,
                                                          int nbr_cap, BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = 0;
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        const int G = grid.G;
        const real L = grid.L;
        const int cx = cell_coord(ri.x, L, grid.inv_w, G), cy = cell_coord(ri.y, L, grid.inv_w, G),
                  cz = cell_coord(ri.z, L, grid.inv_w, G);
        int *w = W + w_index<WLAYOUT_ROW>(0, i, n, nbr_cap);
        walk_cells<2>(cx, cy, cz, G, L, ri, [&](int c, const real4 &rs) {
            const int j_end = end[c];
            for (int j = start[c]; j < j_end; j++)
                record_candidate(i, j, fetch_pos<Mode>(pos, j), rs, rn2, w, (size_t)n, m, nbr_cap);
        });
        nbr_count[i] = m;
    }
    record_nbr_stats(m, status);
}

/* The sort by cell, r and v rearranged (kernels/cuda/cellsort.cuh). gate NULL (host decision):
 * cub::DeviceRadixSort, then the cell bounds if asked; else every kernel gated (the counting
 * sort, bounds included). */
static void sort_atoms(Sim *s, GpuSim *g, const int *gate, int bounds)
{
    CellSort *cs = &R.sort;
    const int n = s->n, nc = R.grid.ncells, T = g->threads;
    if (!gate) {
        cellsort_keys(cs, PeriodicCells{R.grid}, g->r, n, T, g->stream);
        cellsort_radix(cs, n, R.cell_bits, g->stream);
        if (bounds) cellsort_bounds(cs, n, nc, T, g->stream);
    } else {
        cellsort_count(PeriodicCells{R.grid}, g->r, n, cs->key, cs->slot, cs->count, gate, T, g->stream);
        cellsort_scan(cs, cs->count, cs->start, cs->end, nc, gate, g->stream);   /* cellStart, cellEnd */
        cellsort_place(cs->key, cs->slot, cs->start, n, cs->perm, gate, T, g->stream);
    }
    cellsort_gather(cs->perm, n, cell_moves(g->r, g->r_alt, g->v, g->v_alt), gate, T, g->stream);
    cellsort_copy_back(cell_moves(g->r_alt, g->r, g->v_alt, g->v), n, gate ? cs->count : nullptr, nc, gate, gate, T,
                       g->stream);
    g->v_parts_valid = 0;
}

/* The list kernel of the method (none has none), gated or not. */
static void launch_list(Sim *s, GpuSim *g, const int *gate)
{
    const PosSource pos = gpu_pos(g);
    const real rn2 = s->rn * s->rn;
    dispatch_read_layout(s->p.read, WLAYOUT_ROW, [&](auto read, auto) {
        constexpr int M = decltype(read)::value;
        if (R.method == LIST_N2) {
            const size_t shared = (size_t)R.lay.ppb * (sizeof(real4) + sizeof(int));
            build_n2_kernel<M><<<R.force_blocks, R.lay.threads, shared, g->stream>>>(
                R.lay, pos, s->n, s->L, rn2, g->W, g->nbr_count, g->nbr_cap, g->status, gate);
        } else {
            build_sort_kernel<M><<<blocks_for(s->n, g->threads), g->threads, 0, g->stream>>>(
                pos, R.sort.start, R.sort.end, R.grid, s->n, rn2, g->W, g->nbr_count, g->nbr_cap, g->status, gate);
        }
    });
    LAUNCH_CHECK("rumd list kernel");
    s->stats.list_threads = R.method == LIST_N2 ? R.lay.threads : g->threads;
}

}  // namespace

/* ---- stages ------------------------------------------------------------------------------ */

/* The host decision's build: sort (method sort), list kernel, grow and redo on overflow. */
static void rumd_build(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (R.method == LIST_SORT) sort_atoms(s, g, nullptr, 1);
    if (R.method == LIST_NONE) {
        s->stats.nbr_entries = 0;
        g->built = 1;
        return;
    }
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        launch_list(s, g, nullptr);
        g->w_launches++;
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost,
                                   g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (!gpu_fit_nbr(s, g, g->status_host->nbr_max)) break;
    }
    s->stats.nbr_entries = (double)g->status_host->nbr_total;
    s->stats.bytes = g->bytes;
    g->built = 1;
}

/* The loop's reordering (every --sort-every steps, lists n2 and none): the sort by cell. */
static int rumd_reorder(Sim *s)
{
    if (R.method == LIST_SORT) return 0;   /* the build sorts anyway */
    sort_atoms(s, gpu_of(s), nullptr, 0);
    return 1;
}

/* The device decision: the sort (gated by this step's rebuild for the sort method, by the
 * reordering decision for n2 and none) and the list kernel, gated by the rebuild. */
static void rumd_rebuild_kernels(Sim *s, GpuSim *g)
{
    if (R.method == LIST_SORT) sort_atoms(s, g, &g->ctrl->due, 1);
    else if (s->p.reorder > 0) sort_atoms(s, g, &g->ctrl->reorder_now, 0);   /* reorder_now implies due */
    if (R.method != LIST_NONE) launch_list(s, g, &g->ctrl->due);
}

static void rumd_device_rebuild(Sim *s) { gpu_device_rebuild_with(s, rumd_rebuild_kernels); }

/* RUMD's defaults (the appendix): n2 below N = 8000, else sort; p_b 32, t_p 4 for N <= 10000,
 * else 64, 1. */
static void resolve_knobs(Sim *s)
{
    Params *p = &s->p;
    const long n = s->n;
    const double L = s->L, rn = s->rn;
    const int sort_fits = L >= 2.5 * rn;   /* 5 cells of edge >= r_n / 2 per axis */
    if (p->list_method == LIST_AUTO) p->list_method = n < 8000 || !sort_fits ? LIST_N2 : LIST_SORT;
    if (p->list_method == LIST_SORT && !sort_fits)
        nbr_fail(EXIT_INPUT, "%s: --list sort needs 5 cells of edge >= r_n/2 = %.4g per axis, but L = %.4g < 2.5 r_n: "
                             "use --list n2 or raise --ne", NAME, 0.5 * rn, L);
    if (p->pb == 0) p->pb = n <= 10000 ? 32 : 64;
    if (p->tp == 0) p->tp = n <= 10000 ? 4 : 1;
    R.method = p->list_method;
    /* the loop's reordering is the sort of lists n2 / none; the sort method sorts in its build */
    p->reorder = R.method == LIST_SORT ? 0 : p->sort_every;
    /* no layers here; the shared device decision checks these (it needs no host in a step) */
    p->layers = WHERE_DEVICE;
    p->reorder_at = WHERE_DEVICE;
}

static int rumd_init(Sim *s)
{
    resolve_knobs(s);
    /* gpu-layer's cell grid of edge r_n is not used here: none is made, so boxes under 3 r_n
     * (the smallest n2 / none systems) are fine */
    const int rc = gpu_init_opts(s, 0);
    GpuSim *g = gpu_of(s);

    R.lay = tp_layout(s->p.tp, s->p.pb, NAME);
    R.force_blocks = blocks_for(s->n, R.lay.ppb);
    if (R.lay.tp == 1) R.lay.threads = R.lay.ppb;   /* one thread per particle */
    /* the force blocks do not line up with the per-atom blocks whose partials the reductions
     * read: ceil(force blocks / partials) of them share one (pair_force.cuh) */
    R.force_group = (R.force_blocks + g->blocks - 1) / g->blocks;
    if (R.force_group > 1) pair_force_reserve(g, R.force_blocks, g->blocks);

    const int n = s->n;
    if (s->L >= 2.5 * s->rn) R.grid = cells_init(s->L, 0.5 * (double)s->rn, n, NAME);
    if (R.grid.G >= 5) {   /* the sort's cells (any method may sort; a dilute grid may have widened them) */
        R.cell_bits = cellsort_bits(R.grid.ncells);
        cellsort_reserve(&R.sort, g, n, R.grid.ncells, CELLSORT_RADIX | CELLSORT_COUNT | CELLSORT_START | CELLSORT_END,
                         R.cell_bits, g->stream);
        s->stats.cells_per_axis = R.grid.G;
    } else {
        if (R.method == LIST_SORT)
            nbr_fail(EXIT_INPUT, "%s: --list sort: the box holds fewer than 5 cells of edge >= r_n/2 per axis: use "
                                 "--list n2", NAME);
        s->p.reorder = 0;   /* no room for the sort's cells: lists n2 / none never sort */
        s->stats.cells_per_axis = 0;
    }
    /* no stored list to enumerate for --check / --verify-lists with --list none; set at every
     * init: the autotuner's trials run several methods in one process */
    ((Variant *)s->variant)->for_each_pair = R.method == LIST_NONE ? NULL : gpu_for_each_pair;
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    s->stats.bytes = g->bytes;
    if (!s->p.quiet)
        printf("# gpu-rumd: list %s, t_p %d, p_b %d (%d per block, %d threads), prefetch %s, sort every %d steps%s\n",
               list_names[R.method], R.lay.tp, s->p.pb, R.lay.ppb, R.lay.threads, onoff_names[s->p.prefetch],
               s->p.reorder, R.method == LIST_SORT ? " (every build)" : "");
    return rc;
}

static void rumd_finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g) {
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        cellsort_free(&R.sort, g);
    }
    memset(&R, 0, sizeof R);
    gpu_finish(s);
}

/* GB/s of the kernel-level timing: the list and the sort move their own bytes, not the H/W
 * build's (kernels/cuda/stage_bytes.cu) */
static double rumd_stage_bytes(Sim *s, Stage st)
{
    if (st == STAGE_LIST) return gpu_list_bytes(s, R.method, R.grid.ncells);
    if (st == STAGE_REORDER) return R.method == LIST_SORT ? 0 : gpu_sort_bytes(s->n, R.grid.ncells);
    return gpu_stage_bytes(s, st);
}

/* ---- --autotune: RUMD's phased search (kernels/autotune.c), each trial the harness's
 * in-process run from the stored start (common/tune.h) ---------------------------------------- */

static double rumd_trial(void *ctx, const TuneParams *tp, const char *phase)
{
    TuneValues v;
    snprintf(v[0], TUNE_VAL_LEN, "%s", list_names[tp->list]);
    snprintf(v[1], TUNE_VAL_LEN, "%.6g", tp->skin);
    snprintf(v[2], TUNE_VAL_LEN, "%d", tp->pb);
    snprintf(v[3], TUNE_VAL_LEN, "%d", tp->tp);
    snprintf(v[4], TUNE_VAL_LEN, "%d", tp->sort_every);
    return tune_trial((Tune *)ctx, v, phase);
}

static double rumd_clock(void *ctx) { return tune_elapsed((Tune *)ctx); }

static int rumd_search(Tune *T, TuneOutcome *out)
{
    Tuner tuner = {rumd_trial, T, tune_natoms(T), tune_budget(T), rumd_clock};
    TuneResult r;
    if (autotune_search(&tuner, &r) != 0) return 1;
    const TuneParams *b = &r.best;
    snprintf(out->best[0], TUNE_VAL_LEN, "%s", list_names[b->list]);
    snprintf(out->best[1], TUNE_VAL_LEN, "%.6g", b->skin);
    snprintf(out->best[2], TUNE_VAL_LEN, "%d", b->pb);
    snprintf(out->best[3], TUNE_VAL_LEN, "%d", b->tp);
    snprintf(out->best[4], TUNE_VAL_LEN, "%d", b->sort_every);
    out->best_s = r.best_s;
    out->start_s = r.baseline_s;
    out->trials = r.trials;
    out->budget_exhausted = r.budget_exhausted;
    return 0;
}

/* The knobs of RUMD's appendix, in the cache's order (list skin p_b t_p sort_every); the
 * domains are the search's own (kernels/autotune.c); the cache key as before (no program). */
static const TuneDecl tune = {5, {{"list", "none n2 sort", 0, 0, 0, NULL},
                                  {"delta", NULL, 0.05, 2.0, 0.05, NULL},
                                  {"pb", "16 32 48 64 96 128 192", 0, 0, 0, NULL},
                                  {"tp", NULL, 1, 64, 1, NULL},
                                  {"sort-every", "0 50 100 200 500 1000", 0, 0, 0, NULL}}, 0, rumd_search};

int main(int argc, char **argv)
{
    static Variant variant = gpu_variant("gpu-rumd",
        "RUMD 2017 (Bailey et al.): t_p threads per particle in blocks of p_b, neighbour lists none / n2 (shared-memory "
        "tiles) / sort (atoms sorted by cell, 125 cells), prefetch, rebuilds decided on the device",
        rumd_build, NBR_COMPILER);
    variant.knobs = KNOB_THREADS | KNOB_READ | KNOB_REDUCE | KNOB_TP | KNOB_LIST | KNOB_DECIDE | KNOB_GRAPH |
                    KNOB_DEVICE | KNOB_LISTMETHOD | KNOB_PB | KNOB_PREFETCH | KNOB_SORT;
    variant.init = rumd_init;
    variant.finish = rumd_finish;
    variant.forces = rumd_forces;
    variant.reorder = rumd_reorder;
    variant.device_rebuild = rumd_device_rebuild;
    variant.stage_bytes = rumd_stage_bytes;
    variant.knobs |= KNOB_AUTOTUNE;
    variant.tune = &tune;
    return nbr_main(argc, argv, &variant);
}
