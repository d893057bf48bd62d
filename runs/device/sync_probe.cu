/* sync_probe.cu - what one synchronisation costs on this GPU (issue 27's floor): a kernel of K
 * back-to-back syncs, timed with CUDA events (median of 7 launches, after a warm-up), minus the
 * same kernel with K = 0, divided by K. Kinds: __syncthreads in one block of 1024 threads;
 * cluster.sync in a cluster of C blocks (256 threads each; C = 2, 4, 8, 16 non-portable);
 * cg grid sync of a cooperative grid of B blocks x 256 threads (B = 8, 33, 66, 132, 264); and
 * two ways to end a grid step with the largest v^2 everywhere: grid-max (each warp's atomicMax,
 * a grid sync, a load of the result: gpu-onchip's grid tier) and slots (a block barrier, one
 * release store of a tagged slot per block, every block acquiring all the slots, a second
 * barrier: tried in the grid tier at 8f6ffb7 and taken out, 10-12% slower a step at 64 blocks).
 * Each iteration also writes a word so the loop is not folded away. Build: nvcc -O3 -arch=sm_90
 * runs/device/sync_probe.cu -o sync_probe; prints kind,blocks,threads,ns_per_sync lines (CSV). */
#include <cooperative_groups.h>
#include <cuda_runtime.h>
#include <cuda/atomic>
#include <algorithm>
#include <stdio.h>
#include <vector>
namespace cg = cooperative_groups;

__global__ void k_block(int K, int *out)
{
    int x = threadIdx.x;
    for (int k = 0; k < K; k++) { __syncthreads(); x += k; }
    if (x == -1) out[0] = x;
}
__global__ void k_cluster(int K, int *out)
{
    cg::cluster_group c = cg::this_cluster();
    int x = threadIdx.x;
    for (int k = 0; k < K; k++) { c.sync(); x += k; }
    if (x == -1) out[0] = x;
}
__global__ void k_grid(int K, int *out)
{
    cg::grid_group g = cg::this_grid();
    int x = threadIdx.x;
    for (int k = 0; k < K; k++) { g.sync(); x += k; }
    if (x == -1) out[0] = x;
}

__device__ double probe_block_max(double v, double *part)
{
    const unsigned lane = threadIdx.x & 31;
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    if (lane == 0) part[threadIdx.x >> 5] = v;
    __syncthreads();
    v = lane < (blockDim.x >> 5) ? part[lane] : 0.0;
    for (int o = 16; o > 0; o >>= 1) v = fmax(v, __shfl_xor_sync(0xffffffffu, v, o));
    return v;
}
__global__ void k_gridmax(int K, unsigned long long *slots, int *out)
{
    cg::grid_group g = cg::this_grid();
    double v = threadIdx.x + blockIdx.x;
    for (int k = 0; k < K; k++) {
        if ((threadIdx.x & 31) == 0) atomicMax(&slots[k % 3], (unsigned long long)__double_as_longlong(v));
        g.sync();
        v = __longlong_as_double((long long)__ldcg(&slots[k % 3])) * 0.5;
        if (blockIdx.x == 0 && threadIdx.x == 0) slots[(k + 2) % 3] = 0;
    }
    if (v == -1) out[0] = 1;
}
__global__ void k_slots(int K, unsigned long long *slots, int *out)
{
    using ref = cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>;
    __shared__ double part[2][2][32];
    const unsigned long long TOP = 1ull << 63;
    double v = threadIdx.x + blockIdx.x;
    for (int k = 0; k < K; k++) {
        v = probe_block_max(v, part[k & 1][0]);
        const unsigned long long tag = ((k >> 1) & 1) ? 0 : TOP;
        unsigned long long *row = slots + (size_t)(k & 1) * gridDim.x, most = 0;
        if (threadIdx.x == 0) ref(row[blockIdx.x]).store(tag | (unsigned long long)__double_as_longlong(v), cuda::memory_order_release);
        for (int q = threadIdx.x; q < (int)gridDim.x; q += blockDim.x) {
            unsigned long long w;
            while (((w = ref(row[q]).load(cuda::memory_order_acquire)) & TOP) != tag) {
            }
            most = max(most, w & ~TOP);
        }
        v = probe_block_max(__longlong_as_double((long long)most), part[k & 1][1]) * 0.5;
    }
    if (v == -1) out[0] = 1;
}

