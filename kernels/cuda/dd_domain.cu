/* dd_domain.cu - one domain of gpu-dd on its GPU: the local and ghost atoms, migration,
 * the ghost pulses, cells and the neighbour matrix over local + ghost atoms (dd.cuh says
 * how the pieces fit). Sorting, compaction and scans are CUB's.
 *
 * The list build differs from the single-GPU one (cells.cu, gpu-layer) only in its grid:
 * the cells cover the domain plus r_n on every side and are not periodic (the ghosts are
 * the periodic images), gc[a] = floor(extent / r_n) per axis, so a local atom's neighbours
 * within r_n lie in the 27 cells around its own, clamped at the grid's edges. The cell
 * contents are a counting sort (atomic slot per atom, exclusive scan of the counts, scatter).
 * The force kernel, the leapfrog and the reductions are the shared ones, run on the domain
 * (dom.n = the local atoms). */
#include "dd.cuh"
extern "C" {
#include "../../common/core.h"   /* wall_seconds */
}

#include <cub/cub.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The kernels and their helpers have internal linkage: every GPU program links every shared
 * kernel file, and names like classify_kernel could recur. */
namespace {

/* One atom as it travels in a gather (check, download). */
struct DdAtom {
    int id;
    real r[3], v[3], a[3], u;
};

__host__ __device__ __forceinline__ real axis_of(const real4 &r, int axis) { return axis == 0 ? r.x : (axis == 1 ? r.y : r.z); }

/* The global id rides in v.w (the charge in r.w, as in every GPU program), which nothing
 * computes with (kicks, drifts and rescaling touch x, y, z; packs, sorts and exchanges copy the
 * whole real4): in double as its value, in float as the int's bits, since a float value is exact
 * only to 2^24 (16.8M atoms, short of the 64M of the 4- and 8-GPU runs). Ids below 2^23 are then
 * denormal bit patterns, moved but never computed with, so never flushed; the id checksum at
 * every rebuild and --check's gather by id would see one that changed. */
template <class To, class From>
__host__ __device__ __forceinline__ To id_cast(From x)
{
    if constexpr (sizeof(real) == sizeof(int)) {   /* float: the bits */
        To y;
        memcpy(&y, &x, sizeof y);
        return y;
    } else {
        return (To)x;
    }
}
__host__ __device__ __forceinline__ real id_to_w(int id) { return id_cast<real>(id); }
__host__ __device__ __forceinline__ int w_to_id(real w) { return id_cast<int>(w); }

__device__ __forceinline__ int atom_id(const real4 &v) { return w_to_id(v.w); }

/* splitmix64's finaliser: ids mixed before summing, so a lost atom and a duplicated one
 * cannot cancel in the sum the way plain ids could. */
__host__ __device__ __forceinline__ unsigned long long mix_id(unsigned long long x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}
/* The domain index along an axis that owns coordinate x (wrapped into [-L/2, L/2)). */
__host__ __device__ __forceinline__ int owner_coord(real x, real L, int p)
{
    int c = (int)((x + (real)0.5 * L) * ((real)p / L));
    return c < 0 ? 0 : (c >= p ? p - 1 : c);
}

/* ---- migration ---------------------------------------------------------------------- */

/* counters[key] += the block's threads with that key (key < 0: none): counted in shared memory,
 * then one global atomic per key and block, instead of one global atomic per atom on two or
 * three addresses (the suspect when the migration took 3.3 ms per rebuild at SP 8M on 2 GPUs,
 * NBR_DD_PROFILE at 0c39b75; not yet re-measured). Every thread of the block must call it. */
template <int NKEYS> __device__ void block_count(int key, int *counters)
{
    __shared__ int local[NKEYS];
    if (threadIdx.x < NKEYS) local[threadIdx.x] = 0;
    __syncthreads();
    if (key >= 0) atomicAdd(&local[key], 1);
    __syncthreads();
    if (threadIdx.x < NKEYS && local[threadIdx.x]) atomicAdd(&counters[threadIdx.x], local[threadIdx.x]);
}

/* key 0: stays; 1: to the lower neighbour; 2: to the upper one (with two domains along the
 * axis both are the same rank: key 1). counters[3] counts atoms that jumped further. */
__global__ void classify_kernel(const real4 *r, int n, int axis, real L, int p, int mine, int *keys, int *perm,
                                int *counters)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int key = -1;
    if (i < n) {
        const int c = owner_coord(axis_of(r[i], axis), L, p);
        key = 0;
        if (c != mine) {
            const int down = (mine - 1 + p) % p, up = (mine + 1) % p;
            key = c == down ? 1 : (c == up ? 2 : 3);
            if (key == 3) atomicAdd(&counters[3], 1);
            if (p == 2) key = 1;
            if (key == 3) key = 1;   /* reported; sent somewhere so nothing is lost silently */
        }
        keys[i] = key;
        perm[i] = i;
    }
    block_count<3>(key, counters);
}

__global__ void id_hash_kernel(const real4 *v, int n, unsigned long long *hash)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned long long h = i < n ? mix_id((unsigned long long)atom_id(v[i])) : 0ull;
    h = block_reduce(h, SumOp(), 0ull);
    if (threadIdx.x == 0) atomicAdd(hash, h);
}

/* ---- ghosts ------------------------------------------------------------------------- */

/* Candidates of an axis's pulses near the faces they send across (a margin of rounding added:
 * an extra ghost costs nothing, a missing one loses a pair): the down pulse's into down, and
 * where up is given the up pulse's, from one read of the positions. */
__global__ void face_flags_kernel(const real4 *r, int n, int axis, real lo_face, real hi_face, real reach, int *down,
                                  int *up)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const real x = axis_of(r[i], axis);
    down[i] = x < lo_face + reach;
    if (up) up[i] = x >= hi_face - reach;
}

__global__ void pack_kernel(const real4 *r, const int *idx, int n, int axis, real shift, real4 *out,
                            unsigned long long *signal, const int *gate)
{
    if (gate && *gate) return;   /* --decide device, the device stopped: so are the receivers' waits */
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = dd_halo_atom(r, idx, k, axis, shift);
    if (signal) {   /* p2p: the block's writes reach the peer before its count does */
        __threadfence_system();
        __syncthreads();
        if (threadIdx.x == 0) atomicAdd_system(signal, 1ull);
    }
}

/* --dd-newton on: a ghost's zone, the axes along which it came from an upper neighbour (bit a),
 * rides in r_alt[i].x while the ghosts are gathered: the sender's zone, then this pulse's bit. */
__global__ void zone_bit_kernel(real4 *zone, int n, int bit)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) zone[i].x = (real)((int)zone[i].x | bit);
}

__global__ void zone_int_kernel(const real4 *zone, int n, int *out)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (int)zone[i].x;
}

/* The force halo: a ghost's force and energy out (a.xyz, u in w), and what comes back added to
 * the atoms a pulse sent (distinct atoms: no atomics). */
__global__ void force_pack_kernel(const real4 *a, const real *u, int n, real4 *out, const int *gate)
{
    if (gate && *gate) return;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k < n) out[k] = make_real4(a[k].x, a[k].y, a[k].z, u[k]);
}

