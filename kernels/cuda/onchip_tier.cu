/* onchip_tier.cu - gpu-onchip's list for N, and where its system lives during a chunk
 * (onchip.cuh): --tier auto is the grid (docs/onchip.md); a block or cluster tier that does not
 * fit, at the start or after a grown capacity, stops with one line naming the limit
 * (EXIT_CAPACITY: an autotuner's trial fails and the search goes on). t_p (--tp 0: by tier and
 * N) and the cluster's block follow the tier. */
#include "onchip.cuh"

/* auto takes cells above this N where 4 cells fit per axis: below it the n2 build is a small
 * part of a chunk (results/h200/onchip.md: the n2 build's cost shows above ~2000 atoms), and
 * with 3 per axis the 27 cells are the whole box, every atom tested as by n2. */
enum { CELLS_AUTO_MIN_N = 2048 };

int onchip_list_kind(const Sim *s, int *cells_per_axis)
{
    /* the margin: the cell of (x + L/2) M / L, rounded, never two apart for atoms within r_n */
    const int M = (int)floor(s->L / (s->rn * (1 + 1e-5)));
    int kind = s->p.list_method;
    if (kind == LIST_AUTO) kind = s->n > CELLS_AUTO_MIN_N && M >= 4 ? LIST_CELLS : LIST_N2;
    if (kind == LIST_CELLS && M < 3)
        nbr_fail(EXIT_INPUT, "%s: --list cells needs 3 cells of edge >= r_n = %.4g per axis, but L = %.4g < 3 r_n: use "
                 "--list n2 or raise --ne", s->variant->name, s->rn, s->L);
    *cells_per_axis = M;
    return kind;
}

static int lanes(Sim *s, const OnchipState *oc, int tier)
{
    if (s->p.tp > 0) return s->p.tp;
    if (tier == TIER_GRID) {
        /* doubled while N t_p stays within 1024 threads an SM and either a lane keeps 4 or more of
         * the expected neighbours or the grid has fewer than 7 warps an SM (the sweep of onchip.md,
         * lammps-lj float: 32 at 512 and 1728, 16 at 4096, 4 at 32768, 2 at 64000; SP 4096: 8) */
        const long most = 1024L * gpu_of(s)->prop.multiProcessorCount, few = most * 7 / 32;
        const double nb = neighbours_within(s, s->rn);
        int tp = 1;
        while (tp < 32 && (long)s->n * 2 * tp <= most && (8 * tp <= nb || (long)s->n * tp < few)) tp *= 2;
        return tp;
    }
    if (tier == TIER_CLUSTER) {   /* up to 16 lanes, as many as 1024 threads give the own atoms */
        int tp = 16;           /* (onchip.md: 512 / 16 blocks best at 16, 1728 at 8, 4096 at 4) */
        while (tp > 1 && tp * ClusterSync::most_owned(s->n, oc->cluster) > 1024) tp /= 2;
        return tp;
    }
    int tp = 1;
    while (tp < 8 && 2 * tp * s->n <= ONCHIP_BLOCK_THREADS) tp *= 2;
    return tp;
}

/* Whether the cluster tier fits at the current capacity with C blocks: its shared memory per
 * block, and a cluster of such blocks on the device (cudaOccupancyMaxActiveClusters). Where it
 * does not and `hard`, one line naming the limit. */
