/* gpu_sim.cuh - the state a GPU variant keeps on the device, and the stages every GPU
 * variant shares (Rapaport 2011, section on the CUDA implementation: "the entire
 * computation is executed by the GPU"; only layer assignment, the final reduction sums and
 * the occasional reordering may run on the host, each a knob here).
 *
 * A variant supplies only its neighbour-matrix kernel (a WBuilder) and declares its Variant;
 * gpu_variant() fills every stage it left unset (the rules are at its declaration): initialisation and upload, leapfrog
 * kernels, periodic wrap, reordering, cell and layer assignment with the cell-layer matrix
 * H(c,l), the force kernel, reductions, CUDA-event timers, download, and pair enumeration
 * for the exactness check.
 *
 * Storage (one thread per atom everywhere, index i):
 *   r, v, a      real4 positions, velocities, accelerations; u per-atom energy
 *   cell_of      c_i;  layer_of  l_i;  cell_count  k_c (occupancy of cell c)
 *   H            cell-major: H[c * layer_cap + l] = the l-th atom of cell c (l < k_c)
 *   W            neighbour matrix: row layout W[m * n + i] (the paper: the m-th neighbours
 *                of consecutive atoms are adjacent, so the force kernel's reads coalesce)
 *                or col layout W[i * nbr_cap + m]; nbr_count[i] = m_i
 * Capacities (layer_cap, nbr_cap) follow the one capacity policy (kernels/capacity.h):
 * --max-layers / --max-nbr 0 start from an estimate and grow; a kernel that finds one too
 * small records what it needed, the host grows the array (and its texture) and redoes the
 * build. A non-zero knob is a hard limit: the run stops with one line naming the flag.
 *
 * Stages never call back into the loop: host <-> device copies a stage needs are timed as
 * part of that stage, by the loop. */
#ifndef NBR_GPU_SIM_CUH
#define NBR_GPU_SIM_CUH

#include "../../common/pbc.h"
#include "../../common/sim.h"
#include "../../common/tune.h"
#include "../capacity.h"
#include "../cells.h"
#include "../component_plant.h"
#include "cellsort.cuh"
#include "cuda_check.cuh"
#include "fetch.cuh"
#include "real4.cuh"
#include "reduce.cuh"

#include <cuda_runtime.h>
#include <type_traits>

/* The block partials of the reductions: parts + PART_X * blocks is the array of quantity X.
 * UPOT and VIRIAL are left by the force kernel, UKIN and VVMAX by the second half-kick. */
enum { PART_UPOT, PART_UKIN, PART_VVMAX, PART_VIRIAL, NPARTS };

/* What the list build found; zeroed before each attempt, read back once per build. */
struct BuildStatus {
    unsigned long long nbr_total;  /* sum of m_i: the paper's N_p (full list) */
    int nbr_max;                   /* largest m_i: what nbr_cap must hold */
    int layers_needed;             /* largest cell occupancy N_l (device layer assignment) */
};

/* Running ahead (--decide device, device_loop.cu): what the device decides and counts by
 * itself, the host's rebuild test and statistics moved onto it. The host reads it at sample
 * points only. */
struct DeviceControl {
    double disp;                    /* summed largest displacement since the last build */
    unsigned long long vvmax_bits;  /* this step's largest v^2 (bits of a non-negative double:
                                       they order as the values do, so atomicMax works) */
    int step;                       /* steps completed */
    int due;                        /* the next step rebuilds (the rebuild kernels' gate) */
    int reorder_now;                /* ... and reorders first (the reordering kernels' gate) */
    int last_reorder;
    long long builds_total, builds_prod, reorders_prod;
    double nbr_sum_prod;            /* sum of N_p over production builds */
    unsigned long long nbr_last;    /* N_p of the last build */
    unsigned long long rebuild_hash;/* the steps of the rebuilds, hashed as the host does */
    int layers_last, layers_max;    /* N_l of the last build, largest N_l so far */
    int nbr_max_seen;               /* largest m_i of any build: beyond nbr_cap = overflow */
    int cell_max_seen;              /* largest cell occupancy of a chunk kernel's bins (gpu-onchip's
                                       cell slots): beyond their capacity = overflow */
    int prune_now;                  /* the next step's force kernel prunes (gpu-cluster's --prune) */
    double prune_threshold;         /* --rebuild-frac x --prune: re-prune at this displacement; 0 = off */
    double disp_pruned;             /* disp at the force that last pruned */
    long long prunes_prod;          /* prunes in production steps */
    int chunk_stop;                 /* gpu-rumd --launch chunk: 1 + the step a launch stopped at to
                                       reorder, the host's gated sort and resume (rumd_chunk.cuh); 0 */
};

