/* cuda_check.cuh - every CUDA call and every kernel launch is checked; a failure stops the
 * program with one line naming the call, the file and line, and CUDA's message (exit 1).
 * Kernel launches are asynchronous: LAUNCH_CHECK catches bad launch configurations at once;
 * faults inside a kernel surface at the next checked call that synchronises. */
#ifndef NBR_CUDA_CHECK_CUH
#define NBR_CUDA_CHECK_CUH

#include "../../common/sim.h"

#include <cuda_runtime.h>
#include <stdio.h>

static inline void cuda_check(cudaError_t err, const char *what, const char *file, int line)
{
    if (err != cudaSuccess)
        nbr_fail(EXIT_INTERNAL, "%s:%d: CUDA error in %s: %s", file, line, what, cudaGetErrorString(err));
}

#define CUDA_CHECK(call) cuda_check((call), #call, __FILE__, __LINE__)

/* Why this machine cannot run a CUDA program, or NULL where it can: the runtime's own message for
 * a machine without a driver ("CUDA driver version is insufficient") misleads there, so the
 * driver's version (0: none installed) names the situation. */
static inline const char *cuda_unavailable(char *why, size_t len)
{
    int ndev = 0, driver = 0, runtime = 0;
    const cudaError_t err = cudaGetDeviceCount(&ndev);
    if (err == cudaSuccess && ndev > 0) return NULL;
    cudaGetLastError();
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (driver == 0)
        snprintf(why, len, "no GPU here: no NVIDIA driver found (a CUDA program needs an NVIDIA GPU and its driver; "
                           "the CPU programs are cpu-* and coulomb)");
    else if (err == cudaErrorInsufficientDriver)
        snprintf(why, len, "the NVIDIA driver supports CUDA %d.%d, older than the CUDA %d.%d this program was built "
                           "with: update the driver", driver / 1000, driver % 1000 / 10, runtime / 1000,
                 runtime % 1000 / 10);
    else if (err == cudaSuccess || err == cudaErrorNoDevice)
        snprintf(why, len, "no GPU here: the NVIDIA driver (CUDA %d.%d) finds no CUDA device", driver / 1000,
                 driver % 1000 / 10);
    else
        snprintf(why, len, "no usable CUDA device: %s", cudaGetErrorString(err));
    return why;
}

/* A CUDA program on a machine that cannot run it: one line, exit EXIT_NO_DEVICE. */
static inline void cuda_require_device(const char *program)
{
    char why[300];
    if (cuda_unavailable(why, sizeof why)) nbr_fail(EXIT_NO_DEVICE, "%s: %s", program, why);
}
#define LAUNCH_CHECK(kernel) cuda_check(cudaGetLastError(), "launch of " kernel, __FILE__, __LINE__)

#endif
