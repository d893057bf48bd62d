/* gpu-cluster - forces over a cluster-pair list (Páll and Hess 2013; MD-Bench's cluster pairs)
 * on nbrlab's GPU harness. It composes:
 *   lists   kernels/cuda/cluster_list.cuh: atoms sorted by z-ordered columns at every build (r and
 *           v follow), cut into i-clusters of --icluster atoms with bounding boxes; a row per
 *           i-cluster of j-units (--jcluster atoms: 1, or whole / half clusters) within r_n of its
 *           box, each with its periodic image;
 *   forces  kernels/cuda/cluster_force.cu: a warp per i-cluster, each listed j position loaded once
 *           for the whole cluster, no minimum image, no Newton's third law;
 *   decide  --decide device: every build kernel gated by the device's rebuild decision;
 *   the rest from the shared GPU harness (kernels/cuda/gpu_sim.cuh): integration, reductions,
 *   the device loop, graphs, capacities that grow and replay.
 * Why: an atom list costs an index load, a gather and a minimum image per listed pair; here a
 * row entry and one position load serve C pairs, at the price of pairs beyond r_c that the box
 * test lets through (the row's fill, pair_eff in the row). */
#include "../kernels/cuda/cluster_list.cuh"

#include <stdio.h>
#include <string.h>

struct ClusterProgram {
    ClusterList cl;
    int force_blocks, force_group;   /* the force kernel's blocks; of them per partial */
    double within_rc, slots;         /* of the last row count (cluster_row_pairs) */
    /* --prune: the inner rows are W's second half (rows max_clusters.. of the same stride, so a
     * capacity growth moves them too); entries per inner row; the host's decisions. inner_valid:
     * no host build since the last prune (a build sorts the atoms: the check's build too, which
     * the loop's counters never see) */
    int *count_in;
    double prune_threshold, disp_pruned;
    int inner_valid;
    long long prunes;
};

static ClusterProgram *prog_of(Sim *s) { return (ClusterProgram *)gpu_of(s)->prog; }

/* Its own option (Variant.opts: no other program has it), listed with the common ones before
 * --device, read as opts_of(s). */
struct ClusterOpts {
    double prune;   /* the inner rows' buffer beyond r_c, below delta; 0 = no pruning */
};
static const ClusterOpts *opts_of(const Sim *s) { return (const ClusterOpts *)s->opts; }

static void cluster_forces(Sim *s)
{
    GpuSim *g = gpu_of(s);
    ClusterProgram *P = prog_of(s);
    PairForceArgs A = pair_force_args(s, g);
    A.group = P->force_group;
    A.force_blocks = P->force_blocks;
    A.block0 = 0;
    ClusterPruneSpec prune = {nullptr, P->count_in, nullptr, PRUNE_OFF, 0.0};
    if (P->prune_threshold > 0) {
        prune.W = (unsigned *)g->W + (size_t)P->cl.geo.max_clusters * g->nbr_cap;
        const double buffer = opts_of(s)->prune;
        prune.rin2 = ((real)s->p.rc + buffer) * ((real)s->p.rc + buffer);
        if (g->device_mode && P->inner_valid) {   /* the device's builds set its prune_now */
            prune.mode = PRUNE_DEVICE;
            prune.flag = &g->ctrl->prune_now;
        } else {   /* host decisions, or a host build (the check's) under device decisions: prunes now */
            prune.mode = cluster_prune_due(!P->inner_valid, s->disp_acc, P->disp_pruned, P->prune_threshold)
                             ? PRUNE_NOW
                             : PRUNE_INNER;
            if (prune.mode == PRUNE_NOW) {
                P->disp_pruned = s->disp_acc;
                P->inner_valid = 1;
                if (s->production && !g->device_mode) P->prunes++;
            }
        }
    }
    cluster_force_launch(A, P->cl, prune, s->pot.kind, !s->sums_skip, g->stream);
}

/* the rows after the sort (host decision: grown and redone on overflow by gpu_build_list) */
static void launch_rows(Sim *s, GpuSim *g)
{
    cluster_list_search(&prog_of(s)->cl, g->r, s->n, g->W, g->nbr_cap, g->status, g->gate, g->stream);
    s->stats.list_threads = 128;
}

static void sort_and_table(Sim *s, GpuSim *g, const int *gate)
{
    cluster_list_sort_and_table(&prog_of(s)->cl, g->r, g->r_alt, g->v, g->v_alt, s->n, gate, g->threads, g->stream);
    g->v_parts_valid = 0;
}

static void cluster_build(Sim *s)
{
    prog_of(s)->inner_valid = 0;
    sort_and_table(s, gpu_of(s), nullptr);
    gpu_build_list(s, launch_rows);
}

/* --decide device: the same kernels, each gated by this step's rebuild (--leapfrog fused: the
 * wrap the split kick_drift would have done, first) */
static void rebuild_kernels(Sim *s, GpuSim *g)
{
    if (s->p.leapfrog == LEAPFROG_FUSED) gpu_launch_gated_wrap(s, g);
    sort_and_table(s, g, &g->ctrl->due);
    g->gate = &g->ctrl->due;
    launch_rows(s, g);
    g->gate = nullptr;
}