enum { GRAPH_CACHE = 8 };

struct GpuSim;

/* A variant's neighbour-matrix build: launches its kernel(s) on g->stream, filling W and
 * nbr_count for every atom and recording nbr_total / nbr_max in g->status (see
 * record_nbr_stats), never writing W past nbr_cap. needs_layers: the launch needs N_l
 * (g->layers) before it starts (gpu-old sizes its blocks by it). */
struct WBuilder {
    void (*launch)(Sim *s, GpuSim *g);
    int needs_layers;
};

/* The two W builds over the harness's cells and layers (H), components any program composes:
 * Rapaport 2011's one thread per atom (list_layer.cu) and Anderson et al. 2008's thread block per
 * cell (list_cell_block.cu). RUMD's n2 and sort builds are in rumd_lists.cuh. */
extern const WBuilder W_LAYER, W_CELL_BLOCK;

struct GpuSim {
    cudaStream_t stream;
    cudaEvent_t marks[TIMER_SLOTS];
    cudaDeviceProp prop;
    char device_name[300];
    int threads, blocks;             /* per-atom launches */
    CellGrid grid;
    double bytes;                    /* device memory allocated, all of it */

    real4 *r, *v, *a, *r_alt, *v_alt;/* *_alt: targets of the device reordering */
    real *u;
    cudaTextureObject_t tex_r, tex_r_alt;

    int *cell_of, *layer_of, *cell_count;
    CellSort sort;                   /* the reordering's cell starts and scan (cellsort.cuh) */
    int *H, layer_cap, layers;       /* layers = N_l at the last build; layer_cap a multiple of 4 */
    cudaTextureObject_t tex_H, tex_count;
    int *W, *nbr_count, nbr_cap;
    int w_rows;                      /* rows of W: n, or a program's own (gpu-cluster: its clusters) */
    double prune_threshold;          /* a program whose forces prune its rows (gpu-cluster's --prune): the
                                        displacement that re-prunes, for the device loop; 0 = none */
    Capacity layer_capacity;         /* the policy behind layer_cap (quantum 4: H rows read as int4) */
    Capacity nbr_capacity;           /* the policy behind nbr_cap */

    BuildStatus *status, *status_host;
    double *parts;                   /* block partials, NPARTS arrays of `blocks` doubles (PART_*) */
    double *parts_host;
    volatile double *props_host;     /* mapped pinned memory: the final reduction writes it directly */
    double *props_dev;               /* device address of props_host */
    int v_parts_valid;               /* PART_UKIN/PART_VVMAX describe the current v (integrate.cu) */

    /* pinned host buffers, allocated on first use */
    real4 *stage_r, *stage_v, *stage_r2, *stage_v2, *stage_a;
    real *stage_u;
    int *host_cells, *host_layers, *host_counts, *host_H;
    size_t host_H_len;
    int *host_order;                 /* host reordering: atoms in cell order (malloc) */

    /* --decide device (device_loop.cu) */
    int device_mode;
    DeviceControl *ctrl, *ctrl_snap; /* device: live, and at the last sample point */
    DeviceControl *ctrl_host;        /* pinned: read at sample points */
    real4 *snap_r, *snap_v, *snap_a; /* the state at the last sample point */
    int snap_step;
    const int *gate;                 /* set while the device rebuilds: W kernels run only if *gate */
    cudaEvent_t sample_done;
    struct { int nsteps; cudaGraphExec_t exec; } graphs[GRAPH_CACHE];
    int ngraphs;
    /* --graph cond, while a chunk is captured: the rebuild kernels of each step sit in the
     * body of an IF node on this handle, which kick_drift sets from ctrl->due, so a step that
     * does not rebuild launches none of them (device_loop.cu) */
    int cond_capture;
    int cond_pending;                /* this step's handle is made, its IF node not yet */
    cudaGraphConditionalHandle rebuild_cond;
    cudaStream_t body_stream;        /* captures the IF bodies */

    /* --leapfrog fused (integrate.cu): the fused kernel's ticket (its last block decides) */
    unsigned *leap_ticket;
    /* the pair-force kernel's reduction where several force blocks share a partial
     * (pair_force.cuh): their sums, 2 per force block, and a ticket per partial */
    double *force_scratch;
    unsigned *force_tickets;
    int force_scratch_blocks, force_ticket_slots;   /* what they hold */

