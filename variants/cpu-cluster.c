/* cpu-cluster - forces over a cluster-pair list on one core: GROMACS's 4xM CPU scheme
 * (Páll and Hess 2013; MD-Bench's cluster-pair variant).
 *
 * Why this shape: an atom list costs an index load, a gather and a minimum image per listed
 * pair, and a SIMD loop over it gathers each neighbour lane by lane. Here one 4-byte entry and
 * one periodic shift serve 4 x M pairs: a j-cluster of M atoms (M the SIMD width) is loaded as
 * three plain vector loads, once for the 4 atoms of an i-unit held in registers, and the
 * cutoff, the self cluster and padding are masks. The price: pairs beyond r_c that the box test
 * lets through (pair_eff in the row). It composes:
 *   list    kernels/cpu/cluster_list.h: atoms sorted into z-ordered columns at every build
 *           (r, v, q follow), j-clusters of M, i-units of 4, rows by bounding box, Newton 3;
 *   forces  kernels/cpu/cluster_force.h: scalar, AVX2 or AVX-512, --simd (auto: the widest);
 *           --prune b: inner rows of the entries with a pair within r_c + b, cut by the force
 *           loop every few steps (the rebuild rule's bound), read on the others: at short r_c
 *           most entries hold no pair within it (pair_eff);
 *   the rest from the shared CPU stages. */
#include "../kernels/cpu/cluster_force.h"
#include "../kernels/cpu/cpu_lists.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    CpuClusterList cl;
    int level;               /* SimdLevel run */
    real *x, *y, *z, *q, *fx, *fy, *fz;   /* n + CLUSTER_SLACK each */
    double within, slots;    /* of the last enumeration (row_pairs) */
    /* --prune: the inner rows (entries, starts per i-unit); valid: no build since they were cut
     * (the check's build sorts the atoms too); the displacement sum at that prune */
    unsigned *ent_in;
    int *row_in;
    size_t in_cap;
    int inner_valid;
    real rin2;
    double threshold, disp_pruned;
    long long prunes;
} Ctx;

/* Its own option (Variant.opts: no other program has it), listed with the common ones before
 * --device; the row's simd pair is what ran (Sim.ran_opts: auto resolved). */
typedef struct {
    int simd;      /* SimdLevel */
    double prune;  /* the inner rows' buffer beyond r_c, below delta; 0 = no pruning */
} CpuClusterOpts;
static const Option own_rows[] = {
    {"simd", T_ENUM, offsetof(CpuClusterOpts, simd), 0, 0, simd_names, 0, "simd",
     "the force loop: scalar (portable C), avx2 (AVX2 + FMA), avx512 (AVX-512F/VL) or auto (the widest this CPU "
     "has); one this CPU lacks is refused"},
    {"prune", T_REAL, offsetof(CpuClusterOpts, prune), 0, 5, NULL, 0, "prune",
     "dynamic pruning (GROMACS's): inner rows keep the entries with a pair within r_c + this buffer, cut by the "
     "force loop whenever the summed largest displacement since the last cut reaches --rebuild-frac of it (the "
     "rebuild rule's bound, so no pair within r_c is lost); the other steps read them; 0 = off; below --delta"},
};
static const CpuClusterOpts own_defaults = {SIMD_AUTO, 0.0};
/* refused at parsing, with the flags' other relations (params.c) */
static void own_check(const void *base, const void *own, const char *program)
{
    params_check_prune(base, ((const CpuClusterOpts *)own)->prune, program);
}
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(CpuClusterOpts), &own_defaults,
                               own_check, NULL};

