/* gpu-rumd - RUMD's GPU methods (Bailey et al., SciPost Phys. 2017) on nbrlab's GPU harness.
 *
 * Forces (the paper's Fig. 3): t_p threads per particle (--tp) in blocks of p_b particles
 * (--pb); thread k of particle i takes the neighbours k, k + t_p, ... of its list and the t_p
 * partial forces, energies and virials are summed with warp shuffles (kernels/cuda/rumd.cuh);
 * t_p = 1 has its own kernel without that sum, as the paper advises. --prefetch on loads the
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
#include "../kernels/cuda/cellsort.cuh"
#include "../kernels/cuda/rumd.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* One simulation per process: the variant's own state beside GpuSim. */
static struct {
    int method;               /* LIST_NONE / LIST_N2 / LIST_SORT, resolved */
    TpLayout lay;             /* force kernel and n2 build */
    CellGrid grid;            /* cells of edge >= r_n / 2 (sort) */
    int cell_bits;            /* key bits of the radix sort */
    CellSort sort;            /* keys, permutation, cellStart / cellEnd */
    double *force_partial;    /* 2 x force blocks */
    unsigned *force_ticket;
    int force_blocks;
} R;

static const char *NAME = "gpu-rumd";

/* The kernels have internal linkage: other GPU programs' kernels may share their names. */
namespace {

/* ---- forces ------------------------------------------------------------------------------ */

/* Pair (i, j) into the running sums, if within r_c (minimum image); Kind: the potential
 * (charges ride in r.w, gpu_sim.cuh's pair_of_kind). */
template <int Kind>
__device__ __forceinline__ void add_pair(const real4 &ri, const real4 &rj, real L, const PairPotential &pot,
                                         ForceSum &acc)
{
    real dx, dy, dz;
    const real r2 = min_image_r2(ri, rj, L, dx, dy, dz);
    if (r2 < pot.rc2 && r2 > 0) {
        real fr;
        acc.u += pair_of_kind<Kind>(pot, r2, ri.w * rj.w, &fr);
        acc.fx += fr * dx; acc.fy += fr * dy; acc.fz += fr * dz;
        acc.w += fr * r2;
    }
}

/* The neighbours m = first, first + stride, ... < count of particle i from W, or with
 * AllPairs every j = first, first + stride, ... < n (j = i adds nothing: r2 = 0). Prefetch:
 * the next index and position are loaded before the current pair is worked on. */
template <int Kind, int Mode, bool Prefetch, bool AllPairs>
__device__ __forceinline__ void neighbour_loop(const PosSource &pos, const int *__restrict__ W, int i, int n,
                                               int count, int first, int stride, real L, const PairPotential &pot,
                                               const real4 &ri, ForceSum &acc)
{
    const int end = AllPairs ? n : count;
#define NBR_J(m) (AllPairs ? (m) : W[w_index<WLAYOUT_ROW>((m), i, n, 0)])
    if (Prefetch) {
        if (first >= end) return;
        int j = NBR_J(first);
        real4 rj = fetch_pos<Mode>(pos, j);
        for (int m = first; m < end; m += stride) {
            const int next = m + stride < end ? NBR_J(m + stride) : j;
            const real4 rn = fetch_pos<Mode>(pos, next);
            add_pair<Kind>(ri, rj, L, pot, acc);
            rj = rn;
        }
    } else {
#pragma unroll 4
        for (int m = first; m < end; m += stride) add_pair<Kind>(ri, fetch_pos<Mode>(pos, NBR_J(m)), L, pot, acc);
    }
#undef NBR_J
}

/* t_p = 1 (the paper's separate kernel): one thread per particle, blocks of p_b. */
template <int Kind, int Mode, bool Prefetch, bool AllPairs>
__global__ void __launch_bounds__(1024) force_tp1_kernel(PosSource pos, const int *__restrict__ W,
                                                         const int *__restrict__ nbr_count, int n, int nbr_cap, real L,
                                                         PairPotential pot, real4 *a, real *u, double *partial,
                                                         unsigned *ticket, double *upot, double *virial)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    ForceSum acc = {0, 0, 0, 0, 0};
    if (i < n) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        const int count = AllPairs ? 0 : min(nbr_count[i], nbr_cap);
        neighbour_loop<Kind, Mode, Prefetch, AllPairs>(pos, W, i, n, count, 0, 1, L, pot, ri, acc);
        a[i] = make_real4(acc.fx, acc.fy, acc.fz, 0);
        u[i] = (real)0.5 * acc.u;
    }
    const double ub = block_reduce((double)((real)0.5 * acc.u), SumOp(), 0.0);
    const double wb = block_reduce((double)((real)0.5 * acc.w), SumOp(), 0.0);
    finish_force_sums(ub, wb, partial, ticket, upot, virial);
}