static void cluster_device_rebuild(Sim *s) { gpu_device_rebuild_with(s, rebuild_kernels); }

static int cluster_init(Sim *s)
{
    const Params *p = &s->p;
    const char *who = s->variant->name;
    /* 0: by N (lammps-lj on the H200 at e349b4d..ef292de: 4x1 ahead up to 16 384 atoms, 8x1 from 131 072) */
    const int C = p->icluster ? p->icluster : s->n < 65536 ? 4 : 8, Cj = p->jcluster ? p->jcluster : 1;
    if (C != 4 && C != 8)
        nbr_fail(EXIT_INPUT, "%s: --icluster %d: the force kernel has i-clusters of 4 or 8 atoms", who, C);
    if (!(Cj == 1 || Cj == C || (C == 8 && Cj == 4)))
        nbr_fail(EXIT_INPUT, "%s: --jcluster %d with --icluster %d: the force kernel takes 1 or %d%s", who, Cj, C, C,
                 C == 8 ? " or 4" : "");
    s->ran.icluster = C;   /* the row's icluster and jcluster: what ran (--jcluster 0: 1 on the GPU) */
    s->ran.jcluster = Cj;
    /* no --reorder (every build sorts) and no --layers: Sim.ran says neither runs (md_loop.c) */
    const int rc = gpu_init_opts(s, 0);         /* no cells of edge r_n */
    GpuSim *g = gpu_of(s);
    ClusterProgram *P = new ClusterProgram();
    g->prog = P;
    cluster_list_init(&P->cl, g, s->n, s->L, s->rn, C, Cj, who);
    const ClusterGeom &geo = P->cl.geo;
    /* W becomes the rows: one per cluster, `cap` entries each; the estimate: the j-units within
     * r_n of a box of edge b, about 0.8 of the i-cluster's and the j-unit's edges together (a
     * box's atoms span ~0.8 of the cube that holds them): b^3 + 6 b^2 r + 3 pi b r^2 + 4/3 pi r^3 */
    gpu_free(g, g->W, sizeof(int) * (size_t)g->nbr_cap * g->w_rows);
    const double rho = s->n / ((double)s->L * s->L * s->L), r = s->rn;
    const double b = 0.8 * (cbrt(C / rho) + (Cj > 1 ? cbrt(Cj / rho) : 0));
    const double reach = b * b * b + 6 * b * b * r + 3 * M_PI * b * r * r + 4.0 / 3.0 * M_PI * r * r * r;
    const double rows = fmin(poisson_max(rho * reach / Cj) + geo.units, (double)s->n);
    capacity_init(&g->nbr_capacity, who, "cluster-pair list", "entries per i-cluster row", "max-nbr", p->max_nbr,
                  nbr_start_estimate(s, rows), 1);
    g->nbr_cap = (int)g->nbr_capacity.cap;
    const double prune = opts_of(s)->prune;
    g->w_rows = prune > 0 ? 2 * geo.max_clusters : geo.max_clusters;
    if (prune > 0) {
        P->prune_threshold = p->rebuild_frac * prune;
        g->prune_threshold = P->prune_threshold;   /* the device loop's control block starts from it */
        P->count_in = (int *)gpu_alloc(g, sizeof(int) * (size_t)geo.max_clusters, "the inner rows' counts");
    }
    g->W = (int *)gpu_alloc(g, sizeof(int) * (size_t)g->nbr_cap * g->w_rows, "the cluster-pair rows");
    P->force_blocks = cluster_force_blocks(geo);
    P->force_group = (P->force_blocks + g->blocks - 1) / g->blocks;
    if (P->force_group > 1) pair_force_reserve(g, P->force_blocks, g->blocks);
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    s->stats.bytes = g->bytes;
    s->stats.cells_per_axis = geo.G;
    if (!p->quiet)
        printf("# gpu-cluster: %dx%d (i-cluster x j-unit), %d x %d columns of %d bins, at most %d clusters\n", C, Cj,
               geo.G, geo.G, geo.Gz, geo.max_clusters);
    return rc;
}

static void cluster_finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (g && g->prog) {
        if (prog_of(s)->count_in) gpu_free(g, prog_of(s)->count_in, sizeof(int) * (size_t)prog_of(s)->cl.geo.max_clusters);
        cluster_list_free(&prog_of(s)->cl, g);
        delete prog_of(s);
        g->prog = nullptr;
    }
    gpu_finish(s);
}

/* the covered pairs within r_n, each through its entry's own image (pair_cutoff 0) */
static void cluster_for_each_pair(Sim *s, PairFn fn, void *arg)
{
    ClusterProgram *P = prog_of(s);
    P->slots = cluster_list_pairs(&P->cl, gpu_of(s), s->n, gpu_of(s)->nbr_cap, (real)s->p.rc, fn, arg, &P->within_rc);
}