    int built;                       /* a build has completed: H and l_i describe the atoms */
    WBuilder builder;                /* the variant's, from its last build */
    int w_launches;                  /* W kernel launches, grows included */
    void *prog;                      /* the program's own state (gpu-rumd, gpu-onchip, gpu-cluster), made by init */
};

static inline GpuSim *gpu_of(Sim *s) { return (GpuSim *)s->ctx; }

/* A GPU program's table from its declaration: the program declares what it has (name, summary,
 * build, .compiler = NBR_COMPILER (the Makefile sets it for variant sources only), and any stage or
 * knob of its own), in Variant's field order, and gpu_variant fills only what it left unset, by
 * these rules, once; the table is not edited after:
 *   knobs 0                the shared stages' knobs (the W programs': gpu-layer, gpu-old, gpu-n2)
 *   has_u                  1 (every GPU force stage fills u); pair_multiplicity 0: 2 (full lists)
 *   harness stages         preflight, init, finish, kick_drift, wrap, kick, props, rescale, download,
 *                          for_each_pair (W's pairs), timers, device_name, device_query: the shared
 *   reorder                gpu_reorder only where knobs include KNOB_REORDER (else none: NULL)
 *   forces                 gpu_forces; with them, and only with them, gpu_stage_bytes and (with
 *                          KNOB_AUTOTUNE) the shared stages' tuner where stage_bytes, tune are unset
 *   device_begin           gpu_device_begin; with it, and only with it, the shared device_rebuild,
 *                          device_decide, leapfrog, sample, chunk_replay, chunk_begin, chunk_end
 *                          where unset. A program with its own device_begin declares its sample and
 *                          chunk_run or its per-step stages: one left NULL is not offered (the loop
 *                          refuses a run that needs it, md_loop.c).
 * E.g. static const Variant v = gpu_variant({.name = "gpu-x", .summary = "...", .build = build,
 *                                            .compiler = NBR_COMPILER}); */
Variant gpu_variant(Variant decl);

/* The build stage: cells, layers (host or device), H, then the variant's W kernel, growing
 * capacities and redoing as needed; sets s->stats. */
void gpu_build(Sim *s, WBuilder builder);
/* A build with neither cells of edge r_n nor H (gpu-rumd's lists): launch (on g->stream) until
 * W holds every atom's neighbours, nbr_cap grown and the launch redone on overflow (launch NULL:
 * no list: no entries, no launch); sets stats.nbr_entries (and stats.bytes after a launch). */
void gpu_build_list(Sim *s, void (*launch)(Sim *s, GpuSim *g));

/* Device memory, counted in g->bytes; out of memory stops with a message (exit 3). */
void *gpu_alloc(GpuSim *g, size_t bytes, const char *what);
void gpu_free(GpuSim *g, void *ptr, size_t bytes);
/* cudaFree of a gpu_alloc block outside a GpuSim's count (teardown, other owners) */
void gpu_release(void *ptr);

/* Pinned host memory (fast copies); failure stops with a message (exit 3). */
void *gpu_pinned(size_t bytes, const char *what);
void gpu_ensure_stage(GpuSim *g, int n);   /* stage_r, stage_v, stage_a, stage_u */

/* Kernel launch size for n items. */
static inline int blocks_for(long n, int threads) { return (int)((n + threads - 1) / threads); }

/* Position and matrix sources for kernels, in the run's read mode. */
static inline PosSource gpu_pos(const GpuSim *g) { return PosSource{g->r, g->tex_r}; }
static inline IntSource gpu_H(const GpuSim *g) { return IntSource{g->H, g->tex_H}; }
static inline IntSource gpu_counts(const GpuSim *g) { return IntSource{g->cell_count, g->tex_count}; }

/* Index of W(m, i) in either layout. */
template <int Layout>
__host__ __device__ __forceinline__ size_t w_index(int m, int i, int n, int cap)
{
    return Layout == WLAYOUT_ROW ? (size_t)m * n + i : (size_t)i * cap + m;
}

/* Calls f(std::integral_constant<int, read>{}, std::integral_constant<int, layout>{}):
 * turns the run-time knobs into the template parameters of a kernel. */