static int init(Sim *s)
{
    const Params *p = &s->p;
    const char *who = s->variant->name;
    int level = ((const CpuClusterOpts *)s->opts)->simd;
    if (level == SIMD_AUTO)
        level = cluster_simd_available(SIMD_AVX512) ? SIMD_AVX512 : cluster_simd_available(SIMD_AVX2) ? SIMD_AVX2
                                                                                                      : SIMD_SCALAR;
    else if (!cluster_simd_available(level))
        nbr_fail(EXIT_INPUT, "%s: --simd %s: this CPU lacks it (--simd auto picks the widest it has)", who,
                 simd_names[level]);
    const int M = cluster_simd_width(level);
    if (p->icluster && p->icluster != CLUSTER_I)
        nbr_fail(EXIT_INPUT, "%s: --icluster %d: the 4xM kernels have i-units of 4 atoms (or 0)", who, p->icluster);
    if (p->jcluster && !cluster_simd_takes(level, p->jcluster))
        nbr_fail(EXIT_INPUT, "%s: --jcluster %d: --simd %s in %s takes j-clusters of %s (or 0)", who, p->jcluster,
                 simd_names[level], NBR_PRECISION, cluster_simd_takes(level, 8) ? "4 or 8" : "4");
    /* the row records what ran (no --reorder: every build sorts, Sim.ran's reorder is 0) */
    ((CpuClusterOpts *)s->ran_opts)->simd = level;
    s->ran.jcluster = p->jcluster ? p->jcluster : M;
    s->ran.icluster = CLUSTER_I;
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    c->level = level;
    const double prune = ((const CpuClusterOpts *)s->opts)->prune;
    ((CpuClusterOpts *)s->ran_opts)->prune = prune;
    if (prune > 0) {
        c->threshold = p->rebuild_frac * prune;
        c->rin2 = cluster_prune_reach2(p->rc, prune);
    }
    cpu_cluster_init(&c->cl, s, s->ran.jcluster);
    if (prune > 0)
        c->row_in = nbr_alloc(sizeof(int) * ((size_t)c->cl.cap_clusters * (c->cl.C / CLUSTER_I) + 1), "the inner rows");
    real **arr[] = {&c->x, &c->y, &c->z, &c->q, &c->fx, &c->fy, &c->fz};
    for (int k = 0; k < 7; k++) *arr[k] = calloc(s->n + CLUSTER_SLACK, sizeof(real));
    for (int k = 0; k < 7; k++)
        if (!*arr[k]) return 1;
    s->stats.cells_per_axis = c->cl.G;
    if (!p->quiet)
        printf("# cpu-cluster: %dx%d (i-unit x j-cluster), --simd %s, %d x %d columns\n", CLUSTER_I, s->ran.jcluster,
               simd_names[level], c->cl.G, c->cl.G);
    return 0;
}

static void finish(Sim *s)
{
    Ctx *c = s->ctx;
    if (!c) return;
    cpu_cluster_free(&c->cl);
    real *arr[] = {c->x, c->y, c->z, c->q, c->fx, c->fy, c->fz};
    for (int k = 0; k < 7; k++) free(arr[k]);
    free(c->ent_in);
    free(c->row_in);
    free(c);
    s->ctx = NULL;
}

static void build(Sim *s)
{
    Ctx *c = s->ctx;
    cpu_cluster_build(&c->cl, s);
    memcpy(c->q, s->q, sizeof(real) * s->n);   /* the charges moved with their atoms */
    c->slots = 0;
    c->inner_valid = 0;
    s->stats.nbr_entries = 2 * c->cl.slots;    /* full-list equivalent of the slots evaluated */
    s->stats.bytes = state_bytes(s) + cpu_cluster_bytes(&c->cl) + 7.0 * sizeof(real) * (s->n + CLUSTER_SLACK);
}

/* --prune: A reads the inner rows, or (after a build, or once the bound is reached) cuts them
 * from the rows as it goes (the scalar loop first, in a pass of its own) */
static void prune_or_read(Sim *s, Ctx *c, ClusterForceArgs *A)
{
    if (cpu_cluster_prune_due(!c->inner_valid, s->disp_acc, c->disp_pruned, c->threshold)) {
        const size_t need = (size_t)c->cl.row_start[c->cl.nunits];   /* at most every entry kept */
        if (need > c->in_cap) {
            free(c->ent_in);
            c->in_cap = need + need / 2;
            c->ent_in = nbr_alloc(sizeof(unsigned) * c->in_cap, "the inner rows");
        }
        A->ent_out = c->ent_in;
        A->row_out = c->row_in;
        if (c->level == SIMD_SCALAR) cluster_prune_scalar(A);
        c->disp_pruned = s->disp_acc;
        c->inner_valid = 1;
        if (s->production) c->prunes++;
        if (c->level != SIMD_SCALAR) return;
        A->ent_out = NULL;
    }
    A->row_start = c->row_in;
    A->ent = c->ent_in;
}

static void forces(Sim *s)
{
    Ctx *c = s->ctx;
    const int n = s->n;
    for (int i = 0; i < n; i++) {   /* positions into structure-of-arrays form, forces zeroed */
        c->x[i] = s->r[i].x; c->y[i] = s->r[i].y; c->z[i] = s->r[i].z;
    }
    memset(c->fx, 0, sizeof(real) * (n + CLUSTER_SLACK));
    memset(c->fy, 0, sizeof(real) * (n + CLUSTER_SLACK));
    memset(c->fz, 0, sizeof(real) * (n + CLUSTER_SLACK));
    const CpuClusterList *cl = &c->cl;
    ClusterForceArgs A = {c->x, c->y, c->z, c->q, c->fx, c->fy, c->fz, cl->unit_first, cl->unit_count,
                          cl->row_start, cl->ent, cl->nunits, cl->C, s->L, s->pot, NULL, NULL, c->rin2};
    if (c->threshold > 0) prune_or_read(s, c, &A);
    double u = 0, w = 0;
    if (c->level == SIMD_AVX512) cluster_force_avx512(&A, &u, &w);
    else if (c->level == SIMD_AVX2) cluster_force_avx2(&A, &u, &w);
    else cluster_force_scalar(&A, &u, &w);
    for (int i = 0; i < n; i++) {
        s->a[i].x = c->fx[i]; s->a[i].y = c->fy[i]; s->a[i].z = c->fz[i];
    }
    s->props.upot_sum = u;
    s->props.virial_sum = w;
}