__global__ void force_add_kernel(const int *idx, int n, const real4 *src, const real *src_u, real4 *a, real *u,
                                 const int *gate)
{
    if (gate && *gate) return;
    const int k = blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    const int i = idx[k];
    const real4 f = src[k];
    real4 ai = a[i];
    ai.x += f.x; ai.y += f.y; ai.z += f.z;
    a[i] = ai;
    u[i] += src_u ? src_u[k] : f.w;
}

__global__ void signal_kernel(unsigned long long *signal, const int *gate)
{
    if (gate && *gate) return;
    __threadfence_system();
    atomicAdd_system(signal, 1ull);
}

/* key 0: inner (at least `reach` inside every face between domains), 1: border. */
struct DdFaces {
    real lo[3], hi[3], reach;
    int split[3];
};

__global__ void border_kernel(const real4 *r, int n, DdFaces f, int *keys, int *perm, int *counters)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int key = -1;
    if (i < n) {
        key = 0;
        for (int a = 0; a < 3; a++) {
            const real x = axis_of(r[i], a);
            if (f.split[a] && (x < f.lo[a] + f.reach || x >= f.hi[a] - f.reach)) key = 1;
        }
        keys[i] = key;
        perm[i] = i;
    }
    block_count<2>(key, counters);
}

/* ---- cells and W -------------------------------------------------------------------- */

struct DdGrid {
    int gc[3];
    real lo[3], inv_w[3];
};

__device__ __forceinline__ int grid_coord(real x, real lo, real inv_w, int g)
{
    int c = (int)((x - lo) * inv_w);
    return c < 0 ? 0 : (c >= g ? g - 1 : c);
}

__device__ __forceinline__ int dd_cell_of(const real4 &ri, const DdGrid &grid)
{
    return (grid_coord(ri.z, grid.lo[2], grid.inv_w[2], grid.gc[2]) * grid.gc[1] +
            grid_coord(ri.y, grid.lo[1], grid.inv_w[1], grid.gc[1])) * grid.gc[0] +
           grid_coord(ri.x, grid.lo[0], grid.inv_w[0], grid.gc[0]);
}

/* The cell of an atom for the cell sort (cellsort.cuh): the list's cells and --reorder's key. */
struct DdCells {
    DdGrid grid;
    __device__ __forceinline__ int operator()(const real4 &r) const { return dd_cell_of(r, grid); }
};

/* One thread per row (a local atom; with --dd-newton on, a ghost too): every atom (local or
 * ghost) of the 27 cells around its own within r_n goes into W (record_candidate, shared with
 * the single-GPU builds), with --dd-newton on only those whose zone shares no axis with the
 * row's. The grid has no periodic wrap (the ghosts are the images), so the three cells of a row
 * along x are one run of cell_atoms (cell_start is the exclusive scan of the counts): nine runs,
 * read four candidates at a time with their positions fetched before any is tested, as
 * gpu-layer reads H, so a thread has several loads in flight instead of one dependent chain per
 * candidate (the list phase 16% shorter at SP 8M and LJ 4M on one rank, H200 at 39b2e8e beside
 * ed61b1b). The candidates and their order are those of the 27-cell walk. It is not
 * walk_cells (gpu_sim.cuh): that walk is periodic (it wraps and shifts at the faces) and visits
 * one cell at a time; this grid is clamped at its edges and its rows are read as runs. */
template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) dd_build_w_kernel(PosSource pos, const int *__restrict__ cell_of,
                                                          const int *__restrict__ cell_start,
                                                          const int *__restrict__ cell_count,
                                                          const int *__restrict__ cell_atoms, DdGrid grid,
                                                          int n_rows, int nbr_cap, real rn2, int *__restrict__ W,
                                                          int *__restrict__ nbr_count, BuildStatus *status,
                                                          const int *__restrict__ zone)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    int m = 0;
    if (i < n_rows) {
        const real4 ri = fetch_pos<Mode>(pos, i);
        const int zi = zone ? zone[i] : 0;
        int *w = W + w_index<Layout>(0, i, n_rows, nbr_cap);
        const size_t w_step = w_index<Layout>(1, i, n_rows, nbr_cap) - w_index<Layout>(0, i, n_rows, nbr_cap);
        /* --dd-newton on: a pair of two ghosts that both came from above along an axis is the
         * upper domain's (the eighth-shell rule: each pair on one domain) */
        auto consider = [&](int j, const real4 &rj) {
            if (!(zi & (zone ? zone[j] : 0))) record_candidate(i, j, rj, ri, rn2, w, w_step, m, nbr_cap);
        };
        const int c = cell_of[i], cx = c % grid.gc[0], cy = c / grid.gc[0] % grid.gc[1], cz = c / (grid.gc[0] * grid.gc[1]);
        const int x0 = max(cx - 1, 0), x1 = min(cx + 1, grid.gc[0] - 1);
        for (int z = max(cz - 1, 0); z <= min(cz + 1, grid.gc[2] - 1); z++)
            for (int y = max(cy - 1, 0); y <= min(cy + 1, grid.gc[1] - 1); y++) {
                const int row = (z * grid.gc[1] + y) * grid.gc[0];
                const int end = cell_start[row + x1] + cell_count[row + x1];
                int k = cell_start[row + x0];
                for (; k + 3 < end; k += 4) {
                    const int j0 = cell_atoms[k], j1 = cell_atoms[k + 1], j2 = cell_atoms[k + 2], j3 = cell_atoms[k + 3];
                    const real4 r0 = fetch_pos<Mode>(pos, j0), r1 = fetch_pos<Mode>(pos, j1),
                                r2 = fetch_pos<Mode>(pos, j2), r3 = fetch_pos<Mode>(pos, j3);
                    consider(j0, r0);
                    consider(j1, r1);
                    consider(j2, r2);
                    consider(j3, r3);
                }
                for (; k < end; k++) {
                    const int j = cell_atoms[k];
                    consider(j, fetch_pos<Mode>(pos, j));
                }
            }
        nbr_count[i] = m;
    }
    record_nbr_stats(m, status);
}

}   // namespace

unsigned long long dd_mix_id(unsigned long long id) { return mix_id(id); }

/* ---- storage ------------------------------------------------------------------------ */

static size_t cub_need(Dd *d, int n)
{
    size_t b = 0;   /* the selections' (the sorts and the scan have the cell sort's own) */
    CUDA_CHECK(cub::DeviceSelect::Flagged(nullptr, b, thrust::counting_iterator<int>(0), d->flags, d->pulse[0].send_idx,
                                          d->counters, n));
    return b;
}