template <class F>
void dispatch_read_layout(int read, int layout, F f)
{
    typedef std::integral_constant<int, READ_TEXTURE> Tex;
    typedef std::integral_constant<int, READ_LDG> Ldg;
    typedef std::integral_constant<int, READ_PLAIN> Plain;
    typedef std::integral_constant<int, WLAYOUT_ROW> Row;
    typedef std::integral_constant<int, WLAYOUT_COL> Col;
    const int row = layout == WLAYOUT_ROW;
    switch (read) {
    case READ_TEXTURE: row ? f(Tex{}, Row{}) : f(Tex{}, Col{}); break;
    case READ_LDG: row ? f(Ldg{}, Row{}) : f(Ldg{}, Col{}); break;
    default: row ? f(Plain{}, Row{}) : f(Plain{}, Col{}); break;
    }
}

/* Squared minimum-image distance (valid for G >= 3, r < L/2), through pbc_delta_rint
 * (common/pbc.h): pbc_delta's bits within any r_n < L/2, in fewer instructions. */
__device__ __forceinline__ real min_image_r2(const real4 &a, const real4 &b, const PbcBox &box, real &dx, real &dy,
                                             real &dz)
{
    dx = pbc_delta_rint(a.x, b.x, box);
    dy = pbc_delta_rint(a.y, b.y, box);
    dz = pbc_delta_rint(a.z, b.z, box);
    return dx * dx + dy * dy + dz * dz;
}

/* u(r) and fr of one pair within r_c, for force kernels templated on the PotentialKind: the
 * kind's own evaluator (common/potentials/all.h), chosen at compile time, so no per-pair test
 * of the kind and the uncharged kind is the LJ term alone (no square root); qq = q_i q_j
 * (charges travel in r.w: gpu_upload puts them there, reorderings move whole real4s). */
#define NBR_POT_OF_KIND_(A, K, name, id) if constexpr (Kind == K) return pot_##id##_u(pot, r2, qq, fr); else
template <int Kind>
__device__ __forceinline__ real pair_of_kind(const PairPotential &pot, real r2, real qq, real *fr)
{
    NBR_POTENTIALS(NBR_POT_OF_KIND_, ~)
    {
        static_assert(Kind != Kind, "pair_of_kind: a kind not in common/potentials/all.h");
        return 0;
    }
}
#undef NBR_POT_OF_KIND_

/* Calls f(std::integral_constant<int, kind>{}) for the run's potential kind, one case per kind
 * of the registry; a kind not listed stops with one line (potential_bad). */
#define NBR_POT_DISPATCH_(A, K, name, id) case K: f(std::integral_constant<int, K>{}); return;
template <class F>
void dispatch_potential(int kind, F f)
{
    switch ((PotentialKind)kind) { NBR_POTENTIALS(NBR_POT_DISPATCH_, ~) }
    potential_bad(kind);
}
#undef NBR_POT_DISPATCH_

/* The cell bins of every GPU program, written once: an atom's cell by kernels/cells.h's grid
 * arithmetic (G cells of 1 / inv_w per axis, x in [-L/2, L/2)), and its slot in a cell-major
 * table, cell c's atoms at slot[c * cap + k], templated on the index width: gpu-layer's H of
 * 32-bit atoms, gpu-onchip's 16-bit rows kept on chip. */
__device__ __forceinline__ int cell_of_position(const real4 &r, real L, real inv_w, int G)
{
    int cx = cell_coord(r.x, L, inv_w, G);
    NBR_PLANT(1, if ((r.x + (real)0.5 * L) * inv_w - cx > (real)0.99 && cx + 1 < G) cx++);
    return cell_index(cx, cell_coord(r.y, L, inv_w, G), cell_coord(r.z, L, inv_w, G), G);
}

/* Atom i into cell c (counts zeroed before): the cell's occupancy with it; over cap the slot is
 * not stored (the caller's capacity grows and the build is redone). */
template <typename Idx>
__device__ __forceinline__ int cell_bin(int i, int c, int *count, Idx *slot, int cap)
{
    const int k = atomicAdd(&count[c], 1);
    NBR_PLANT(2, if (i == 0) atomicAdd(&count[c], 1));
    if (k < cap) slot[(size_t)c * cap + k] = (Idx)i;
    return k + 1;
}

/* Coordinate of a periodic image of a neighbour cell: cell c + d wrapped into [0, G), and
 * the shift (0 or +-L) that brings the neighbour's atoms next to the home cell, applied to
 * the home atom instead (r_i - shift) so that each candidate costs three subtractions. */
