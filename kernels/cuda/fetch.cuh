/* fetch.cuh - how kernels read positions and the cell-layer matrix: the --read knob.
 *
 * Rapaport reads positions r_j (gathered through the neighbour matrix, so not coalesced)
 * and the occupancy matrix H(c,l) through the texture cache, and reports that turning it
 * off nearly doubles the time for system S (paper, last paragraph). Three ways, chosen at
 * compile time of each kernel instantiation (template parameter Mode = ReadMode):
 *   READ_TEXTURE  tex1Dfetch on a texture object (the paper's "texture on"). Positions are
 *                 viewed as int4 elements (one per float4, two per double4) and
 *                 reinterpreted, so double precision uses the texture path too.
 *   READ_LDG      __ldg: the read-only data cache, the modern successor of the texture path.
 *   READ_PLAIN    ordinary global loads ("texture off"; on Hopper these still go through L1).
 * Kernels are written once against fetch_pos / fetch_int. */
#ifndef NBR_FETCH_CUH
#define NBR_FETCH_CUH

#include "../../common/params.h"
#include "real4.cuh"

#include <cuda_runtime.h>

struct PosSource {             /* atom positions */
    const real4 *ptr;
    cudaTextureObject_t tex;   /* over int4 elements: sizeof(real4) / 16 per atom */
};

struct IntSource {             /* an int array: H(c,l) or the cell occupancies */
    const int *ptr;
    cudaTextureObject_t tex;   /* over int elements (occupancies) or int4 elements (H) */
};

__device__ __forceinline__ float4 texture_real4(cudaTextureObject_t t, int i, float4 *)
{
    int4 q = tex1Dfetch<int4>(t, i);
    return make_float4(__int_as_float(q.x), __int_as_float(q.y), __int_as_float(q.z), __int_as_float(q.w));
}

__device__ __forceinline__ double4_32a texture_real4(cudaTextureObject_t t, int i, double4_32a *)
{
    int4 a = tex1Dfetch<int4>(t, 2 * i), b = tex1Dfetch<int4>(t, 2 * i + 1);
    double4_32a r;
    r.x = __hiloint2double(a.y, a.x); r.y = __hiloint2double(a.w, a.z);
    r.z = __hiloint2double(b.y, b.x); r.w = __hiloint2double(b.w, b.z);
    return r;
}

__device__ __forceinline__ float4 ldg_real4(const float4 *p) { return __ldg(p); }

__device__ __forceinline__ double4_32a ldg_real4(const double4_32a *p)
{
    double2 a = __ldg((const double2 *)p), b = __ldg((const double2 *)p + 1);
    double4_32a r;
    r.x = a.x; r.y = a.y; r.z = b.x; r.w = b.y;
    return r;
}

template <int Mode>
__device__ __forceinline__ real4 fetch_pos(const PosSource &s, int i)
{
    if constexpr (Mode == READ_TEXTURE) return texture_real4(s.tex, i, (real4 *)nullptr);
    else if constexpr (Mode == READ_LDG) return ldg_real4(s.ptr + i);
    else return s.ptr[i];
}

template <int Mode>
__device__ __forceinline__ int fetch_int(const IntSource &s, size_t k)
{
    if constexpr (Mode == READ_TEXTURE) return tex1Dfetch<int>(s.tex, (int)k);
    else if constexpr (Mode == READ_LDG) return __ldg(s.ptr + k);
    else return s.ptr[k];
}

/* Four consecutive entries [4q, 4q + 4) of an int array whose texture, if any, has int4
 * elements (the cell-layer matrix H, rows a multiple of 4 long). */
template <int Mode>
__device__ __forceinline__ int4 fetch_int4(const IntSource &s, size_t q)
{
    if constexpr (Mode == READ_TEXTURE) return tex1Dfetch<int4>(s.tex, (int)q);
    else if constexpr (Mode == READ_LDG) return __ldg((const int4 *)s.ptr + q);
    else return ((const int4 *)s.ptr)[q];
}

/* One entry of such an array. */
template <int Mode>
__device__ __forceinline__ int fetch_int_of4(const IntSource &s, size_t k)
{
    if constexpr (Mode == READ_TEXTURE) {
        const int4 q = tex1Dfetch<int4>(s.tex, (int)(k >> 2));
        const int r = (int)(k & 3);
        return r == 0 ? q.x : (r == 1 ? q.y : (r == 2 ? q.z : q.w));
    } else {
        return fetch_int<Mode>(s, k);
    }
}

#endif