static void *realloc_dev(GpuSim *g, void *old, size_t old_bytes, size_t keep_bytes, size_t new_bytes, const char *what)
{
    void *p = gpu_alloc(g, new_bytes, what);
    if (old && keep_bytes) CUDA_CHECK(cudaMemcpyAsync(p, old, keep_bytes, cudaMemcpyDeviceToDevice, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    gpu_free(g, old, old_bytes);
    return p;
}

static void make_pos_texture(Dd *d)
{
    GpuSim *g = d->g;
    if (d->dom.p.read != READ_TEXTURE) return;
    if (g->tex_r) CUDA_CHECK(cudaDestroyTextureObject(g->tex_r));
    g->tex_r = gpu_texture(g->r, sizeof(real4) * (size_t)d->cap, cudaCreateChannelDesc<int4>(), g, "positions");
}

/* Room for `need` atoms (local + ghosts) in every per-atom array; the first `keep` atoms of
 * r and v survive (W is rebuilt after any growth). */
static void ensure_atoms(Sim *s, Dd *d, int need, int keep)
{
    if (need <= d->cap) return;
    GpuSim *g = d->g;
    const int old = d->cap, cap = (int)(need * 1.2) + 1024;
    const size_t r4 = sizeof(real4), in = sizeof(int);
    g->r = (real4 *)realloc_dev(g, g->r, r4 * old, r4 * keep, r4 * cap, "positions (local + ghost)");
    g->v = (real4 *)realloc_dev(g, g->v, r4 * old, r4 * keep, r4 * cap, "velocities");
    g->a = (real4 *)realloc_dev(g, g->a, r4 * old, 0, r4 * cap, "accelerations");
    g->u = (real *)realloc_dev(g, g->u, sizeof(real) * old, 0, sizeof(real) * cap, "per-atom energies");
    /* r_alt, v_alt may hold the atoms leaving in a migration: kept whole */
    d->r_alt = (real4 *)realloc_dev(g, d->r_alt, r4 * old, r4 * old, r4 * cap, "migration buffers");
    d->v_alt = (real4 *)realloc_dev(g, d->v_alt, r4 * old, r4 * old, r4 * cap, "migration buffers");
    int **ints[] = {&d->zone, &d->flags, &d->flags_up, &g->nbr_count};
    for (int **p : ints) *p = (int *)realloc_dev(g, *p, in * old, 0, in * cap, "per-atom indices");
    cellsort_reserve(&d->sort, g, cap, d->ncells, CELLSORT_RADIX | CELLSORT_COUNT | CELLSORT_START | CELLSORT_SCAN, 32,
                     g->stream);
    g->W = (int *)realloc_dev(g, g->W, in * (size_t)g->nbr_cap * old, 0, in * (size_t)g->nbr_cap * cap,
                              "the neighbour matrix W");
    d->cap = cap;
    const size_t tmp = cub_need(d, cap);
    if (tmp > d->cub_bytes) {
        gpu_free(g, d->cub_tmp, d->cub_bytes);
        d->cub_tmp = gpu_alloc(g, tmp, "CUB temporary storage");
        d->cub_bytes = tmp;
    }
    make_pos_texture(d);
    s->stats.bytes = g->bytes;
}

/* Block partials for the per-atom launches over `rows` (the kicks over the local atoms run the
 * same grid; their blocks past the local atoms leave zeros). */
static void ensure_parts(Dd *d, int rows)
{
    GpuSim *g = d->g;
    g->blocks = blocks_for(rows > 0 ? rows : 1, g->threads);
    if (g->blocks <= d->part_blocks) return;
    const int nb = g->blocks * 2;
    gpu_free(g, g->parts, sizeof(double) * NPARTS * d->part_blocks);
    if (g->parts_host) CUDA_CHECK(cudaFreeHost(g->parts_host));
    g->parts = (double *)gpu_alloc(g, sizeof(double) * NPARTS * nb, "reduction partials");
    g->parts_host = (double *)gpu_pinned(sizeof(double) * NPARTS * nb, "reduction partials");
    CUDA_CHECK(cudaMemset(g->parts, 0, sizeof(double) * NPARTS * nb));
    d->part_blocks = nb;
}

static void ensure_ret(Dd *d, DdPulse *pl, int n)
{
    if (n <= pl->ret_cap) return;
    const int cap = (int)(n * 1.2) + 256;
    gpu_free(d->g, pl->ret_buf, sizeof(real4) * pl->ret_cap);
    pl->ret_buf = (real4 *)gpu_alloc(d->g, sizeof(real4) * cap, "force halo buffers");
    pl->ret_cap = cap;
}

static void ensure_send(Dd *d, DdPulse *pl, int n)
{
    if (n <= pl->send_cap) return;
    const int cap = (int)(n * 1.2) + 256;
    gpu_free(d->g, pl->send_idx, sizeof(int) * pl->send_cap);
    gpu_free(d->g, pl->send_buf, sizeof(real4) * pl->send_cap);
    pl->send_idx = (int *)gpu_alloc(d->g, sizeof(int) * cap, "halo send lists");
    pl->send_buf = (real4 *)gpu_alloc(d->g, sizeof(real4) * cap, "halo send buffers");
    pl->send_cap = cap;
}

static void read_counters(Dd *d, int n)
{
    CUDA_CHECK(cudaMemcpyAsync(d->counters_host, d->counters, sizeof(int) * n, cudaMemcpyDeviceToHost, d->g->stream));
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
}

/* ---- --dd-profile on ------------------------------------------------------------------- */

const char *const dd_prof_names[DD_PROF_PHASES] = {
    "migrate", "sort", "conserve", "select", "counts", "refresh", "ghosts", "zones", "cells", "list", "capture+stats", "skew"};

void dd_prof(Dd *d, int phase)
{
    if (!d->prof_on) return;
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    const double now = wall_seconds();
    if (phase >= 0) d->prof_s[phase] += now - d->prof_mark;
    /* the ranks aligned at every boundary (every rank passes the same ones), so that a phase
     * holds its own work and its waits on peers, not a skew left by an earlier phase (a
     * backend whose phase starts with a blocking exchange would otherwise be booked for it);
     * the wait for the slowest rank is a phase of its own */
    dd_barrier();
    const double after = wall_seconds();
    if (phase >= 0) d->prof_s[PROF_SKEW] += after - now;
    d->prof_mark = after;
}

void dd_prof_report(Dd *d)
{
    if (!d->prof_on || d->prof_builds == 0) return;
    double t[DD_PROF_PHASES], total = 0;
    for (int k = 0; k < DD_PROF_PHASES; k++) t[k] = 1e6 * d->prof_s[k] / (double)d->prof_builds;
    const double mine0 = t[PROF_LIST];
    dd_allreduce_max_d(t, DD_PROF_PHASES);
    printf("# dd: rebuild phases (--dd-profile on, stream synchronised and ranks aligned at each phase; us per rebuild, largest over ranks, %lld rebuilds):",
           d->prof_builds);
    for (int k = 0; k < DD_PROF_PHASES; k++) {
        printf(" %s %.4g", dd_prof_names[k], t[k]);
        total += t[k];
    }
    printf("; sum %.4g (rank 0's list %.4g)\n", total, mine0);
}

/* ---- setup -------------------------------------------------------------------------- */

void dd_geometry(Sim *s, Dd *d)
{
    const double L = s->L, rn = s->rn;
    static const char axis_name[3] = {'x', 'y', 'z'};
    if (L <= 2 * rn)
        dd_fail(EXIT_INPUT, "the box edge L = %.4g is not above 2 r_n = %.4g (each pair must be seen through one image): "
                   "raise --ne", L, 2 * rn);
    for (int a = 0; a < 3; a++) {
        d->width[a] = L / d->dims[a];
        if (d->width[a] < rn)
            dd_fail(EXIT_INPUT, "domains along %c are %.4g wide (L / %d), thinner than r_n = %.4g (one pulse per direction "
                       "needs width >= r_n): at most %d domains along %c at this --ne",
                    axis_name[a], d->width[a], d->dims[a], rn, (int)floor(L / rn), axis_name[a]);
        d->lo[a] = -0.5 * L + d->coord[a] * d->width[a];
        d->hi[a] = d->lo[a] + d->width[a];
        /* the cell grid: the domain plus r_n (and a rounding margin) on each side */
        const double margin = 8 * REAL_EPS * L, ext = d->width[a] + 2 * (rn + margin);
        d->gc[a] = (int)floor(ext / rn);
        if (d->gc[a] < 1) d->gc[a] = 1;
        d->c_lo[a] = (real)(d->lo[a] - rn - margin);
        d->c_inv_w[a] = (real)(d->gc[a] / ext);
    }
}

void dd_setup(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    const double L = s->L, rn = s->rn;
    d->ncells = d->gc[0] * d->gc[1] * d->gc[2];
    d->prof_on = dd_opts(s)->dd_profile;
    d->counters = (int *)gpu_alloc(g, sizeof(int) * 8, "migration counters");
    d->counters_host = (int *)gpu_pinned(sizeof(int) * 8, "migration counters");
    d->hash_dev = (unsigned long long *)gpu_alloc(g, sizeof(unsigned long long), "id hash");
    d->hash_host = (unsigned long long *)gpu_pinned(sizeof(unsigned long long), "id hash");
    d->expected_dev = (unsigned long long *)gpu_alloc(g, sizeof(unsigned long long) * 2 * DD_PULSES, "signal counts");
    CUDA_CHECK(cudaMemset(d->expected_dev, 0, sizeof(unsigned long long) * 2 * DD_PULSES));
    CUDA_CHECK(cudaHostAlloc((void **)&d->timed_out, sizeof(int), cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&d->timed_out_dev, d->timed_out, 0));
    *d->timed_out = 0;
    g->status = (BuildStatus *)gpu_alloc(g, sizeof(BuildStatus), "build status");
    g->status_host = (BuildStatus *)gpu_pinned(sizeof(BuildStatus), "build status");
    CUDA_CHECK(cudaHostAlloc((void **)&g->props_host, sizeof(double) * NPARTS, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&g->props_dev, (void *)g->props_host, 0));

    /* the atoms this domain owns, from the (identical on every rank) initial state */
    real4 *hr = (real4 *)nbr_alloc(sizeof(real4) * s->n, "local atoms"), *hv = (real4 *)nbr_alloc(sizeof(real4) * s->n, "local atoms");
    int n = 0;
    unsigned long long all = 0;
    for (int i = 0; i < s->n; i++) {
        all += mix_id((unsigned long long)i);
        const real x = pbc_wrap(s->r[i].x, s->L), y = pbc_wrap(s->r[i].y, s->L), z = pbc_wrap(s->r[i].z, s->L);
        if (owner_coord(x, s->L, d->dims[0]) != d->coord[0] || owner_coord(y, s->L, d->dims[1]) != d->coord[1] ||
            owner_coord(z, s->L, d->dims[2]) != d->coord[2])
            continue;
        hr[n] = make_real4(x, y, z, s->q[i]);
        hv[n] = make_real4(s->v[i].x, s->v[i].y, s->v[i].z, id_to_w(i));
        n++;
    }
    d->id_hash_all = all;
    capacity_init(&g->nbr_capacity, s->variant->name, "neighbour matrix W", "neighbours per atom", "max-nbr",
                  s->p.max_nbr, nbr_start_estimate(s, poisson_max(neighbours_within(s, s->rn))), 1);
    g->nbr_cap = (int)g->nbr_capacity.cap;
    /* ghosts: a shell r_n deep around the domain, at the mean density */
    const double vol = d->width[0] * d->width[1] * d->width[2];
    const double shell = (d->width[0] + 2 * rn) * (d->width[1] + 2 * rn) * (d->width[2] + 2 * rn) - vol;
    ensure_atoms(s, d, (int)(n + s->n / (L * L * L) * shell) + 64, 0);
    CUDA_CHECK(cudaMemcpy(g->r, hr, sizeof(real4) * n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(g->v, hv, sizeof(real4) * n, cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(g->a, 0, sizeof(real4) * d->cap));
    CUDA_CHECK(cudaMemset(g->u, 0, sizeof(real) * d->cap));
    free(hr);
    free(hv);
    d->n_local = n;
    d->n_ghost = 0;
    d->dom.n = n;
    ensure_parts(d, n);

    /* the pulses: the axes with one domain first (local copies), then the split ones, z before
     * y before x in each group; down then up. Forwarding works in any axis order (every rank
     * takes the same one); this one leaves all remote data to the last pulses. */
    int order[3], no = 0;
    const int per = d->newton ? 1 : 2;   /* pulses per axis: --dd-newton on, the down pulse only */
    for (int a = 2; a >= 0; a--)
        if (d->dims[a] == 1) order[no++] = a;
    d->self_pulses = per * no;
    d->npulses = 3 * per;
    for (int a = 2; a >= 0; a--)
        if (d->dims[a] > 1) order[no++] = a;
    CUDA_CHECK(cudaStreamCreateWithFlags(&d->nonlocal, cudaStreamNonBlocking));
    CUDA_CHECK(cudaEventCreateWithFlags(&d->ev_self, cudaEventDisableTiming));
    CUDA_CHECK(cudaEventCreateWithFlags(&d->ev_nonlocal, cudaEventDisableTiming));
    for (int k = 0; k < d->npulses; k++) {
        DdPulse *pl = &d->pulse[k];
        const int axis = order[k / per], dir = per == 2 && k % 2 ? +1 : -1;
        pl->axis = axis;
        pl->dir = dir;
        pl->send_rank = d->nbr[axis][dir < 0 ? 0 : 1];
        pl->recv_rank = d->nbr[axis][dir < 0 ? 1 : 0];
        /* crossing the periodic boundary: the atoms appear beyond the other end of the box */
        pl->shift = dir < 0 ? (d->coord[axis] == 0 ? s->L : 0) : (d->coord[axis] == d->dims[axis] - 1 ? -s->L : 0);
    }
}

void dd_wrap(Dd *d) { gpu_wrap(&d->dom); }

/* ---- migration ---------------------------------------------------------------------- */

static void migrate_axis(Sim *s, Dd *d, int axis)
{
    GpuSim *g = d->g;
    const int n = d->n_local, T = g->threads;
    CUDA_CHECK(cudaMemsetAsync(d->counters, 0, sizeof(int) * 8, g->stream));
    if (n > 0) {
        classify_kernel<<<blocks_for(n, T), T, 0, g->stream>>>(g->r, n, axis, s->L, d->dims[axis], d->coord[axis],
                                                               d->sort.key, d->sort.index, d->counters);
        LAUNCH_CHECK("classify_kernel");
        cellsort_radix(&d->sort, n, 2, g->stream);
        cellsort_gather(d->sort.perm, n, cell_moves(g->r, d->r_alt, g->v, d->v_alt), nullptr, T, g->stream);
    }
    read_counters(d, 4);
    const int stay = d->counters_host[0], down = d->counters_host[1], up = d->counters_host[2];
    if (d->counters_host[3])
        dd_fail(EXIT_INTERNAL, "step %d: %d atom(s) moved further than the neighbouring domain along %c since the last rebuild "
                   "(a rebuild comes before any atom moves delta/2)", s->step, d->counters_host[3], "xyz"[axis]);
    /* the stayers back in place; the leavers wait in r_alt, v_alt */
    cellsort_copy_back(cell_moves(d->r_alt, g->r, d->v_alt, g->v), stay, nullptr, 0, nullptr, nullptr, T, g->stream);
    const int lower = d->nbr[axis][0], upper = d->nbr[axis][1];
    int from_upper = 0, from_lower = 0;
    dd_sendrecv_int(&down, 1, lower, &from_upper, upper);
    dd_sendrecv_int(&up, 1, upper, &from_lower, lower);
    const int n_new = stay + from_upper + from_lower;
    ensure_atoms(s, d, n_new, stay);
    const int tag = 100 + 4 * axis;
    dd_exchange(d, d->r_alt + stay, down, lower, g->r + stay, from_upper, upper, tag);
    dd_exchange(d, d->v_alt + stay, down, lower, g->v + stay, from_upper, upper, tag + 1);
    dd_exchange(d, d->r_alt + stay + down, up, upper, g->r + stay + from_upper, from_lower, lower, tag + 2);
    dd_exchange(d, d->v_alt + stay + down, up, upper, g->v + stay + from_upper, from_lower, lower, tag + 3);
    d->migrated += down + up;
    d->n_local = n_new;
}

/* a planted fault of the tests (test-dd-plant only, dd.cuh): its step set and reached */
static int planted_at(int step, const Sim *s) { return dd_planted && step >= 0 && s->step >= step; }

/* The first n local atoms put in the order of their keys (d->sort.key, d->sort.index = 0..n-1,
 * keys below 2^bits): the cell sort's stable radix sort, then r and v gathered through r_alt,
 * v_alt and copied back (move_v 0: the velocities left behind, a planted fault of the tests). */
static void permute_locals(Dd *d, int n, int bits, int move_v)
{
    GpuSim *g = d->g;
    const int T = g->threads;
    cellsort_radix(&d->sort, n, bits, g->stream);
    cellsort_gather(d->sort.perm, n, cell_moves(g->r, d->r_alt, g->v, d->v_alt), nullptr, T, g->stream);
    cellsort_copy_back(move_v ? cell_moves(d->r_alt, g->r, d->v_alt, g->v) : cell_moves(d->r_alt, g->r), n, nullptr, 0,
                       nullptr, nullptr, T, g->stream);
}

/* --dd-overlap: the local atoms reordered inner first; the force blocks that hold inner atoms
 * only are computed before the remote ghosts arrive. */
static void order_inner_first(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    const int n = d->n_local, T = g->threads;
    DdFaces f;
    for (int a = 0; a < 3; a++) {
        f.lo[a] = (real)d->lo[a];
        f.hi[a] = (real)d->hi[a];
        f.split[a] = d->dims[a] > 1;
    }
    f.reach = s->rn + (real)(8 * REAL_EPS * s->L);
    CUDA_CHECK(cudaMemsetAsync(d->counters, 0, sizeof(int) * 8, g->stream));
    if (n > 0) {
        border_kernel<<<blocks_for(n, T), T, 0, g->stream>>>(g->r, n, f, d->sort.key, d->sort.index, d->counters);
        LAUNCH_CHECK("border_kernel");
        permute_locals(d, n, 2, 1);
    }
    read_counters(d, 2);
    d->inner_blocks = d->counters_host[0] / T;   /* whole blocks of inner atoms */
}

/* Every atom in exactly one domain: the count and the sum of mixed ids over all ranks. */
static void check_conservation(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    CUDA_CHECK(cudaMemsetAsync(d->hash_dev, 0, sizeof(unsigned long long), g->stream));
    if (d->n_local > 0) {
        id_hash_kernel<<<blocks_for(d->n_local, g->threads), g->threads, 0, g->stream>>>(g->v, d->n_local, d->hash_dev);
        LAUNCH_CHECK("id_hash_kernel");
    }
    CUDA_CHECK(cudaMemcpyAsync(d->hash_host, d->hash_dev, sizeof(unsigned long long), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    unsigned long long v[2] = {(unsigned long long)d->n_local, *d->hash_host};   /* sums modulo 2^64 */
    dd_allreduce_sum_ull(v, 2);
    if (v[0] != (unsigned long long)s->n || v[1] != d->id_hash_all)
        dd_fail(EXIT_INTERNAL, "step %d: atoms not conserved at the rebuild: %lld atoms in all domains (expected %d), id checksum "
                   "%016llx (expected %016llx): an atom was lost or duplicated by the migration",
                s->step, (long long)v[0], s->n, v[1], d->id_hash_all);
}

/* ---- ghosts ------------------------------------------------------------------------- */

static void pack_from(Dd *d, const real4 *src, const int *idx, int n, int axis, real shift, real4 *out,
                      unsigned long long *signal);

/* arr's rows of each pulse's send list into arr's ghost rows of that pulse, pulse by pulse (the
 * positions' route, so corners arrive through the intermediate domains), host-staged or NCCL:
 * for what travels at rebuilds or for the check, never per step. mark_axis: each pulse's
 * arrivals get its axis bit (zone_bit_kernel). */
static void forward_by_pulses(Dd *d, real4 *arr, int tag_base, int mark_axis)
{
    const int T = d->g->threads;
    for (int k = 0; k < d->npulses; k++) {
        DdPulse *pl = &d->pulse[k];
        if (pl->send_rank == d->rank && pl->recv_rank == d->rank) {
            pack_from(d, arr, pl->send_idx, pl->nsend, pl->axis, 0, arr + pl->recv_off, NULL);
        } else {
            pack_from(d, arr, pl->send_idx, pl->nsend, pl->axis, 0, pl->send_buf, NULL);
            dd_exchange(d, pl->send_buf, pl->nsend, pl->send_rank, arr + pl->recv_off, pl->nrecv, pl->recv_rank,
                        tag_base + k);
        }
        if (mark_axis && pl->nrecv > 0) {
            zone_bit_kernel<<<blocks_for(pl->nrecv, T), T, 0, d->g->stream>>>(arr + pl->recv_off, pl->nrecv,
                                                                             1 << pl->axis);
            LAUNCH_CHECK("zone_bit_kernel");
        }
    }
}

/* --dd-newton on: each ghost's zone (the axes it crossed coming down from an upper neighbour)
 * by the same pulses, in r_alt[].x (free between the migration and the next one), then as ints
 * in zone for the list build. At rebuilds only. */
static void ghost_zones(Dd *d)
{
    GpuSim *g = d->g;
    const int n_all = d->n_local + d->n_ghost, T = g->threads;
    CUDA_CHECK(cudaMemsetAsync(d->r_alt, 0, sizeof(real4) * d->n_local, g->stream));
    forward_by_pulses(d, d->r_alt, 400, 1);
    if (n_all > 0) {
        zone_int_kernel<<<blocks_for(n_all, T), T, 0, g->stream>>>(d->r_alt, n_all, d->zone);
        LAUNCH_CHECK("zone_int_kernel");
    }
}

static void gather_ghosts(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    const int T = g->threads;
    const real margin = (real)(8 * REAL_EPS * s->L), reach = s->rn + margin;
    const int per = d->newton ? 1 : 2;
    d->n_ghost = 0;
    for (int k = 0; k < d->npulses; k += per) {
        const int ncand = d->n_local + d->n_ghost;   /* local atoms and the ghosts of the axes before */
        /* each pulse's send list: its flags (both of an axis from one read of r), then a
         * compaction into the pulse's list; one look at the
         * counts for the axis. Every select ends before ensure_atoms below may move the arrays. */
        int *flags[2] = {d->flags, d->flags_up};
        for (int q = k; q < k + per; q++) ensure_send(d, &d->pulse[q], ncand);
        const int axis = d->pulse[k].axis;   /* per 2: down, then up; --dd-newton on: down alone */
        face_flags_kernel<<<blocks_for(ncand, T), T, 0, g->stream>>>(g->r, ncand, axis, (real)d->lo[axis],
                                                                   (real)d->hi[axis], reach, flags[0],
                                                                   per == 2 ? flags[1] : NULL);
        LAUNCH_CHECK("face_flags_kernel");
        for (int q = k; q < k + per; q++) {
            size_t bytes = d->cub_bytes;
            CUDA_CHECK(cub::DeviceSelect::Flagged(d->cub_tmp, bytes, thrust::counting_iterator<int>(0), flags[q - k],
                                                  d->pulse[q].send_idx, d->counters + (q - k), ncand, g->stream));
        }
        read_counters(d, per);
        dd_prof(d, PROF_SELECT);
        for (int q = k; q < k + per; q++) {
            DdPulse *pl = &d->pulse[q];
            pl->nsend = d->counters_host[q - k];
            dd_sendrecv_int(&pl->nsend, 1, pl->send_rank, &pl->nrecv, pl->recv_rank);
            pl->recv_off = d->n_local + d->n_ghost;
            ensure_atoms(s, d, pl->recv_off + pl->nrecv, pl->recv_off);
            if (d->newton) ensure_ret(d, pl, pl->nrecv + pl->nsend);   /* out, then what comes back */
            d->n_ghost += pl->nrecv;
        }
        dd_prof(d, PROF_COUNTS);
        /* this axis's ghosts, now that the room for them is known */
        dd_comm_rebuilt(d, k, per);
        dd_prof(d, PROF_REFRESH);
        for (int q = k; q < k + per; q++) dd_pulse_exchange(d, q);
        dd_prof(d, PROF_GHOSTS);
    }
    if (d->newton) ghost_zones(d);
    dd_prof(d, PROF_ZONES);
}

/* ---- the list ----------------------------------------------------------------------- */

static DdGrid cell_grid(const Dd *d)
{
    DdGrid grid;
    for (int a = 0; a < 3; a++) {
        grid.gc[a] = d->gc[a];
        grid.lo[a] = d->c_lo[a];
        grid.inv_w[a] = d->c_inv_w[a];
    }
    return grid;
}

/* --reorder N_R (gpu-layer's knob, reorder.cu): at the first rebuild N_R or more steps after the
 * last, the local atoms sorted by cell (after the migration, before the ghosts are gathered and
 * the lists built), so that a warp's atoms share their neighbour cells and the gathers of the
 * list build and the force kernel hit the cache; without it the atoms keep the order of the
 * start (lattice rows) with the arrivals of every migration at the end. The sort is stable:
 * --dd-overlap's inner-first order, made after it, keeps the cell order within each part.
 * The accelerations are not moved: the step after a rebuild computes them afresh. */
static void sort_locals_by_cell(Sim *s, Dd *d)
{
    if (s->ran.reorder <= 0 || (d->sorted_at >= 0 && s->step - d->sorted_at < s->ran.reorder)) return;
    GpuSim *g = d->g;
    const int n = d->n_local, T = g->threads;
    if (n > 0) {
        cellsort_keys(&d->sort, DdCells{cell_grid(d)}, g->r, n, T, g->stream);
        permute_locals(d, n, cellsort_bits(d->ncells), !planted_at(dd_plant().skip_v_step, s));   /* planted: velocities left behind */
    }
    d->sorted_at = s->step;
    if (s->production) s->stats.reorders++;
}

static void build_lists(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    const int n_all = d->n_local + d->n_ghost, T = g->threads;
    const DdGrid grid = cell_grid(d);
    /* the cells' contents: the cell sort's counting sort (cell of each atom in key, slot, count,
     * the counts' exclusive scan in start, the atoms in cell order in perm) */
    CellSort *cs = &d->sort;
    CUDA_CHECK(cudaMemsetAsync(cs->count, 0, sizeof(int) * d->ncells, g->stream));
    cellsort_count(DdCells{grid}, g->r, n_all, cs->key, cs->slot, cs->count, nullptr, T, g->stream);
    cellsort_scan(cs, cs->count, cs->start, nullptr, d->ncells, nullptr, g->stream);
    cellsort_place(cs->key, cs->slot, cs->start, n_all, cs->perm, nullptr, T, g->stream);
    dd_prof(d, PROF_CELLS);
    const real rn2 = s->rn * s->rn;
    d->n_rows = d->newton ? n_all : d->n_local;
    ensure_parts(d, d->n_rows);
    const int *zone = d->newton ? d->zone : NULL;
    for (;;) {
        CUDA_CHECK(cudaMemsetAsync(g->status, 0, sizeof(BuildStatus), g->stream));
        const PosSource pos = gpu_pos(g);
        dispatch_read_layout(s->p.read, s->p.wlayout, [&](auto read, auto layout) {
            dd_build_w_kernel<decltype(read)::value, decltype(layout)::value>
                <<<g->blocks, g->threads, 0, g->stream>>>(pos, cs->key, cs->start, cs->count, cs->perm,
                                                          grid, d->n_rows, g->nbr_cap, rn2, g->W, g->nbr_count,
                                                          g->status, zone);
        });
        LAUNCH_CHECK("dd_build_w_kernel");
        CUDA_CHECK(cudaMemcpyAsync(g->status_host, g->status, sizeof(BuildStatus), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (!capacity_short(s, &g->nbr_capacity, (size_t)g->status_host->nbr_max)) break;
        gpu_free(g, g->W, sizeof(int) * (size_t)g->nbr_cap * d->cap);
        g->nbr_cap = (int)g->nbr_capacity.cap;
        g->W = (int *)gpu_alloc(g, sizeof(int) * (size_t)g->nbr_cap * d->cap, "the neighbour matrix W");
    }
    dd_prof(d, PROF_LIST);
    s->stats.list_threads = g->threads;
    d->rows = d->dom;
    d->rows.n = d->n_rows;
}

static void capture_halo(Dd *d);

/* Planted faults for the tests (test-dd-plant only, dd.cuh): NBR_DD_FAIL_RANK=r with
 * NBR_DD_FAIL_STEP=k stops rank r at the first rebuild at or after step k (the others are then
 * inside an exchange); NBR_DD_LOSE_STEP=k drops one atom of rank 0 at the first rebuild at or
 * after step k, which the conservation check must catch. */
void dd_rebuild(Sim *s, Dd *d)
{
    GpuSim *g = d->g;
    const DdPlant plant = dd_plant();
    if (plant.fail_rank == d->rank && planted_at(plant.fail_step, s))
        dd_fail(EXIT_INTERNAL, "planted failure (NBR_DD_FAIL_RANK=%d) at the rebuild of step %d", d->rank, s->step);
    dd_prof(d, -1);
    for (int axis = 2; axis >= 0; axis--)
        if (d->dims[axis] > 1) migrate_axis(s, d, axis);
    dd_prof(d, PROF_MIGRATE);
    static int lost = 0;
    if (d->rank == 0 && !lost && planted_at(plant.lose_step, s) && d->n_local > 0) {
        d->n_local--;
        lost = 1;
    }
    d->dom.n = d->n_local;
    sort_locals_by_cell(s, d);
    ensure_parts(d, d->n_local);
    d->inner_blocks = 0;
    if (d->overlap) order_inner_first(s, d);
    dd_prof(d, PROF_SORT);
    check_conservation(s, d);
    dd_prof(d, PROF_CONSERVE);
    gather_ghosts(s, d);
    build_lists(s, d);
    if (d->graph) capture_halo(d);
    if (d->run_ahead) dd_run_capture_forces(d);
    g->v_parts_valid = 0;
    g->built = 1;
    /* the whole system's statistics (at rebuilds only) */
    double nb[1] = {(double)g->status_host->nbr_total};
    dd_allreduce_sum_d(nb, 1);
    s->stats.nbr_entries = nb[0];
    s->stats.cells_per_axis = d->gc[0];
    s->stats.layers = 0;
    s->stats.bytes = g->bytes;
    dd_prof(d, PROF_CAPTURE);
    d->prof_builds += d->prof_on;
}

void dd_halo(Dd *d)
{
    if (d->halo_graph)
        CUDA_CHECK(cudaGraphLaunch(d->halo_graph, d->g->stream));
    else
        for (int k = 0; k < d->npulses; k++) dd_pulse_exchange(d, k);
    d->step_epoch++;
}

/* --dd-newton on: the ghosts' forces back along the pulses in reverse order (x, y, z: what a
 * pulse forwarded comes home through the domain that forwarded it). */
void dd_force_halo(Dd *d)
{
    for (int k = d->npulses - 1; k >= 0; k--) dd_force_pulse(d, k);
}

void dd_launch_force_add(Dd *d, const int *idx, int n, const real4 *src, const real *src_u)
{
    if (n <= 0) return;
    GpuSim *g = d->g;
    force_add_kernel<<<blocks_for(n, 256), 256, 0, g->stream>>>(idx, n, src, src_u, g->a, g->u, d->gate);
    LAUNCH_CHECK("force_add_kernel");
}

void dd_launch_force_pack(Dd *d, int first, int n, real4 *out)
{
    if (n <= 0) return;
    GpuSim *g = d->g;
    force_pack_kernel<<<blocks_for(n, 256), 256, 0, g->stream>>>(g->a + first, g->u + first, n, out, d->gate);
    LAUNCH_CHECK("force_pack_kernel");
}

void dd_launch_signal(Dd *d, unsigned long long *signal)
{
    signal_kernel<<<1, 1, 0, d->g->stream>>>(signal, d->gate);
    LAUNCH_CHECK("signal_kernel");
}

/* --dd-graph on: the step's pulses as one CUDA graph, captured when the ghost lists are new
 * (the backends without host steps: nccl, p2p and nvshmem; their waits keep their counts on
 * the device, so the same graph serves every step until the next rebuild). */
static void capture_halo(Dd *d)
{
    GpuSim *g = d->g;
    if (d->halo_graph) CUDA_CHECK(cudaGraphExecDestroy(d->halo_graph));
    d->halo_graph = NULL;
    cudaGraph_t graph;
    CUDA_CHECK(cudaStreamBeginCapture(g->stream, cudaStreamCaptureModeThreadLocal));
    for (int k = 0; k < d->npulses; k++) dd_pulse_exchange(d, k);
    CUDA_CHECK(cudaStreamEndCapture(g->stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&d->halo_graph, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));
}

/* One step's halo and forces. With --dd-overlap on, the paper's schedule: on the local stream
 * the pulses of the unsplit axes (local copies) and the inner atoms' forces; on the non-local
 * stream, after those copies, the remote pulses (the backends work on g->stream, pointed at it
 * meanwhile) and the border atoms' forces; the local stream then waits for the non-local. */
void dd_forces_step(Dd *d)
{
    GpuSim *g = d->g;
    /* --decide device: once the host sees that the device stopped (a rebuild is due), the forces
     * of the steps it still launches would only repeat the last ones (nothing moves): left out.
     * The halo is launched all the same (its collectives must match on every rank; its kernels
     * are gated on the device). */
    const int forces = !dd_run_halted_seen(d);
    if (!d->overlap) {
        dd_halo(d);
        if (forces) dd_run_forces(d, 0, 0, g->blocks, g->stream);
        /* launched on every step as the halo is (nccl's operations must match on every rank);
         * its kernels are gated */
        if (d->newton) dd_force_halo(d);
        return;
    }
    cudaStream_t local = g->stream;
    for (int k = 0; k < d->self_pulses; k++) dd_pulse_exchange(d, k);
    CUDA_CHECK(cudaEventRecord(d->ev_self, local));
    if (forces) dd_run_forces(d, 0, 0, d->inner_blocks, local);
    CUDA_CHECK(cudaStreamWaitEvent(d->nonlocal, d->ev_self, 0));
    g->stream = d->nonlocal;
    for (int k = d->self_pulses; k < d->npulses; k++) dd_pulse_exchange(d, k);
    if (forces) dd_run_forces(d, 1, d->inner_blocks, g->blocks - d->inner_blocks, d->nonlocal);
    CUDA_CHECK(cudaEventRecord(d->ev_nonlocal, d->nonlocal));
    g->stream = local;
    CUDA_CHECK(cudaStreamWaitEvent(local, d->ev_nonlocal, 0));
    d->step_epoch++;
}

static void pack_from(Dd *d, const real4 *src, const int *idx, int n, int axis, real shift, real4 *out,
                      unsigned long long *signal)
{
    const int T = 256, nb = n > 0 ? blocks_for(n, T) : (signal ? 1 : 0);
    if (nb == 0) return;
    pack_kernel<<<nb, T, 0, d->g->stream>>>(src, idx, n, axis, shift, out, signal, d->gate);
    LAUNCH_CHECK("pack_kernel");
}

void dd_launch_pack(Dd *d, const int *idx, int n, int axis, real shift, real4 *out, unsigned long long *signal)
{
    pack_from(d, d->g->r, idx, n, axis, shift, out, signal);
}

/* The ghosts' ids (v.w) by the same pulses, for the pair enumeration of the check. The ghosts'
 * v holds nothing else of use. */
static void ghost_ids(Dd *d) { forward_by_pulses(d, d->g->v, 200, 0); }

/* ---- gathers for the check ---------------------------------------------------------- */

void dd_gather(Sim *s, Dd *d, int with_forces)
{
    GpuSim *g = d->g;
    const int n = d->n_local;
    real4 *hr = (real4 *)nbr_alloc(sizeof(real4) * (n + 1), "gather"), *hv = (real4 *)nbr_alloc(sizeof(real4) * (n + 1), "gather");
    real4 *ha = (real4 *)nbr_alloc(sizeof(real4) * (n + 1), "gather");
    real *hu = (real *)nbr_alloc(sizeof(real) * (n + 1), "gather");
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    CUDA_CHECK(cudaMemcpy(hr, g->r, sizeof(real4) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hv, g->v, sizeof(real4) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(ha, g->a, sizeof(real4) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hu, g->u, sizeof(real) * n, cudaMemcpyDeviceToHost));
    DdAtom *mine = (DdAtom *)nbr_alloc(sizeof(DdAtom) * (n + 1), "gather");
    for (int i = 0; i < n; i++) {
        DdAtom *t = &mine[i];
        t->id = w_to_id(hv[i].w);
        t->r[0] = hr[i].x; t->r[1] = hr[i].y; t->r[2] = hr[i].z;
        t->v[0] = hv[i].x; t->v[1] = hv[i].y; t->v[2] = hv[i].z;
        t->a[0] = ha[i].x; t->a[1] = ha[i].y; t->a[2] = ha[i].z;
        t->u = hu[i];
    }
    void *all = NULL;
    long long total = 0;
    dd_allgatherv_bytes(mine, (long long)sizeof(DdAtom) * n, &all, &total);
    const long long count = total / (long long)sizeof(DdAtom);
    if (count != s->n) dd_fail(EXIT_INTERNAL, "gather: %lld atoms in all domains, expected %d", count, s->n);
    for (long long k = 0; k < count; k++) {
        const DdAtom *t = (const DdAtom *)all + k;
        if (t->id < 0 || t->id >= s->n) dd_fail(EXIT_INTERNAL, "gather: atom id %d out of range", t->id);
        s->r[t->id] = vec3{t->r[0], t->r[1], t->r[2]};
        s->v[t->id] = vec3{t->v[0], t->v[1], t->v[2]};
        if (with_forces) {
            s->a[t->id] = vec3{t->a[0], t->a[1], t->a[2]};
            s->u[t->id] = t->u;
        }
    }
    free(all);
    free(mine);
    free(hr); free(hv); free(ha); free(hu);
}

void dd_for_each_pair(Sim *s, Dd *d, PairFn fn, void *arg)
{
    GpuSim *g = d->g;
    const int n = d->n_rows, n_all = d->n_local + d->n_ghost, cap = g->nbr_cap;   /* rows: local (and ghost) atoms */
    int *count = (int *)nbr_alloc(sizeof(int) * (n + 1), "neighbour counts (host copy)");
    int *W = (int *)nbr_alloc(sizeof(int) * ((size_t)cap * n + 1), "neighbour matrix (host copy)");
    real4 *hr = (real4 *)nbr_alloc(sizeof(real4) * (n_all + 1), "ids (host copy)");
    ghost_ids(d);
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    CUDA_CHECK(cudaMemcpy(count, g->nbr_count, sizeof(int) * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(W, g->W, sizeof(int) * (size_t)cap * n, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(hr, g->v, sizeof(real4) * n_all, cudaMemcpyDeviceToHost));   /* ids in v.w */
    long long npairs = 0;
    for (int i = 0; i < n; i++) npairs += count[i] < cap ? count[i] : cap;
    int *pairs = (int *)nbr_alloc(sizeof(int) * 2 * (npairs + 1), "pairs");
    const int row = s->p.wlayout == WLAYOUT_ROW;
    long long k = 0;
    for (int i = 0; i < n; i++) {
        const int m_i = count[i] < cap ? count[i] : cap;
        for (int m = 0; m < m_i; m++) {
            const int j = W[row ? w_index<WLAYOUT_ROW>(m, i, n, cap) : w_index<WLAYOUT_COL>(m, i, n, cap)];
            pairs[2 * k] = w_to_id(hr[i].w);
            pairs[2 * k + 1] = j >= 0 && j < n_all ? w_to_id(hr[j].w) : -1;   /* out of range reported by the check */
            k++;
        }
    }
    void *all = NULL;
    long long total = 0;
    dd_allgatherv_bytes(pairs, (long long)sizeof(int) * 2 * npairs, &all, &total);
    const int *p = (const int *)all;
    for (long long q = 0; q < total / (long long)(2 * sizeof(int)); q++) fn(p[2 * q], p[2 * q + 1], arg);
    free(all);
    free(pairs);
    free(count);
    free(W);
    free(hr);
}

void dd_drop_halo_graph(Dd *d)
{
    if (!d->halo_graph) return;
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    CUDA_CHECK(cudaGraphExecDestroy(d->halo_graph));
    d->halo_graph = NULL;
}

void dd_free(Dd *d)
{
    GpuSim *g = d->g;
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (g->tex_r) CUDA_CHECK(cudaDestroyTextureObject(g->tex_r));
    dd_drop_halo_graph(d);
    dd_run_free(d);
    cellsort_free(&d->sort, g);
    void *dev[] = {g->r, g->v, g->a, g->u, g->W, g->nbr_count, g->status, g->parts, d->r_alt, d->v_alt, d->zone,
                   d->flags, d->flags_up, d->cub_tmp, d->counters, d->hash_dev, d->expected_dev, d->ctrl};
    for (void *p : dev) gpu_release(p);
    for (int k = 0; k < DD_PULSES; k++) {
        gpu_release(d->pulse[k].send_idx);
        gpu_release(d->pulse[k].send_buf);
        gpu_release(d->pulse[k].ret_buf);
        if (d->pulse[k].host_send) CUDA_CHECK(cudaFreeHost(d->pulse[k].host_send));
        if (d->pulse[k].host_recv) CUDA_CHECK(cudaFreeHost(d->pulse[k].host_recv));
    }
    void *host[] = {g->status_host, g->parts_host, (void *)g->props_host, d->counters_host, d->hash_host, d->timed_out,
                    d->ctrl_host, d->halt_host};
    for (void *p : host)
        if (p) CUDA_CHECK(cudaFreeHost(p));
    for (int k = 0; k < TIMER_SLOTS; k++) CUDA_CHECK(cudaEventDestroy(g->marks[k]));
    CUDA_CHECK(cudaEventDestroy(d->ev_self));
    CUDA_CHECK(cudaEventDestroy(d->ev_nonlocal));
    CUDA_CHECK(cudaStreamDestroy(d->nonlocal));
    CUDA_CHECK(cudaStreamDestroy(g->stream));
    delete g;
    d->g = NULL;
}