__device__ __forceinline__ int wrap_cell(int c, int d, int G, real L, real &shift)
{
    c += d;
    shift = c < 0 ? -L : (c >= G ? L : (real)0);
    return c < 0 ? c + G : (c >= G ? c - G : c);
}

/* The cell walk of every list build, written once: calls visit(cell, rs) for each of the
 * (2 Reach + 1)^3 cells around cell (cx, cy, cz) (itself included), z outermost, each offset
 * from -Reach to +Reach, with rs = r_i shifted next to that periodic image of the cell
 * (rs = r_i - shift, wrap_cell), so a candidate j of the cell is tested as rs - r_j without
 * minimum-image code. The shifts are formed per axis in the loop that owns the axis (three
 * per cell at most). Reach 1: 27 cells of edge >= r_n (gpu-layer, gpu-old); Reach 2: 125 cells
 * of edge >= r_n / 2 (gpu-rumd's sort). Threads that walk the same cell (gpu-old's block)
 * visit the same cells in the same order, so the visitor may synchronise the block. */
template <int Reach, class Visit>
__device__ __forceinline__ void walk_cells(int cx, int cy, int cz, int G, real L, const real4 &ri, Visit &&visit)
{
    real4 rs = ri;
    for (int dz = -Reach; dz <= Reach; dz++) {
        real sz;
        const int nz = wrap_cell(cz, dz, G, L, sz);
        rs.z = ri.z - sz;
        for (int dy = -Reach; dy <= Reach; dy++) {
            real sy;
            const int ny = wrap_cell(cy, dy, G, L, sy);
            rs.y = ri.y - sy;
            for (int dx = -Reach; dx <= Reach; dx++) {
                real sx;
                const int nx = wrap_cell(cx, dx, G, L, sx);
                rs.x = ri.x - sx;
                visit(cell_index(nx, ny, nz, G), (const real4 &)rs);
            }
        }
    }
}

template <class Visit>
__device__ __forceinline__ void walk_27_cells(int c, int G, real L, const real4 &ri, Visit &&visit)
{
    walk_cells<1>(c % G, (c / G) % G, c / (G * G), G, L, ri, visit);
}

/* One candidate j of atom i in a list build: recorded in W (through the running pointer w,
 * stepping w_step per entry) when within r_n; rs is r_i shifted next to j's cell. m counts
 * every neighbour found, stored or not, so an overflow reports what it needed. */
__device__ __forceinline__ void record_candidate(int i, int j, const real4 &rj, const real4 &rs, real rn2, int *&w,
                                                 size_t w_step, int &m, int nbr_cap)
{
    const real dx = rs.x - rj.x, dy = rs.y - rj.y, dz = rs.z - rj.z;
    if (dx * dx + dy * dy + dz * dz < rn2 && j != i) {
        if (m < nbr_cap) *w = j;
        w += w_step;
        m++;
    }
}

/* Neighbour-count statistics of one block into the build status: every thread of the
 * block calls with its atom's count (0 past the last atom); one atomic per block. */
__device__ __forceinline__ void record_nbr_stats(int count, BuildStatus *status)
{
    unsigned long long total = block_reduce((unsigned long long)count, SumOp(), 0ull);
    int most = block_reduce(count, MaxOp(), 0);
    if (threadIdx.x == 0) {
        atomicAdd(&status->nbr_total, total);
        atomicMax(&status->nbr_max, most);
    }
}

/* Stages shared by GPU variants (the .cu files of kernels/). */
/* --decide device (device_loop.cu); the kernels they launch live beside their host-path
 * twins (integrate.cu, cells.cu, reorder.cu) and take a gate: run only if *gate. */
void gpu_device_begin(Sim *s);
void gpu_device_rebuild(Sim *s);
/* A variant's own device rebuild: its gated launches through this, so that --graph cond puts
 * them under the step's conditional node (device_loop.cu). */
void gpu_device_rebuild_with(Sim *s, void (*launch)(Sim *s, GpuSim *g));
void gpu_device_decide(Sim *s);
int  gpu_sample(Sim *s);
/* A sample point after the control block reached ctrl_host (and the sums props_host): grew, a
 * capacity grown, restores the last snapshot and forces a rebuild (returns the step to replay
 * from); else the properties and statistics into s (returns -1). gpu-onchip's sample calls it
 * after its chunk kernel wrote both itself. */