static int cluster_fits_c(Sim *s, OnchipState *oc, int C, int hard)
{
    const int own = ClusterSync::most_owned(s->n, C);
    oc->cluster = C;
    const int tp = lanes(s, oc, TIER_CLUSTER);
    int threads = (own * tp + 31) / 32 * 32;
    threads = threads < 32 ? 32 : threads > 1024 ? 1024 : threads;
    oc->cluster_threads = threads;
    const RowCells<row16> &cl = oc->store.cells;
    const int cap = oc->store.rows.cap, ncell = cl.m * cl.m * cl.m;
    const size_t need = oc_smem_cluster(s->n, C, cap, ncell, cl.cap).end, cells = oc_smem(0, 0, 0, 0, ncell, cl.cap).end;
    if (need > (size_t)oc->limit[TIER_CLUSTER]) {
        if (hard) {
            const double per_atom = 2.0 * sizeof(real4) + (sizeof(real4) + sizeof(int) + 2.0 * cap) / C;
            nbr_fail(EXIT_CAPACITY, "%s: --tier cluster: N = %d atoms (%d per block of a cluster of %d) with room for "
                     "%d neighbours each (and %zu bytes of cells: %d^3 of %d slots) need %zu bytes of shared memory "
                     "per block, over the %d one block may have on this device (N <= %d at this capacity): use --tier "
                     "grid or auto", s->variant->name, s->n, own, C, cap, cells, cl.m, cl.cap, need, oc->limit[TIER_CLUSTER],
                     (int)((oc->limit[TIER_CLUSTER] - (double)cells - 2 * cap - 64) / per_atom));
        }
        return 0;
    }
    int nclusters = 0;
    const cudaError_t e =
        chunk_resident(TIER_CLUSTER, onchip_kernel(TIER_CLUSTER, s->pot.kind, threads), C, threads, need, &nclusters);
    if (e != cudaSuccess || nclusters < 1) {
        (void)cudaGetLastError();
        if (hard)
            nbr_fail(EXIT_CAPACITY, "%s: --tier cluster: a cluster of %d blocks of %d threads with %zu bytes of shared "
                     "memory each does not fit on this device (%s): use a smaller --cluster, --tier grid or auto",
                     s->variant->name, C, threads, need,
                     e != cudaSuccess ? cudaGetErrorString(e) : "no such cluster can be resident");
        return 0;
    }
    return 1;
}

/* --tier cluster: with --cluster C, else 16 blocks (faster than 8 at 512 and 1728 on the H200:
 * results/h200/onchip.md), else 8 (the portable size) where 16 do not fit; where none fits, one
 * line naming the limit. */
static void fit_cluster(Sim *s, OnchipState *oc)
{
    const int C = onchip_opts(s)->cluster;
    if (C > 0) (void)cluster_fits_c(s, oc, C, 1);
    else if (!cluster_fits_c(s, oc, 16, 0)) (void)cluster_fits_c(s, oc, 8, 1);
}

/* The tier for the current capacity (auto: the grid); the row's tier, C and t_p are what ran. */
void onchip_choose_tier(Sim *s, OnchipState *oc)
{
    oc->grid.blocks = 0;   /* the grid's plan follows the capacities */
    const int asked = onchip_opts(s)->tier;
    if (asked == TIER_CLUSTER) {
        fit_cluster(s, oc);
    } else if (asked == TIER_BLOCK) {
        const int cap = oc->store.rows.cap;
        const size_t need = oc_smem_block(s->n, cap).end;
        if (need > (size_t)oc->limit[TIER_BLOCK])
            nbr_fail(EXIT_CAPACITY, "%s: --tier block: N = %d atoms with room for %d neighbours each need %zu bytes of "
                     "shared memory, over the %d one block may have on this device (N <= %d at this capacity): use "
                     "--tier grid or auto", s->variant->name, s->n, cap, need, oc->limit[TIER_BLOCK],
                     (int)(oc->limit[TIER_BLOCK] / (3 * sizeof(real4) + sizeof(int) + 2 * (size_t)cap)));
    }
    oc->tier = asked == TIER_AUTO ? TIER_GRID : asked;
    oc->tp = lanes(s, oc, oc->tier);
    onchip_ran(s)->tier = oc->tier;
    onchip_ran(s)->cluster = oc->tier == TIER_CLUSTER ? oc->cluster : 0;
    s->ran.tp = oc->tp;
}

/* Per tier the opt-in limit less the static shared memory (the LJ instance's), granted to its
 * every instance. */
