/* leapfrog.cuh - one atom's half-kick, drift, v^2 and periodic wrap, written once for every GPU
 * leapfrog: the split kernels and the fused one (integrate.cu) and the chunk kernels of gpu-rumd
 * and gpu-onchip, so all run the same arithmetic in the same order. */
#ifndef NBR_LEAPFROG_CUH
#define NBR_LEAPFROG_CUH

#include "../../common/pbc.h"
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

/* A step's end for one atom after its new acceleration ai: the second half-kick (returns the
 * kicked velocity's v^2), then with `next` the next step's half-kick and the drift of *r (read
 * and written only then). */
__device__ __forceinline__ double leapfrog_end(real4 &vi, const real4 &ai, real half_dt, real dt, bool next, real4 *r)
{
    half_kick(vi, ai, half_dt);
    const double vv = speed2(vi);
    if (next) {
        real4 ri = *r;
        half_kick(vi, ai, half_dt);
        drift(ri, vi, dt);
        *r = ri;
    }
    return vv;
}

/* into [-L/2, L/2) per axis: a rebuild's first act */
__device__ __forceinline__ void wrap_position(real4 &ri, real L)
{
    ri.x = pbc_wrap(ri.x, L); ri.y = pbc_wrap(ri.y, L); ri.z = pbc_wrap(ri.z, L);
}

/* r[i] wrapped in place; the wrapped position returned */
__device__ __forceinline__ real4 wrap_atom(real4 *r, int i, real L)
{
    real4 ri = r[i];
    wrap_position(ri, L);
    r[i] = ri;
    return ri;
}

#endif
