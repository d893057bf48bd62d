/* real4.cuh - atom vectors on the device as 4-component reals (float4 or 32-byte aligned
 * double4), as in the paper (positions in float4): one aligned 16- or 32-byte load per atom,
 * the fourth component unused. The type follows `real` (common/real.h), so no code below
 * mentions the precision. */
#ifndef NBR_REAL4_CUH
#define NBR_REAL4_CUH

#include "../../common/real.h"

#include <cuda_runtime.h>
#include <type_traits>

typedef std::conditional<sizeof(real) == sizeof(float), float4, double4_32a>::type real4;

__host__ __device__ __forceinline__ real4 make_real4(real x, real y, real z, real w)
{
    real4 r;
    r.x = x; r.y = y; r.z = z; r.w = w;
    return r;
}

#endif
