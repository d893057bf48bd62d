/* atom_rows.cu - the 16-bit rows' stage kernels (atom_rows.cuh): the same bin, build and forces
 * that a chunk kernel runs inside its launch, each as a launch of its own. */
#include "atom_rows.cuh"

#include <stdlib.h>

namespace {

__global__ void bin_kernel(const real4 *r, int n, real L, RowCells<row16> g, BuildStatus *status)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    const int most = block_reduce(i < n ? rows_bin(i, r[i], L, g) : 0, MaxOp(), 0);
    if (threadIdx.x == 0) atomicMax(&status->layers_needed, most);
}

__global__ void build_kernel(const real4 *r, int n, int lanes, PbcBox box, real rn2, RowCells<row16> g, Rows16 rows,
                             BuildStatus *status)
{
    const int ltp = lanes_log2(lanes), tp = 1 << ltp, rank = blockIdx.x * blockDim.x + threadIdx.x,
              sub = rank & (tp - 1), i = rank >> ltp;
    const bool act = i < n;
    const int m = rows_build(i, act, sub, tp, r, n, box, rn2, g, rows.list + (size_t)(act ? i : 0) * rows.cap, rows.cap);
    if (act && sub == 0) rows.count[i] = m;
    record_nbr_stats(act && sub == 0 ? m : 0, status);
}

template <int Kind>
__global__ void force_kernel(const real4 *r, int n, int lanes, PbcBox box, PairPotential pot, Rows16 rows, real4 *a,
                             real *u, double *upot, double *virial)
{
    const int ltp = lanes_log2(lanes), tp = 1 << ltp, rank = blockIdx.x * blockDim.x + threadIdx.x,
              sub = rank & (tp - 1), i = rank >> ltp;
    const bool act = i < n;
    const ForceSum f = rows_force<Kind>(i, act, sub, tp, r, rows.list + (size_t)(act ? i : 0) * rows.cap,
                                        act ? min(rows.count[i], rows.cap) : 0, box, pot);
    real ui = 0, wi = 0;
    if (act && sub == 0) {
        ui = (real)0.5 * f.u;
        wi = (real)0.5 * f.w;
        a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        u[i] = ui;
    }
    const double su = block_reduce((double)ui, SumOp(), 0.0), sw = block_reduce((double)wi, SumOp(), 0.0);
    if (threadIdx.x == 0) {
        atomicAdd(upot, su);
        atomicAdd(virial, sw);
    }
}

}  // namespace

void rows_build_launch(const real4 *r, int n, real L, real rn2, const RowCells<row16> &cells, const Rows16 &rows,
                       int tp, int threads, BuildStatus *status, cudaStream_t stream)
{
    if (cells.m) {
        CUDA_CHECK(cudaMemsetAsync(cells.count, 0, sizeof(int) * cells.m * cells.m * cells.m, stream));
        bin_kernel<<<blocks_for(n, threads), threads, 0, stream>>>(r, n, L, cells, status);
        LAUNCH_CHECK("bin_kernel");
    }
    build_kernel<<<blocks_for((long)n * tp, threads), threads, 0, stream>>>(r, n, tp, pbc_box(L), rn2, cells, rows,
                                                                           status);
    LAUNCH_CHECK("build_kernel");
}

void rows_force_launch(const real4 *r, int n, real L, const PairPotential &pot, const Rows16 &rows, int tp,
                       int threads, real4 *a, real *u, double *upot, double *virial, cudaStream_t stream)
{
    dispatch_potential(pot.kind, [&](auto kind) {
        force_kernel<decltype(kind)::value><<<blocks_for((long)n * tp, threads), threads, 0, stream>>>(
            r, n, tp, pbc_box(L), pot, rows, a, u, upot, virial);
    });
    LAUNCH_CHECK("force_kernel");
}

void rows_for_each_pair(const Rows16 &rows, int n, PairFn fn, void *arg, cudaStream_t stream)
{
    const int cap = rows.cap;
    int *count = (int *)nbr_alloc(sizeof(int) * n, "neighbour counts (host copy)");
    row16 *list = (row16 *)nbr_alloc(sizeof(row16) * (size_t)cap * n, "neighbour lists (host copy)");
    CUDA_CHECK(cudaMemcpyAsync(count, rows.count, sizeof(int) * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaMemcpyAsync(list, rows.list, sizeof(row16) * (size_t)cap * n, cudaMemcpyDeviceToHost, stream));
    CUDA_CHECK(cudaStreamSynchronize(stream));
    for (int i = 0; i < n; i++)
        for (int m = 0; m < (count[i] < cap ? count[i] : cap); m++) fn(i, list[(size_t)i * cap + m], arg);
    free(count);
    free(list);
}
