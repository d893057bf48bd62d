/* gpu-onchip - small systems on chip (issue 27): with --decide device, one kernel launch runs
 * every step between two sample points (the loop's chunk, Variant.chunk_run): forces, the
 * leapfrog, the rebuild test and the rebuild, the host seeing only sample points.
 *
 * Composed of the on-chip component (kernels/cuda/onchip*.cu, onchip.cuh says which part does
 * what) and the shared GPU harness (gpu_sim.cuh: device, stream, positions, the leapfrog, wrap,
 * rescale and download of the host path), the pair potential of the shared force family
 * (pair_force.cuh's pair_force_add):
 *   tiers    --tier block (one block, the system in shared memory), cluster (--cluster C blocks,
 *            distributed shared memory), grid (a cooperative grid over L2); auto: the grid
 *            (onchip_tier.cu), a tier that does not fit refused with one line
 *   lists    16-bit indices built inside the chunk, t_p lanes per atom (--tp): --list n2 (every atom
 *            tested, rows_build_n2) or cells (binned on chip into cells of edge >= r_n, 27
 *            searched, rows_build_cells); auto: cells above 2048 atoms where 4 fit per
 *            axis (onchip_tier.cu says why); list and cell capacity grown (atom_rows_store.cu)
 *            and the chunk replayed on overflow (onchip_loop.cu)
 *   host     --decide host, --check, --verify-lists, --stage-reps: the same build and forces as
 *            per-stage kernels (atom_rows.cu)
 *   tuning   --autotune: the harness's generic search (common/tune.h) over the knobs below. */
#include "../kernels/cuda/onchip.cuh"

#include <string.h>

/* The component's state, the program's own (GpuSim's prog): made by init, gone at finish. */
static OnchipState *oc_of(Sim *s) { return (OnchipState *)gpu_of(s)->prog; }

static int init(Sim *s)
{
    if (s->n > ONCHIP_MAX_ATOMS)   /* max_atoms refuses this first; kept for the 16-bit lists' sake */
        nbr_fail(EXIT_INPUT, "%s: N = %d over %d (16-bit list indices)", s->variant->name, s->n, ONCHIP_MAX_ATOMS);
    /* no --layers, no --reorder: Sim.ran says neither runs (md_loop.c's ran_from_params) */
    gpu_init_opts(s, 0);
    OnchipState &oc = *new OnchipState();
    gpu_of(s)->prog = &oc;
    const int tp = s->p.tp;
    if (tp != 0 && (tp & (tp - 1) || tp > 32))
        nbr_fail(EXIT_INPUT, "%s: --tp %d: gpu-onchip takes 1, 2, 4, 8, 16 or 32 lanes per atom (0 = by tier)",
                 s->variant->name, tp);
    int M;
    s->ran.list_method = onchip_list_kind(s, &M);   /* the CSV row's list_method: what ran */
    rows_store_init(s, &oc.store, s->ran.list_method == LIST_CELLS ? M : 0);
    onchip_limits(s, &oc);
    onchip_choose_tier(s, &oc);
    return 0;
}

/* --list refused before the device is looked for (a bad value needs no GPU to say so) */
static void preflight(const Sim *s)
{
    int M;
    (void)onchip_list_kind(s, &M);
    gpu_preflight(s);
}

static void finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g && g->prog) {
        onchip_free(s, oc_of(s));
        delete oc_of(s);
        g->prog = nullptr;
    }
    gpu_finish(s);
}

/* ---- the host path (--decide host, --check, --verify-lists, --stage-reps): the chunk kernel's
 * build and forces as stage kernels (atom_rows.cu) ---- */

static void build(Sim *s)
{
    OnchipState *oc = oc_of(s);
    rows_store_build(s, &oc->store, oc->tp);
    if (gpu_of(s)->device_mode) onchip_choose_tier(s, oc);   /* a grown capacity may no longer fit one block */
}

static void forces(Sim *s) { rows_store_forces(s, &oc_of(s)->store, oc_of(s)->tp); }
static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    rows_for_each_pair(oc_of(s)->store.rows, s->n, fn, arg, gpu_of(s)->stream);
}

/* ---- the device loop: one launch per chunk ---- */

static void device_begin(Sim *s) { onchip_device_begin(s, oc_of(s)); }

static int chunk_run(Sim *s, int nsteps)
{
    onchip_chunk_launch(s, oc_of(s), onchip_chunk_args(s, oc_of(s), nsteps));
    gpu_of(s)->v_parts_valid = 0;
    return 1;
}

