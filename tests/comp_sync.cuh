/* comp_sync.cuh - group "sync" of test-components: the chunk kernels' sync and reduce policies
 * (chunk_sync.cuh: BlockSync, GridSync, ClusterSync) in a kernel of their own, as a chunk kernel
 * calls them: over 6 steps every thread's step_max must be the largest of all threads' values of
 * that step (bit for bit: a maximum), and the chunk's totals in the policy's leader the host's
 * sums (of integers: exact) and maxima. Every thread's value is a fixed function of its index and
 * the step, so the largest falls in a different block and warp each step. Shapes: one block of
 * 1024 threads; a cooperative grid of up to 2 blocks of 256 per SM; clusters of 2, 8 and 16 blocks
 * of 256 (16 where the device holds such a cluster, else the line says it was not run). */

enum { SYNC_STEPS = 6 };

__host__ __device__ inline double sync_value(int t, int k)
{
    return (double)(((unsigned)t * 2654435761u + (unsigned)k * 40503u) % 100003u) * 0.25;
}

__host__ __device__ inline ChunkSums sync_sums(int t)
{
    return ChunkSums{(double)t, 2.0 * t, (double)(t % 7), 1.0, (double)(t % 3), (t * 7919) % 10007, t % 1000};
}

/* t: the thread's index in the launch (a cluster launch is one cluster: blockIdx.x its rank) */
template <class P>
__global__ void sync_kernel(ChunkScratch *scratch, double *seen, ChunkSums *tot)
{
    const int t = blockIdx.x * blockDim.x + threadIdx.x, nthr = gridDim.x * blockDim.x;
    if (P::grid && P::leader()) GridSync::clear(scratch);
    P::begin();
    P::sync();
    for (int k = 0; k < SYNC_STEPS; k++) {
        P::before_forces(0, k, true);   /* no positions: the cluster's barrier expects the slots alone */
        seen[(size_t)k * nthr + t] = P::step_max(scratch, k, sync_value(t, k));
    }
    const ChunkSums T = P::totals(scratch, sync_sums(t));
    if (P::leader()) *tot = T;
}

template <class P>
static void sync_case(const char *what, int blocks, int threads)
{
    const void *fn = (const void *)sync_kernel<P>;
    cuda_or_die(P::grant(fn, 0), "grant");
    int most = 0;
    cuda_or_die(P::resident(fn, blocks, threads, 0, &most), "occupancy");
    char line[400];
    if (most < 1) {   /* not a failure of the policy: the device holds no such launch */
        snprintf(line, sizeof line, "sync %s: not run, this device holds no launch of %d blocks of %d threads", what,
                 blocks, threads);
        expect(!P::replicated || blocks > 8, line);   /* portable cluster sizes must run */
        return;
    }
    const int nthr = blocks * threads;
    ChunkScratch *d_scratch = to_device(std::vector<ChunkScratch>(1, ChunkScratch{}));
    double *d_seen = to_device(std::vector<double>((size_t)SYNC_STEPS * nthr, -1.0));
    ChunkSums *d_tot = to_device(std::vector<ChunkSums>(1, ChunkSums{}));
    void *args[] = {&d_scratch, &d_seen, &d_tot};
    cuda_or_die(P::launch(fn, blocks, threads, 0, 0, args), "sync_kernel launch");
    const std::vector<double> seen = from_device(d_seen, (size_t)SYNC_STEPS * nthr, "sync_kernel");
    const ChunkSums tot = from_device(d_tot, 1, "sync_kernel")[0];
    cudaFree(d_scratch); cudaFree(d_seen); cudaFree(d_tot);

    char why[300] = "";
    for (int k = 0; k < SYNC_STEPS && !why[0]; k++) {
        double want = 0;
        int at = 0;
        for (int t = 0; t < nthr; t++)
            if (sync_value(t, k) > want) { want = sync_value(t, k); at = t; }
        for (int t = 0; t < nthr; t++)
            if (seen[(size_t)k * nthr + t] != want) {
                snprintf(why, sizeof why, "step %d: thread %d's step_max %.17g, the largest %.17g (thread %d's)", k, t,
                         seen[(size_t)k * nthr + t], want, at);
                break;
            }
    }
    ChunkSums want = {0, 0, 0, 0, 0, 0, 0};
    for (int t = 0; t < nthr; t++) {
        const ChunkSums s = sync_sums(t);
        want.ukin += s.ukin; want.upot += s.upot; want.vir += s.vir; want.nb_last += s.nb_last; want.nb_prod += s.nb_prod;
        want.nb_max = std::max(want.nb_max, s.nb_max);
        want.cell_max = std::max(want.cell_max, s.cell_max);
    }
    if (!why[0] && memcmp(&tot, &want, sizeof want) != 0)
        snprintf(why, sizeof why, "totals %.17g %.17g %.17g %.17g %.17g, %d %d; the host's %.17g %.17g %.17g %.17g %.17g, %d %d",
                 tot.ukin, tot.upot, tot.vir, tot.nb_last, tot.nb_prod, tot.nb_max, tot.cell_max, want.ukin, want.upot,
                 want.vir, want.nb_last, want.nb_prod, want.nb_max, want.cell_max);
    if (why[0]) snprintf(line, sizeof line, "sync %s, %d blocks of %d threads: %s", what, blocks, threads, why);
    else
        snprintf(line, sizeof line, "sync %s, %d blocks of %d threads: %d steps' largest values in every thread, the "
                 "totals the host's", what, blocks, threads, SYNC_STEPS);
    expect(!why[0], line);
}

static void test_sync(void)
{
    int sms = 0;
    cuda_or_die(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0), "SM count");
    sync_case<BlockSync>("block", 1, 1024);
    int per_sm = 0;
    cuda_or_die(GridSync::resident((const void *)sync_kernel<GridSync>, 0, 256, 0, &per_sm), "occupancy");
    sync_case<GridSync>("grid", std::max(1, std::min(per_sm, 2)) * sms, 256);
    for (int C : {2, 8, 16}) sync_case<ClusterSync>("cluster", C, 256);
}