void onchip_limits(Sim *s, OnchipState *oc)
{
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->p.device));
    for (int tier : {TIER_BLOCK, TIER_GRID, TIER_CLUSTER}) {
        cudaFuncAttributes fa;
        CUDA_CHECK(cudaFuncGetAttributes(&fa, onchip_kernel(tier, POT_LJ, 1024)));
        oc->limit[tier] = optin - (int)fa.sharedSizeBytes;
        for (int bound : {512, 1024})
            CUDA_CHECK(chunk_grant(tier, onchip_kernel(tier, s->pot.kind, bound), oc->limit[tier]));
    }
}

/* The grid tier's blocks, staging, shared memory and instance for the current capacities: every
 * group one atom where all blocks of --threads are resident with the rows in shared memory (staged
 * where the positions and cells fit too), the 128-register instance where it keeps them resident;
 * else as many resident blocks as fit, each group serving several atoms (docs/onchip.md). None
 * fitting stops the run with one line. */
static void grid_plan(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int threads = s->p.threads, gpb = threads / oc->tp, sms = g->prop.multiProcessorCount;
    const RowCells<row16> &cl = oc->store.cells;
    const int want = blocks_for((long)s->n * oc->tp, threads), ncell = cl.m * cl.m * cl.m, cap = oc->store.rows.cap;
    for (int bound : {512, 1024}) {
        if (threads > bound) continue;
        for (int stage = 1; stage >= 0; stage--) {
            int blocks = want;
            for (int tries = 0; tries < 8; tries++) {
                const int nk = (s->n + blocks * gpb - 1) / (blocks * gpb);
                const size_t smem = oc_smem_grid(s->n, nk * gpb, cap, stage, ncell, cl.cap).end;
                int per_sm = 0;
                if (smem <= (size_t)oc->limit[TIER_GRID])
                    CUDA_CHECK(chunk_resident(TIER_GRID, onchip_kernel(TIER_GRID, s->pot.kind, bound), 0, threads, smem,
                                              &per_sm));
                const int most = per_sm * sms;
                if (most < 1 || ((stage || bound == 512) && most < want)) break;
                if (blocks <= most) {
                    oc->grid = {blocks, stage, bound, smem};
                    return;
                }
                blocks = most;
            }
        }
    }
    nbr_fail(EXIT_CAPACITY, "%s: --tier grid: no block of --threads %d with --tp %d (%d atoms a block) and room for %d "
             "neighbours each fits in the %d bytes of shared memory one block may have: lower --threads or raise --tp",
             s->variant->name, threads, oc->tp, gpb, cap, oc->limit[TIER_GRID]);
}

/* The chunk on the tier chosen; the grid's plan made at its first chunk and after a grown capacity. */
void onchip_chunk_launch(Sim *s, OnchipState *oc, const ChunkArgs &A)
{
    const RowCells<row16> &cl = oc->store.cells;
    const int cap = oc->store.rows.cap, ncell = cl.m * cl.m * cl.m;
    ChunkArgs B = A;
    int blocks = 1, threads = ONCHIP_BLOCK_THREADS, bound = 1024;
    size_t smem;
    if (oc->tier == TIER_BLOCK) {
        smem = oc_smem_block(s->n, cap).end;
    } else if (oc->tier == TIER_CLUSTER) {
        blocks = oc->cluster;
        threads = bound = oc->cluster_threads;
        smem = oc_smem_cluster(s->n, oc->cluster, cap, ncell, cl.cap).end;
    } else {
        if (!oc->grid.blocks) grid_plan(s, oc);
        B.stage = oc->grid.stage;
        blocks = oc->grid.blocks, threads = s->p.threads, bound = oc->grid.bound, smem = oc->grid.smem;
    }
    void *args[] = {&B};
    CUDA_CHECK(chunk_launch(oc->tier, onchip_kernel(oc->tier, s->pot.kind, bound), blocks, threads, smem,
                            gpu_of(s)->stream, args));
    LAUNCH_CHECK("chunk_kernel");
}