int  gpu_sample_done(Sim *s, int grew);
int  gpu_chunk_replay(Sim *s, int nsteps);
void gpu_chunk_begin(Sim *s, int nsteps);
void gpu_chunk_end(Sim *s, int nsteps);
void gpu_launch_decide(Sim *s, GpuSim *g);
/* --leapfrog fused: the rebuild's wrap, gated by ctrl->due (or by `gate`) */
void gpu_launch_gated_wrap(Sim *s, GpuSim *g, const int *gate = nullptr);
void gpu_launch_device_reorder(Sim *s, GpuSim *g);   /* gated by ctrl->reorder_now; zeroes k_c if due */
void gpu_launch_device_layers(Sim *s, GpuSim *g);    /* gated by ctrl->due */
void gpu_final_reduce(GpuSim *g);                    /* parts -> props_dev (mapped host memory) */
void gpu_release_graphs(GpuSim *g);

/* Variant.preflight of the GPU variants: no usable device -> one line, exit EXIT_NO_DEVICE */
void gpu_preflight(const Sim *s);
int  gpu_init(Sim *s);
/* cell_grid 0: no cells of edge r_n, no H (a variant with its own list build, any box size) */
int  gpu_init_opts(Sim *s, int cell_grid);
void gpu_finish(Sim *s);
void gpu_kick_drift(Sim *s);
void gpu_wrap(Sim *s);
int  gpu_reorder(Sim *s);        /* 1 = reordered; 0 = nothing built yet, nothing done */
void gpu_forces(Sim *s);
/* Forces of the atoms of blocks [first_block, first_block + nblocks) of the per-atom launch,
 * on `stream`, their partials in their own slots: gpu-dd computes the atoms far from other
 * domains while the halo is in flight, then the rest. */
void gpu_forces_blocks(Sim *s, int first_block, int nblocks, cudaStream_t stream);
void gpu_kick(Sim *s);
/* --leapfrog fused, --decide device: after the forces of step k, one kernel does the second
 * half-kick of k (max v^2 to the control block; the kinetic partials when !drift, the last
 * step of a chunk), the rebuild decision of k (its last block, as decide_kernel) and, where
 * drift, the first half-kick and drift of k + 1 (integrate.cu) */
void gpu_leapfrog(Sim *s, int drift);
/* the same stages for a device that may be stopped (*halt: nothing), no wrap; vvmax_bits: the step's
 * largest v^2 (as bits) for a device-side rebuild test, or NULL (gpu-dd running ahead) */
void gpu_kick_drift_halted(Sim *s, const int *halt);
void gpu_kick_halted(Sim *s, unsigned long long *vvmax_bits, const int *halt);
void gpu_props(Sim *s);
void gpu_rescale(Sim *s, double factor);
void gpu_download(Sim *s);
void gpu_upload(Sim *s);
void gpu_for_each_pair(Sim *s, PairFn fn, void *arg);
void gpu_timer_mark(Sim *s, int slot);
double gpu_timer_seconds(Sim *s, int from, int to);
const char *gpu_device_name(Sim *s);
/* Variant.device_query: the name of --device's GPU ("none" where there is none) and the bytes
 * this process holds through gpu_alloc (-1 without a GPU) */
void gpu_device_query(const Sim *s, char *name, size_t len, double *used_bytes);

/* Layer assignment (cells.cu) and its capacity, used by gpu_build and the reordering. */
void gpu_assign_layers(Sim *s, GpuSim *g);
/* Capacity for N_l layers or m_i neighbours (kernels/capacity.h): stops at a hard limit
 * (knob non-zero) with a message naming --max-layers / --max-nbr, else grows the array
 * (and re-creates its texture) if needed, counted in stats.grows; returns 1 if it grew. */
int gpu_fit_layers(Sim *s, GpuSim *g, int needed);
int gpu_fit_nbr(Sim *s, GpuSim *g, int needed);
void gpu_fill_H(GpuSim *g, int n);

/* Texture objects over device arrays (gpu_sim.cu). */
cudaTextureObject_t gpu_texture(const void *ptr, size_t bytes, cudaChannelFormatDesc desc, const GpuSim *g,
                                const char *what);

/* stage_bytes.cu: the Variant's stage_bytes hook (the GB/s of the kernel-level timing, --stage-reps): the fewest bytes a
 * stage moves through device memory, per occurrence of the stage in the loop. */
double gpu_stage_bytes(Sim *s, Stage st);

#endif