static unsigned long long *slots_dev;

static float time_launch(int kind, int blocks, int threads, int cl, int K, int *out)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a); cudaEventCreate(&b);
    std::vector<float> t;
    for (int rep = 0; rep < 8; rep++) {
        cudaEventRecord(a);
        if (kind == 0) k_block<<<1, threads>>>(K, out);
        else if (kind == 1) {
            cudaLaunchConfig_t cfg = {};
            cfg.gridDim = dim3(blocks); cfg.blockDim = dim3(threads);
            cudaLaunchAttribute at[1];
            at[0].id = cudaLaunchAttributeClusterDimension;
            at[0].val.clusterDim.x = cl; at[0].val.clusterDim.y = 1; at[0].val.clusterDim.z = 1;
            cfg.attrs = at; cfg.numAttrs = 1;
            cudaLaunchKernelEx(&cfg, k_cluster, K, out);
        } else if (kind == 2) {
            void *args[] = {&K, &out};
            cudaLaunchCooperativeKernel((void *)k_grid, blocks, threads, args);
        } else {
            void *args[] = {&K, &slots_dev, &out};
            cudaMemsetAsync(slots_dev, 0, 2 * sizeof(unsigned long long) * blocks);
            cudaLaunchCooperativeKernel(kind == 3 ? (void *)k_gridmax : (void *)k_slots, blocks, threads, args);
        }
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms; cudaEventElapsedTime(&ms, a, b);
        if (rep) t.push_back(ms);
    }
    cudaError_t e = cudaGetLastError();
    if (e != cudaSuccess) { fprintf(stderr, "kind %d blocks %d: %s\n", kind, blocks, cudaGetErrorString(e)); return -1; }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
}

static void probe(const char *name, int kind, int blocks, int threads, int cl, int *out)
{
    const int K = 20000;
    float t0 = time_launch(kind, blocks, threads, cl, 0, out), t1 = time_launch(kind, blocks, threads, cl, K, out);
    if (t0 < 0 || t1 < 0) return;
    printf("%s,%d,%d,%.1f\n", name, blocks, threads, (t1 - t0) * 1e6 / K);
}

int main()
{
    int *out;
    cudaMalloc(&out, 4);
    cudaFuncSetAttribute(k_cluster, cudaFuncAttributeNonPortableClusterSizeAllowed, 1);
    printf("kind,blocks,threads,ns_per_sync\n");
    probe("syncthreads", 0, 1, 1024, 0, out);
    probe("syncthreads", 0, 1, 256, 0, out);
    for (int c : {2, 4, 8, 16}) { char n[32]; snprintf(n, sizeof n, "cluster%d", c); probe(n, 1, c, 256, c, out); }
    for (int c : {8, 16}) { char n[32]; snprintf(n, sizeof n, "cluster%d-x8", c); probe(n, 1, 8 * c, 256, c, out); }
    for (int b : {8, 33, 66, 132, 264}) probe("grid", 2, b, 256, 0, out);
    probe("grid", 2, 132, 1024, 0, out);
    cudaMalloc(&slots_dev, 2 * sizeof(unsigned long long) * 264);
    for (int b : {64, 128, 132, 264}) {
        probe("grid-max", 3, b, 256, 0, out);
        probe("slots", 4, b, 256, 0, out);
    }
    probe("grid-max", 3, 128, 512, 0, out);
    probe("slots", 4, 128, 512, 0, out);
    return 0;
}
