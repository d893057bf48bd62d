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
} Ctx;

/* Its own option (Variant.opts: no other program has it), listed with the common ones before
 * --device; the row's simd pair is what ran (Sim.ran_opts: auto resolved). */
typedef struct {
    int simd;   /* SimdLevel */
} CpuClusterOpts;
static const Option own_rows[] = {
    {"simd", T_ENUM, offsetof(CpuClusterOpts, simd), 0, 0, simd_names, 0, "simd",
     "the force loop: scalar (portable C), avx2 (AVX2 + FMA), avx512 (AVX-512F/VL) or auto (the widest this CPU "
     "has); one this CPU lacks is refused"},
};
static const CpuClusterOpts own_defaults = {SIMD_AUTO};
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(CpuClusterOpts), &own_defaults,
                               NULL, NULL};

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
    if (p->jcluster && level != SIMD_SCALAR && p->jcluster != M)
        nbr_fail(EXIT_INPUT, "%s: --jcluster %d: --simd %s in %s takes %d (the vector's lanes) or 0", who, p->jcluster,
                 simd_names[level], NBR_PRECISION, M);
    if (p->jcluster && p->jcluster != 4 && p->jcluster != 8)
        nbr_fail(EXIT_INPUT, "%s: --jcluster %d: the scalar loop takes j-clusters of 4 or 8 (or 0)", who, p->jcluster);
    /* the row records what ran (no --reorder: every build sorts, Sim.ran's reorder is 0) */
    ((CpuClusterOpts *)s->ran_opts)->simd = level;
    s->ran.jcluster = p->jcluster ? p->jcluster : M;
    s->ran.icluster = CLUSTER_I;
    Ctx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    c->level = level;
    cpu_cluster_init(&c->cl, s, s->ran.jcluster);
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
    free(c);
    s->ctx = NULL;
}

static void build(Sim *s)
{
    Ctx *c = s->ctx;
    cpu_cluster_build(&c->cl, s);
    memcpy(c->q, s->q, sizeof(real) * s->n);   /* the charges moved with their atoms */
    c->slots = 0;
    s->stats.nbr_entries = 2 * c->cl.slots;    /* full-list equivalent of the slots evaluated */
    s->stats.bytes = state_bytes(s) + cpu_cluster_bytes(&c->cl) + 7.0 * sizeof(real) * (s->n + CLUSTER_SLACK);
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
    const ClusterForceArgs A = {c->x, c->y, c->z, c->q, c->fx, c->fy, c->fz, cl->unit_first, cl->unit_count,
                                cl->row_start, cl->ent, cl->nunits, cl->C, s->L, s->pot};
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
    c->slots = cpu_cluster_pairs(&c->cl, s, fn, arg, &c->within);
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
}

static const Variant variant = {
    .name = "cpu-cluster",
    .summary = "cluster-pair list (GROMACS 4xM): z-ordered columns, j-clusters of the SIMD width M, i-units of 4, "
               "a row of j-clusters with periodic images per i-unit, Newton 3; scalar, AVX2 or AVX-512 (--simd)",
    .knobs = KNOB_CLUSTERS,
    .opts = &own,
    .pair_multiplicity = 1,
    .max_atoms = CLUSTER_MAX_ATOMS - CLUSTER_SLACK,
    .max_atoms_why = "a cluster-pair entry holds its first atom in 24 bits",
    .init = init,
    .finish = finish,
    CPU_COMMON_STAGES,
    .build = build,
    .forces = forces,
    .for_each_pair = for_each_pair,
    .row_pairs = row_pairs,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