/* the covered pairs within r_n, each through its entry's own image */
static void for_each_pair(Sim *s, PairFn fn, void *arg)
{
    Ctx *c = s->ctx;
    c->slots = cpu_cluster_pairs(&c->cl, s, c->cl.row_start, c->cl.ent, fn, arg, &c->within);
}

/* The fewest bytes a stage moves, for the GB/s columns. Force: the positions in and the forces
 * out (3 values each per atom, charges not counted), the rows read (the inner ones where --prune
 * cut them) and the units' first, count and row start. List: r, v and q read and written by the
 * sort, each cluster's box, first and count, the units' tables and the rows written. */
static double stage_bytes(Sim *s, Stage st)
{
    const Ctx *c = s->ctx;
    const double n = s->n, R = sizeof(real), units = c->cl.nunits, rows = c->cl.row_start[c->cl.nunits];
    if (st == STAGE_FORCE)
        return 6 * R * n + 4.0 * (c->threshold > 0 && c->inner_valid ? c->row_in[c->cl.nunits] : rows) + 12.0 * units;
    if (st == STAGE_LIST) return 2 * 7 * R * n + (6 * R + 8) * c->cl.ncl + 12.0 * units + 4.0 * rows;
    return -1;
}

/* shape: i-unit x j-cluster (the simd column says which loop ran); fill: real atoms per j-cluster slot;
 * pair_eff: evaluated pairs within r_c; list_bpa: the rows' bytes per atom */
static void row_pairs(Sim *s, void (*put)(void *, const char *, const char *), void *ctx)
{
    Ctx *c = s->ctx;
    if (!c || !c->cl.ncl) return;
    if (!c->slots) for_each_pair(s, NULL, NULL);
    char v[32];
    snprintf(v, sizeof v, "%dx%d", CLUSTER_I, c->cl.C);
    put(ctx, "shape", v);
    snprintf(v, sizeof v, "%.4f", (double)s->n / ((double)c->cl.ncl * c->cl.C));
    put(ctx, "fill", v);
    snprintf(v, sizeof v, "%.4f", c->slots > 0 ? c->within / c->slots : 0.0);
    put(ctx, "pair_eff", v);
    snprintf(v, sizeof v, "%.2f", 4.0 * (c->cl.row_start[c->cl.nunits] + c->cl.nunits + 1) / s->n);
    put(ctx, "list_bpa", v);
    if (c->threshold > 0 && c->inner_valid) {   /* the inner rows as the last force left them */
        double within = 0;
        const double slots = cpu_cluster_pairs(&c->cl, s, c->row_in, c->ent_in, NULL, NULL, &within);
        snprintf(v, sizeof v, "%.4f", slots > 0 ? within / slots : 0.0);
        put(ctx, "prune_eff", v);
        snprintf(v, sizeof v, "%.1f", 2 * slots / s->n);   /* full-list equivalent, as nbr_per_atom */
        put(ctx, "prune_slots", v);
        snprintf(v, sizeof v, "%lld", c->prunes);
        put(ctx, "prunes", v);
    }
}

static const Variant variant = {
    .name = "cpu-cluster",
    .summary = "cluster-pair list (GROMACS 4xM): z-ordered columns, j-clusters of the SIMD width M, i-units of 4, "
               "a row of j-clusters with periodic images per i-unit, Newton 3; scalar, AVX2 or AVX-512 (--simd); "
               "dynamic pruning (--prune)",
    .knobs = KNOB_CLUSTERS,
    .opts = &own,
    .pair_multiplicity = 1,
    .check_last_force = 1,   /* --prune's inner rows change between builds */
    .max_atoms = CLUSTER_MAX_ATOMS - CLUSTER_SLACK,
    .max_atoms_why = "a cluster-pair entry holds its first atom in 24 bits",
    .init = init,
    .finish = finish,
    CPU_COMMON_STAGES,
    .build = build,
    .forces = forces,
    .for_each_pair = for_each_pair,
    .row_pairs = row_pairs,
    .stage_bytes = stage_bytes,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
