/* onchip_tier.cu - where gpu-onchip's system lives during a chunk (onchip.cuh), and what is
 * refused: --tier auto = grid (the fastest on the H200 at every N: onchip_choose_tier); --tier
 * block or cluster that does not fit (shared memory per block, or no such cluster resident on
 * the device) stops with one line naming the limit (EXIT_CAPACITY), which an autotuner trial
 * reports as failed and the search goes on. A grown capacity chooses again, so a block or
 * cluster tier that no longer fits stops. The lanes per atom t_p (--tp 0: by tier and N) and the
 * cluster's threads per block follow the tier. */
#include "onchip.cuh"

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
        while (tp > 1 && tp * onchip_cluster_own(s->n, oc->cluster) > 1024) tp /= 2;
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
    const int own = onchip_cluster_own(s->n, C);
    oc->cluster = C;
    const int tp = lanes(s, oc, TIER_CLUSTER);
    int threads = (own * tp + 31) / 32 * 32;
    threads = threads < 32 ? 32 : threads > 1024 ? 1024 : threads;
    oc->cluster_threads = threads;
    const int ncell = oc->cm * oc->cm * oc->cm;
    const size_t need = oc_smem_cluster(s->n, C, oc->cap, ncell, oc->ccap).end;
    const size_t cells = oc_smem(0, 0, 0, 0, ncell, oc->ccap).end;
    if (need > (size_t)oc->cluster_limit) {
        if (hard) {
            const double per_atom = 2.0 * sizeof(real4) + (sizeof(real4) + sizeof(int) + 2.0 * oc->cap) / C;
            nbr_fail(EXIT_CAPACITY, "%s: --tier cluster: N = %d atoms (%d per block of a cluster of %d) with room for "
                     "%d neighbours each (and %zu bytes of cells: %d^3 of %d slots) need %zu bytes of shared memory "
                     "per block, over the %d one block may have on this device (N <= %d at this capacity): use --tier "
                     "grid or auto", s->variant->name, s->n, own, C, oc->cap, cells, oc->cm, oc->ccap, need,
                     oc->cluster_limit, (int)((oc->cluster_limit - (double)cells - 2 * oc->cap - 64) / per_atom));
        }
        return 0;
    }
    int nclusters = 0;
    const cudaError_t e = onchip_cluster_occupancy(s->pot.kind, C, threads, need, &nclusters);
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

/* The tier for the current capacity: auto takes the grid, at every N: on the H200, with t_p by
 * N (lanes), it is as fast as the cluster of 16 at 512 atoms (lammps-lj float: 3.8-4.0 us a
 * step against 4.0; the block 28) and faster above (1728: 5.9 against 13.4; onchip.md).
 * --tier block or cluster runs there where it fits and stops with one line where it does not. */
void onchip_choose_tier(Sim *s, OnchipState *oc)
{
    oc->grid_blocks = 0;   /* the grid's plan follows the capacities */
    const int asked = onchip_opts(s)->tier;
    if (asked == TIER_CLUSTER) {
        fit_cluster(s, oc);
        oc->tier = TIER_CLUSTER;
        oc->tp = lanes(s, oc, oc->tier);
        onchip_ran(s)->tier = oc->tier;   /* the CSV row's tier, cluster and tp: what ran */
        onchip_ran(s)->cluster = oc->cluster;
        s->ran.tp = oc->tp;
        return;
    }
    if (asked == TIER_BLOCK) {
        const size_t need = oc_smem_block(s->n, oc->cap).end;
        if (need > (size_t)oc->smem_limit)
            nbr_fail(EXIT_CAPACITY, "%s: --tier block: N = %d atoms with room for %d neighbours each need %zu bytes of "
                     "shared memory, over the %d one block may have on this device (N <= %d at this capacity): use "
                     "--tier grid or auto", s->variant->name, s->n, oc->cap, need, oc->smem_limit,
                     (int)(oc->smem_limit / (3 * sizeof(real4) + sizeof(int) + 2 * (size_t)oc->cap)));
    }
    oc->tier = asked == TIER_BLOCK ? TIER_BLOCK : TIER_GRID;
    oc->tp = lanes(s, oc, oc->tier);
    onchip_ran(s)->tier = oc->tier;
    onchip_ran(s)->cluster = 0;
    s->ran.tp = oc->tp;
}

