/* leapfrog.cuh - one atom's half-kick, drift and v^2, written once for every GPU leapfrog: the
 * split kernels and the fused one (integrate.cu) and gpu-onchip's chunk kernels (onchip.cuh's
 * oc_*), so all run the same arithmetic in the same order. */
#ifndef NBR_LEAPFROG_CUH
#define NBR_LEAPFROG_CUH

#include "real4.cuh"

__device__ __forceinline__ void half_kick(real4 &vi, const real4 &ai, real half_dt)
{
    vi.x += half_dt * ai.x; vi.y += half_dt * ai.y; vi.z += half_dt * ai.z;
}

__device__ __forceinline__ void drift(real4 &ri, const real4 &vi, real dt)
{
    ri.x += dt * vi.x; ri.y += dt * vi.y; ri.z += dt * vi.z;
}

__device__ __forceinline__ double speed2(const real4 &vi)
{
    return (double)vi.x * vi.x + (double)vi.y * vi.y + (double)vi.z * vi.z;
}

#endif