/* t_p threads per particle (Fig. 3). */
template <int Kind, int Mode, bool Prefetch, bool AllPairs>
__global__ void __launch_bounds__(1024) force_tp_kernel(TpLayout lay, PosSource pos, const int *__restrict__ W,
                                                        const int *__restrict__ nbr_count, int n, int nbr_cap, real L,
                                                        PairPotential pot, real4 *a, real *u, double *partial,
                                                        unsigned *ticket, double *upot, double *virial)
{
    int local, sub;
    bool idle;
    tp_place(lay, local, sub, idle);
    const int i = blockIdx.x * lay.ppb + local;
    const bool active = !idle && i < n;
    ForceSum acc = {0, 0, 0, 0, 0};
    if (active) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        const int count = AllPairs ? 0 : min(nbr_count[i], nbr_cap);
        neighbour_loop<Kind, Mode, Prefetch, AllPairs>(pos, W, i, n, count, sub, lay.tp, L, pot, ri, acc);
    }
    acc = group_sum(acc, lay, sub);
    const bool writer = active && sub == 0;
    if (writer) {
        a[i] = make_real4(acc.fx, acc.fy, acc.fz, 0);
        u[i] = (real)0.5 * acc.u;
    }
    const double ub = block_reduce(writer ? (double)((real)0.5 * acc.u) : 0.0, SumOp(), 0.0);
    const double wb = block_reduce(writer ? (double)((real)0.5 * acc.w) : 0.0, SumOp(), 0.0);
    finish_force_sums(ub, wb, partial, ticket, upot, virial);
}

/* U and W go to the first partial of PART_UPOT / PART_VIRIAL, whose other partials stay at
 * the zeros gpu_init left (only this kernel writes them), so the shared final reductions
 * (host or device) add the right totals. */
static void rumd_forces(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const PosSource pos = gpu_pos(g);
    const int all = R.method == LIST_NONE;
    double *upot = g->parts + PART_UPOT * g->blocks, *virial = g->parts + PART_VIRIAL * g->blocks;
    dispatch_potential(s->pot.kind, [&](auto kind) {
    dispatch_read_prefetch(s->p.read, s->p.prefetch, [&](auto read, auto pre) {
        constexpr int K = decltype(kind)::value;
        constexpr int M = decltype(read)::value;
        constexpr bool P = decltype(pre)::value;
        if (R.lay.tp == 1) {
            if (all)
                force_tp1_kernel<K, M, P, true><<<R.force_blocks, R.lay.threads, 0, g->stream>>>(
                    pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot, g->a, g->u, R.force_partial,
                    R.force_ticket, upot, virial);
            else
                force_tp1_kernel<K, M, P, false><<<R.force_blocks, R.lay.threads, 0, g->stream>>>(
                    pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot, g->a, g->u, R.force_partial,
                    R.force_ticket, upot, virial);
        } else {
            if (all)
                force_tp_kernel<K, M, P, true><<<R.force_blocks, R.lay.threads, 0, g->stream>>>(
                    R.lay, pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot, g->a, g->u, R.force_partial,
                    R.force_ticket, upot, virial);
            else
                force_tp_kernel<K, M, P, false><<<R.force_blocks, R.lay.threads, 0, g->stream>>>(
                    R.lay, pos, g->W, g->nbr_count, s->n, g->nbr_cap, s->L, s->pot, g->a, g->u, R.force_partial,
                    R.force_ticket, upot, virial);
        }
    });
    });
    LAUNCH_CHECK("rumd force kernel");
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
    R.force_partial = (double *)gpu_alloc(g, sizeof(double) * 2 * R.force_blocks, "force partial sums");
    R.force_ticket = (unsigned *)gpu_alloc(g, sizeof(unsigned), "force block counter");
    CUDA_CHECK(cudaMemsetAsync(R.force_ticket, 0, sizeof(unsigned), g->stream));

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
    /* no stored list to enumerate for --check / --verify-lists with --list none */
    if (R.method == LIST_NONE) ((Variant *)s->variant)->for_each_pair = NULL;
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
        void *dev[] = {R.force_partial, R.force_ticket};
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        cellsort_free(&R.sort, g);
        for (void *p : dev)
            if (p) CUDA_CHECK(cudaFree(p));
    }
    memset(&R, 0, sizeof R);
    gpu_finish(s);
}

