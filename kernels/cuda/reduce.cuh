/* reduce.cuh - block reductions (the paper's EvalPropsGPU, done with warp shuffles).
 *
 * Each block reduces its threads' values to one, returned in thread 0; the per-block
 * results go to an array of partials whose final sum is taken on the host (the paper)
 * or by one more small kernel (--reduce device). Every thread of the block must call,
 * with the identity for threads past the last atom. Block sizes are multiples of 32. */
#ifndef NBR_REDUCE_CUH
#define NBR_REDUCE_CUH

#include "../component_plant.h"

#include <cuda_runtime.h>

struct SumOp { template <class T> __device__ T operator()(T a, T b) const { return a + b; } };
struct MaxOp { template <class T> __device__ T operator()(T a, T b) const { return a > b ? a : b; } };

template <class T, class Op>
__device__ __forceinline__ T warp_reduce(T x, Op op)
{
    for (int o = 16; o > 0; o >>= 1) {
        NBR_PLANT(10, if (o == 1) break);
        x = op(x, __shfl_down_sync(0xffffffffu, x, o));
    }
    return x;
}

/* Result valid in thread 0 only. The leading barrier lets a kernel call this repeatedly. */
template <class T, class Op>
__device__ T block_reduce(T x, Op op, T identity)
{
    __shared__ T part[32];
    const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, nwarps = blockDim.x >> 5;
    __syncthreads();
    NBR_PLANT(8, if (lane == 31) x = identity);
    x = warp_reduce(x, op);
    if (lane == 0) part[warp] = x;
    __syncthreads();
    if (warp == 0) {
        x = lane < nwarps ? part[lane] : identity;
        NBR_PLANT(9, if (lane == nwarps - 1 && nwarps > 1) x = identity);
        x = warp_reduce(x, op);
    }
    return x;
}

#endif