void onchip_limits(Sim *s, OnchipState *oc)
{
    int optin = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, s->p.device));
    oc->smem_limit = onchip_block_prepare(optin, s->pot.kind);
    oc->cluster_limit = onchip_cluster_prepare(optin, s->pot.kind);
    oc->grid_limit = onchip_grid_prepare(optin, s->pot.kind);
    oc->block_threads = ONCHIP_BLOCK_THREADS;
}

/* The grid tier's blocks, staging, shared memory and kernel instance for the current capacities:
 * every group one atom where the blocks of --threads can all be resident with the lists in shared
 * memory (each group its atom's list; staged, as well the positions and the cell grid, where that
 * still keeps every block resident); else as many resident blocks as fit, each group serving
 * several atoms. The instance of 128 registers a thread (oc_by_bound 512) where it keeps every
 * block resident, else the one of 64, which keeps more blocks resident (lammps-lj 32768: 39.6 us
 * a step with 64 registers, 55.7 with 128 and half the blocks). None fitting at all stops the run
 * with one line. */
static void grid_plan(Sim *s, OnchipState *oc)
{
    GpuSim *g = gpu_of(s);
    const int threads = s->p.threads, gpb = threads / oc->tp, sms = g->prop.multiProcessorCount;
    const int want = blocks_for((long)s->n * oc->tp, threads), ncell = oc->cm * oc->cm * oc->cm;
    for (int bound : {512, 1024}) {
        if (threads > bound) continue;
        for (int stage = 1; stage >= 0; stage--) {
            int blocks = want;
            for (int tries = 0; tries < 8; tries++) {
                const int nk = (s->n + blocks * gpb - 1) / (blocks * gpb);
                const size_t smem = oc_smem_grid(s->n, nk * gpb, oc->cap, stage, ncell, oc->ccap).end;
                const int most =
                    smem <= (size_t)oc->grid_limit ? onchip_grid_per_sm(s->pot.kind, threads, smem, bound) * sms : 0;
                if (most < 1 || ((stage || bound == 512) && most < want)) break;
                if (blocks <= most) {
                    oc->grid_blocks = blocks;
                    oc->grid_stage = stage;
                    oc->grid_smem = smem;
                    oc->grid_bound = bound;
                    return;
                }
                blocks = most;
            }
        }
    }
    nbr_fail(EXIT_CAPACITY, "%s: --tier grid: no block of --threads %d with --tp %d (%d atoms a block) and room for %d "
             "neighbours each fits in the %d bytes of shared memory one block may have: lower --threads or raise --tp",
             s->variant->name, threads, oc->tp, gpb, oc->cap, oc->grid_limit);
}

/* The chunk on the tier chosen; the grid's plan made at its first chunk and after a grown capacity. */
void onchip_chunk_launch(Sim *s, OnchipState *oc, const ChunkArgs &A)
{
    GpuSim *g = gpu_of(s);
    if (oc->tier == TIER_BLOCK) {
        onchip_block_launch(A, s->pot.kind, oc->block_threads, oc_smem_block(s->n, oc->cap).end, g->stream);
    } else if (oc->tier == TIER_CLUSTER) {
        onchip_cluster_launch(A, s->pot.kind, oc->cluster, oc->cluster_threads,
                              oc_smem_cluster(s->n, oc->cluster, oc->cap, oc->cm * oc->cm * oc->cm, oc->ccap).end,
                              g->stream);
    } else {
        if (!oc->grid_blocks) grid_plan(s, oc);
        ChunkArgs B = A;
        B.stage = oc->grid_stage;
        onchip_grid_launch(B, s->pot.kind, oc->grid_blocks, s->p.threads, oc->grid_smem, oc->grid_bound, g->stream);
    }
    LAUNCH_CHECK("chunk_kernel");
}