/* ---- --autotune: the search of kernels/autotune.c, each trial a short run of this program --- */

/* Flags without a value (everything else in the option table takes one). */
static int flag_without_value(const char *a)
{
    static const char *const bare[] = {"--check", "--verify-lists", "--quiet", "--print-config", "--allow-dirty",
                                       "--autotune", NULL};
    for (int k = 0; bare[k]; k++)
        if (strcmp(a, bare[k]) == 0) return 1;
    return 0;
}

/* argv without the flags a trial or the final run must not inherit (name -> dropped). */
static int keep_args(int argc, char **argv, const char *const *drop, char **out)
{
    int m = 0;
    out[m++] = argv[0];
    for (int k = 1; k < argc; k++) {
        int dropped = 0;
        for (int d = 0; drop[d]; d++) dropped |= strcmp(argv[k], drop[d]) == 0;
        const int valued = !flag_without_value(argv[k]) && k + 1 < argc;
        if (!dropped) {
            out[m++] = argv[k];
            if (valued) out[m++] = argv[k + 1];
        }
        if (valued) k++;
    }
    return m;
}

struct TrialRun {
    int argc;
    char **argv;              /* the user's flags, less those a trial sets itself */
    const char *csv;          /* the user's --csv: every trial a row there (tag autotune-<phase>) */
    long n;
    int timed, equil;
    struct timespec t0;
};

static double since(const struct timespec *t0)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)(t.tv_sec - t0->tv_sec) + 1e-9 * (double)(t.tv_nsec - t0->tv_nsec);
}
static double trial_clock(void *ctx) { return since(&((TrialRun *)ctx)->t0); }

/* text in single quotes for the shell */
static void shell_word(char *cmd, size_t len, const char *w)
{
    strncat(cmd, " '", len - strlen(cmd) - 1);
    for (const char *c = w; *c; c++) {
        const char one[2] = {*c, 0};
        strncat(cmd, *c == '\'' ? "'\\''" : one, len - strlen(cmd) - 1);
    }
    strncat(cmd, "'", len - strlen(cmd) - 1);
}

/* One trial: this program, the same start (same flags and seed), a short run whose warm-up
 * is plain NVE (no rescaling), the trial's knobs last; seconds per step from its summary. */
