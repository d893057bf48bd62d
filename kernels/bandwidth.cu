/* bandwidth.cu - where the time goes, against the memory-bandwidth ceiling (printed by
 * finish, one block of '# bandwidth' lines after the summary).
 *
 * The force and list-build kernels are memory-bound: each pair costs ~20 flops against a
 * 4-byte W entry and a 16- or 32-byte position. For each kernel we count the fewest bytes
 * it must move through device memory -- every array it touches read or written once; the
 * gathered neighbour positions r_j are assumed to come from cache after the first touch
 * (true after reordering) -- and divide by its measured time. The ceiling is a large
 * device-to-device copy (bytes read + written), measured here on the same device. The
 * gathered bytes (N_p positions) are printed too: they show how much the caches carry. */
#include "gpu_sim.cuh"

#include <stdio.h>

static double time_ms(GpuSim *g, int reps, void (*fn)(Sim *, GpuSim *), Sim *s)
{
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    fn(s, g);   /* warm-up */
    CUDA_CHECK(cudaEventRecord(e0, g->stream));
    for (int k = 0; k < reps; k++) fn(s, g);
    CUDA_CHECK(cudaEventRecord(e1, g->stream));
    CUDA_CHECK(cudaEventSynchronize(e1));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    return ms / reps;
}

static void run_forces(Sim *s, GpuSim *g) { gpu_forces(s); }
static void run_w(Sim *s, GpuSim *g) { g->builder.launch(s, g); }
static void run_build(Sim *s, GpuSim *g) { gpu_build(s, g->builder); }

/* GB/s of a device-to-device copy of 256 MB, counting bytes read and written; 0 if the
 * buffers cannot be had. */
static double copy_ceiling(GpuSim *g)
{
    const size_t bytes = (size_t)256 << 20;
    void *src = NULL, *dst = NULL;
    if (cudaMalloc(&src, bytes) != cudaSuccess || cudaMalloc(&dst, bytes) != cudaSuccess) {
        cudaGetLastError();
        if (src) CUDA_CHECK(cudaFree(src));
        return 0;
    }
    CUDA_CHECK(cudaMemsetAsync(src, 1, bytes, g->stream));
    cudaEvent_t e0, e1;
    CUDA_CHECK(cudaEventCreate(&e0));
    CUDA_CHECK(cudaEventCreate(&e1));
    float best = 1e30f;
    for (int k = 0; k < 6; k++) {
        float ms = 0;
        CUDA_CHECK(cudaEventRecord(e0, g->stream));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, g->stream));
        CUDA_CHECK(cudaEventRecord(e1, g->stream));
        CUDA_CHECK(cudaEventSynchronize(e1));
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        if (k > 0 && ms < best) best = ms;
    }
    CUDA_CHECK(cudaEventDestroy(e0));
    CUDA_CHECK(cudaEventDestroy(e1));
    CUDA_CHECK(cudaFree(src));
    CUDA_CHECK(cudaFree(dst));
    return 2.0 * bytes / (best * 1e-3) / 1e9;
}

void gpu_report_bandwidth(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (!g->built || !g->builder.launch) return;
    s->production = 0;   /* nothing here is part of the run's timing */
    const double n = s->n, np = s->stats.nbr_entries, r4 = sizeof(real4), nc = g->grid.ncells;
    const double t_force = time_ms(g, 10, run_forces, s);
    const double t_w = time_ms(g, 3, run_w, s);
    const double t_build = time_ms(g, 3, run_build, s);
    const double ceiling = n >= 100000 ? copy_ceiling(g) : 0;   /* meaningless for small runs */
    /* W entries + m_i + r_i + a_i + u_i */
    const double b_force = np * 4 + n * (4 + r4 + r4 + sizeof(real));
    /* r_i + c_i + H entries + k_c + W entries + m_i */
    const double b_w = n * (r4 + 4 + 4) + nc * 4 + np * 4 + n * 4;
    const double gbs_force = b_force / (t_force * 1e-3) / 1e9, gbs_w = b_w / (t_w * 1e-3) / 1e9;
    if (ceiling > 0) printf("# bandwidth: copy ceiling %.0f GB/s (device-to-device, 256 MB, read + write)\n", ceiling);
    printf("# bandwidth: force kernel %.1f us, %.1f MB at least -> %.0f GB/s (%.0f%% of copy); "
           "%.1f MB of r_j gathered through cache; %.3f ns/atom\n",
           t_force * 1e3, b_force / 1e6, gbs_force, ceiling > 0 ? 100 * gbs_force / ceiling : 0, np * r4 / 1e6,
           t_force * 1e6 / n);
    printf("# bandwidth: W kernel %.1f us, %.1f MB at least -> %.0f GB/s (%.0f%% of copy); whole build %.1f us "
           "(%.3f ns/atom per build)\n",
           t_w * 1e3, b_w / 1e6, gbs_w, ceiling > 0 ? 100 * gbs_w / ceiling : 0, t_build * 1e3,
           t_build * 1e6 / n);
}
