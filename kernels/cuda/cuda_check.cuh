/* cuda_check.cuh - every CUDA call and every kernel launch is checked; a failure stops the
 * program with one line naming the call, the file and line, and CUDA's message (exit 1).
 * Kernel launches are asynchronous: LAUNCH_CHECK catches bad launch configurations at once;
 * faults inside a kernel surface at the next checked call that synchronises. */
#ifndef NBR_CUDA_CHECK_CUH
#define NBR_CUDA_CHECK_CUH

#include "../../common/sim.h"

#include <cuda_runtime.h>

static inline void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess)
        nbr_fail(EXIT_INTERNAL, "%s:%d: CUDA error in %s: %s", file, line, what, cudaGetErrorString(err));
}

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)
#define LAUNCH_CHECK(kernel) cuda_check(cudaGetLastError(), "launch of " kernel, __FILE__, __LINE__)

#endif