static double run_trial(void *ctx, const TuneParams *tp, const char *phase)
{
    TrialRun *T = (TrialRun *)ctx;
    static char cmd[16384];
    char knobs[512];
    cmd[0] = '\0';
    for (int k = 0; k < T->argc; k++) shell_word(cmd, sizeof cmd, T->argv[k]);
    snprintf(knobs, sizeof knobs, "--list %s --delta %.6g --pb %d --tp %d --sort-every %d --steps %d --equil %d "
             "--rescale-every 1000000000 --avg-block %d --stage-reps 0 --quiet",
             list_names[tp->list], tp->skin, tp->pb, tp->tp, tp->sort_every, T->equil + T->timed, T->equil,
             T->timed / 4);
    for (char *w = strtok(knobs, " "); w; w = strtok(NULL, " ")) shell_word(cmd, sizeof cmd, w);
    if (T->csv[0]) {
        char tag[64];
        snprintf(tag, sizeof tag, "autotune-%s", phase);
        shell_word(cmd, sizeof cmd, "--csv");
        shell_word(cmd, sizeof cmd, T->csv);
        shell_word(cmd, sizeof cmd, "--tag");
        shell_word(cmd, sizeof cmd, tag);
    }
    strncat(cmd, " 2>&1", sizeof cmd - strlen(cmd) - 1);
    fflush(stdout);
    FILE *f = popen(cmd, "r");
    if (!f) return -1;
    char line[1024], last[1024] = "";
    double us = -1;
    while (fgets(line, sizeof line, f)) {
        snprintf(last, sizeof last, "%s", line);
        char *at = strstr(line, " us/atom-step");
        if (at && us < 0) {   /* "...: X us/atom-step (median ...)" */
            char *start = at;
            while (start > line && start[-1] != ' ') start--;
            us = atof(start);
        }
    }
    const int rc = pclose(f);
    /* a trial that cannot run here (no GPU: its preflight's exit 6) stops the tuning with the
     * trial's one line, before anything is printed (the trials are argv[0]: a test's stand-in
     * tunes without a GPU) */
    if (WIFEXITED(rc) && WEXITSTATUS(rc) == EXIT_NO_DEVICE) {
        last[strcspn(last, "\n")] = '\0';
        nbr_fail(EXIT_NO_DEVICE, "%s", last);
    }
    const double sec = rc == 0 && us > 0 ? us * 1e-6 * (double)T->n : -1;
    printf("# autotune %-13s list %-4s skin %.3f p_b %3d t_p %2d sort %4d: ", phase, list_names[tp->list], tp->skin,
           tp->pb, tp->tp, tp->sort_every);
    if (sec > 0) printf("%.3f us/step\n", sec * 1e6);
    else printf("failed (exit %d): %s", rc, last[0] ? last : "no output\n");
    return sec;
}

/* The cache: one line per key, "key|list skin pb tp sort_every seconds". */
static void cache_key(const Params *p, long n, char *key, size_t len)
{
    cudaDeviceProp prop;
    int ndev = 0;
    const int have = cudaGetDeviceCount(&ndev) == cudaSuccess && p->device < ndev &&
                     cudaGetDeviceProperties(&prop, p->device) == cudaSuccess;
    snprintf(key, len, "gpu=%s;precision=%s;n=%ld;rho=%.8g;T=%.8g;potential=%s rc=%.8g shift=%.8g;dt=%.8g",
             have ? prop.name : "none", NBR_PRECISION, n, p->rho, p->temp, potential_names[p->potential], p->rc,
             p->shift, p->dt);
    for (char *c = key; *c; c++)
        if (*c == '|' || *c == '\n') *c = ';';
}

static int cache_lookup(const char *file, const char *key, TuneParams *tp, double *sec)
{
    FILE *f = file[0] ? fopen(file, "r") : NULL;
    if (!f) return 0;
    char line[2048], list[16];
    int found = 0;
    const size_t kl = strlen(key);
    while (fgets(line, sizeof line, f))
        if (strncmp(line, key, kl) == 0 && line[kl] == '|' &&
            sscanf(line + kl + 1, "%15s %lf %d %d %d %lf", list, &tp->skin, &tp->pb, &tp->tp, &tp->sort_every, sec) ==
                6)
            for (int k = 0; list_names[k]; k++)
                if (strcmp(list, list_names[k]) == 0) { tp->list = k; found = 1; }   /* the last line of a key wins */
    fclose(f);
    return found;
}

static void cache_store(const char *file, const char *key, const TuneParams *tp, double sec)
{
    if (!file[0]) return;
    FILE *f = fopen(file, "a");
    if (!f) nbr_fail(EXIT_INPUT, "%s: --autotune-cache %s: cannot append to it", NAME, file);
    fprintf(f, "%s|%s %.6g %d %d %d %.6g\n", key, list_names[tp->list], tp->skin, tp->pb, tp->tp, tp->sort_every, sec);
    fclose(f);
}