static int sample(Sim *s) { return onchip_sample(s, oc_of(s)); }

/* --autotune (issue 27, item 3): the skin first (the cache's first value, as for the other
 * GPU programs), the tier, the cluster's blocks C, the lanes per atom t_p, the block size
 * --threads (the grid tier's and the host path's; the block tier is one block of 1024, the
 * cluster's blocks follow from N / C x t_p) and the list build. 0 and auto are each flag's "by
 * the tier / by N" default, so the search starts where an untuned run is; --list cells where
 * fewer than 3 cells fit per axis is refused (exit 2), that trial fails. A combination that
 * does not fit (block or cluster tier over shared memory, a cluster the device cannot make
 * resident, a grid block whose lists do not fit) is refused with one line (EXIT_CAPACITY,
 * onchip_tier.cu) in init or at a grown capacity's sample point: that trial fails and the search
 * goes on. The tiers run with --decide device only: tune with it. */
static const TuneDecl tune = {6, {{"delta", NULL, 0.05, 1.5, 0.05, NULL},
                                  {"tier", "auto block cluster grid", 0, 0, 0, NULL},
                                  {"cluster", "0 2 4 8 16", 0, 0, 0, NULL},
                                  {"tp", "0 1 2 4 8 16 32", 0, 0, 0, NULL},
                                  {"threads", "32 64 128 256 512 1024", 0, 0, 0, "512"},
                                  {"list", "auto n2 cells", 0, 0, 0, NULL}}, 1, NULL};

/* Its own options (issue 36: a program's options declared with the program), stored in OnchipOpts
 * (onchip.cuh), listed with the common ones before --device. The tier and cluster pairs of the
 * row are what ran (onchip_ran): the tier and C that auto and 0 chose. */
static const char *const tier_names[] = {"auto", "block", "grid", "cluster", NULL};
static const Option own_rows[] = {
    {"tier", T_ENUM, offsetof(OnchipOpts, tier), 0, 0, tier_names, 0, "tier",
     "with --decide device: where the system lives while one launch runs the steps between two sample points: "
     "block (one thread block, everything in shared memory; small N), grid (a cooperative grid, state in global "
     "memory / L2, grid-wide syncs), cluster (a thread-block cluster, every block a full copy of the positions in "
     "its shared memory, new positions stored into every block through distributed shared memory) or auto (grid: "
     "the fastest tier on the H200 at every N, results/h200/onchip.md)"},
    {"cluster", T_INT, offsetof(OnchipOpts, cluster), 0, 16, NULL, 0, "cluster",
     "--tier cluster: blocks per thread-block cluster C, each owning N/C atoms (0 = 16, or 8 where 16 do not fit; "
     "above 8 needs a device that allows non-portable cluster sizes)"},
};
static const OnchipOpts own_defaults = {TIER_AUTO, 0};
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(OnchipOpts), &own_defaults,
                               NULL, NULL};

int main(int argc, char **argv)
{
    /* its own forces (no stage bytes stated), no --reorder (no reordering), and its own device loop:
     * one launch per chunk (chunk_run), so no per-step device stages and no graphs (NULL: not
     * offered; the harness fills neither, gpu_sim.cuh) */
    static const Variant v = gpu_variant({
        .name = "gpu-onchip",
        .summary = "small systems on chip: with --decide device one launch runs every step between two sample points, "
                   "the system in one block's shared memory, a cluster's distributed shared memory or a cooperative "
                   "grid's L2; lists of 16-bit indices (n2 or cells) built on chip, t_p lanes per atom, no Newton 3",
        .knobs = KNOB_THREADS | KNOB_TP | KNOB_LIST | KNOB_DECIDE | KNOB_DEVICE | KNOB_LISTMETHOD | KNOB_AUTOTUNE,
        .opts = &own,
        .lists = 1u << LIST_AUTO | 1u << LIST_N2 | 1u << LIST_CELLS,
        .threads = 512,   /* the grid tier's blocks: within 8% of the best of 256, 512 and 1024 from 512 to 64000
                             atoms (results/h200/onchip-sweep-3fbd6ae3bf3d.csv) */
        .max_atoms = ONCHIP_MAX_ATOMS,
        .max_atoms_why = "16-bit list indices",
        .preflight = preflight,
        .init = init,
        .finish = finish,
        .build = build,
        .forces = forces,
        .for_each_pair = for_each_pair,
        .device_begin = device_begin,
        .sample = sample,
        .chunk_run = chunk_run,
        .compiler = NBR_COMPILER,
        .tune = &tune,
    });
    return nbr_main(argc, argv, &v);
}