static double cluster_stage_bytes(Sim *s, Stage st)
{
    const ClusterProgram *P = prog_of(s);
    const double entries = s->stats.nbr_entries / P->cl.geo.C;   /* slots / C ~ j atoms listed */
    if (st == STAGE_LIST) return cluster_list_bytes(P->cl.geo, s->n, entries / P->cl.geo.Cj);
    if (st == STAGE_FORCE) return cluster_force_bytes(P->cl.geo, s->n, entries / P->cl.geo.Cj);
    return gpu_stage_bytes(s, st);
}

/* shape: i-cluster x j-unit as run; fill: real atoms per i-cluster slot; pair_eff: the evaluated
 * pairs within r_c; list_bpa: the rows' bytes per atom (entries stored, not the capacity) */
static void cluster_row_pairs(Sim *s, void (*put)(void *, const char *, const char *), void *ctx)
{
    GpuSim *g = gpu_of(s);
    ClusterProgram *P = prog_of(s);
    if (!g->built) return;
    int total = 0;
    CUDA_CHECK(cudaMemcpyAsync(&total, P->cl.status_units, sizeof(int), cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    if (!P->slots) cluster_for_each_pair(s, nullptr, nullptr);
    char v[32];
    snprintf(v, sizeof v, "%dx%d", P->cl.geo.C, P->cl.geo.Cj);
    put(ctx, "shape", v);
    snprintf(v, sizeof v, "%.4f", (double)s->n / ((double)total * P->cl.geo.C));
    put(ctx, "fill", v);
    snprintf(v, sizeof v, "%.4f", P->slots > 0 ? P->within_rc / P->slots : 0.0);
    put(ctx, "pair_eff", v);
    snprintf(v, sizeof v, "%.1f", 4.0 * P->slots / P->cl.geo.C / P->cl.geo.Cj / s->n);
    put(ctx, "list_bpa", v);
    if (P->prune_threshold > 0) {   /* the inner rows as the last force left them */
        double inner_rc = 0;
        const double inner = cluster_rows_pairs(&P->cl, g, (const unsigned *)g->W + (size_t)P->cl.geo.max_clusters * g->nbr_cap,
                                                P->count_in, s->n, g->nbr_cap, (real)s->p.rc, nullptr, nullptr, &inner_rc);
        snprintf(v, sizeof v, "%.4f", inner > 0 ? inner_rc / inner : 0.0);
        put(ctx, "prune_eff", v);
        snprintf(v, sizeof v, "%.1f", inner / s->n);
        put(ctx, "prune_slots", v);
        snprintf(v, sizeof v, "%lld", g->device_mode ? g->ctrl_host->prunes_prod : P->prunes);
        put(ctx, "prunes", v);
    }
}

static const Option own_rows[] = {
    {"prune", T_REAL, offsetof(ClusterOpts, prune), 0, 5, NULL, 0, "prune",
     "dynamic pruning (GROMACS's): a second, inner row per i-cluster keeps the entries within r_c + this buffer "
     "of the cluster's atoms, rewritten by the force kernel whenever the summed largest displacement since the "
     "last prune reaches --rebuild-frac of it (the rebuild rule's bound, so no pair within r_c is lost); the "
     "other steps evaluate the inner rows; 0 = off; below --delta"},
};
static const ClusterOpts own_defaults = {0.0};
/* refused at parsing, with the flags' other relations (params.c) */
static void own_check(const void *base, const void *own, const char *program)
{
    params_check_prune((const Params *)base, ((const ClusterOpts *)own)->prune, program);
}
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(ClusterOpts), &own_defaults,
                               own_check, NULL};

int main(int argc, char **argv)
{
    /* no --reorder, so no reordering (every build sorts); the shared device loop with its own
     * gated rebuild; no tuner (no KNOB_AUTOTUNE) */
    static const Variant variant = gpu_variant({
        .name = "gpu-cluster",
        .summary = "cluster-pair list (Pall and Hess 2013): atoms sorted into z-ordered columns, i-clusters of 4 or 8 "
                   "with bounding boxes, a row of j-units (atoms or clusters) with periodic images per i-cluster, a "
                   "warp per i-cluster loading each j once; no minimum image, no Newton 3; rebuilds decided on the "
                   "device",
        .knobs = KNOB_THREADS | KNOB_REDUCE | KNOB_LIST | KNOB_DECIDE | KNOB_GRAPH | KNOB_DEVICE | KNOB_LEAPFROG |
                 KNOB_CLUSTERS,
        .opts = &own,
        .check_last_force = 1,   /* --prune's inner rows change between builds */
        .max_atoms = CLUSTER_MAX_ATOMS - 1,
        .max_atoms_why = "a cluster-pair entry holds its first atom in 24 bits",
        .init = cluster_init,
        .finish = cluster_finish,
        .build = cluster_build,
        .forces = cluster_forces,
        .for_each_pair = cluster_for_each_pair,
        .device_rebuild = cluster_device_rebuild,
        .stage_bytes = cluster_stage_bytes,
        .compiler = NBR_COMPILER,
        .row_pairs = cluster_row_pairs,
    });
    return nbr_main(argc, argv, &variant);
}