/* --autotune: the tuned parameters (cache or search), then the run with them appended. */
static int autotuned_main(int argc, char **argv, const Params *p, const Variant *variant)
{
    const long n = params_natoms(p);
    char key[1024];
    cache_key(p, n, key, sizeof key);
    TuneParams best;
    double best_s = 0;
    if (cache_lookup(p->autotune_cache, key, &best, &best_s)) {
        printf("# autotune: from %s: list %s skin %.3f p_b %d t_p %d sort every %d (%.3f us/step when tuned)\n",
               p->autotune_cache, list_names[best.list], best.skin, best.pb, best.tp, best.sort_every, best_s * 1e6);
    } else {
        static const char *const trial_drop[] = {"--autotune", "--autotune-budget", "--autotune-cache", "--csv",
                                                 "--tag", "--blocks-csv", "--check", "--verify-lists", "--print-config",
                                                 NULL};
        char **targv = (char **)nbr_alloc(sizeof(char *) * (argc + 1), "arguments");
        TrialRun T = {};
        T.argc = keep_args(argc, argv, trial_drop, targv);
        T.argv = targv;
        T.csv = p->csv;
        T.n = n;
        T.timed = (int)fmax(500, fmin(3000, 2e8 / (double)n));
        T.equil = 200;
        clock_gettime(CLOCK_MONOTONIC, &T.t0);
        Tuner tuner = {run_trial, &T, n, p->autotune_budget, trial_clock};
        TuneParams warm = autotune_defaults(n);
        run_trial(&T, &warm, "warmup");   /* the appendix: a first run to warm up, not compared */
        TuneResult r;
        if (autotune_search(&tuner, &r) != 0)
            nbr_fail(EXIT_INTERNAL, "%s: --autotune: the baseline trial with RUMD's defaults did not run (see above)",
                     NAME);
        best = r.best;
        best_s = r.best_s;
        printf("# autotune: %d trials in %.1f s%s: list %s skin %.3f p_b %d t_p %d sort every %d, %.3f us/step "
               "(baseline %.3f)\n", r.trials, since(&T.t0), r.budget_exhausted ? " (budget used up: best so far)" : "",
               list_names[best.list], best.skin, best.pb, best.tp, best.sort_every, best_s * 1e6, r.baseline_s * 1e6);
        if (!r.budget_exhausted) cache_store(p->autotune_cache, key, &best, best_s);
        free(targv);
    }
    static const char *const final_drop[] = {"--autotune", "--autotune-budget", "--autotune-cache", NULL};
    char **fargv = (char **)nbr_alloc(sizeof(char *) * (argc + 12), "arguments");
    int m = keep_args(argc, argv, final_drop, fargv);
    static char v_list[16], v_skin[32], v_pb[16], v_tp[16], v_sort[16];
    snprintf(v_list, sizeof v_list, "%s", list_names[best.list]);
    snprintf(v_skin, sizeof v_skin, "%.6g", best.skin);
    snprintf(v_pb, sizeof v_pb, "%d", best.pb);
    snprintf(v_tp, sizeof v_tp, "%d", best.tp);
    snprintf(v_sort, sizeof v_sort, "%d", best.sort_every);
    char *extra[] = {(char *)"--list", v_list, (char *)"--delta", v_skin, (char *)"--pb", v_pb, (char *)"--tp", v_tp,
                     (char *)"--sort-every", v_sort};
    for (char *e : extra) fargv[m++] = e;
    fargv[m] = NULL;
    return nbr_main(m, fargv, variant);
}

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
    variant.knobs |= KNOB_AUTOTUNE;
    Params p;
    params_parse(&p, argc, argv, variant.knobs, variant.name, variant.summary);   /* --help, bad flags: here */
    if (p.autotune && !p.print_config) return autotuned_main(argc, argv, &p, &variant);
    return nbr_main(argc, argv, &variant);
}
