/* onchip.cuh - the per-atom pieces of gpu-onchip's step (variants/gpu-onchip.cu), written once
 * for its three users: the chunk kernel of each tier (block: the system in shared memory;
 * grid: a cooperative grid over global memory) and the per-stage kernels of the host path
 * (--decide host, --check, --verify-lists, --stage-reps).
 *
 * Atoms are served by groups of tp lanes of one warp (tp a power of 2 up to 32, so a group
 * never straddles warps): lane l of atom i's group takes candidates / list entries l, l + tp,
 * ...; the group's sums are shuffled together. Lists are 16-bit indices (N <= 65535), atom i's
 * entries at list[i * cap + m], m < count[i]; a build that finds more than cap neighbours
 * stores cap of them and returns the true count, so the caller sees the overflow and never
 * uses a truncated list (it grows the capacity and builds again, or replays the chunk). */
#ifndef NBR_ONCHIP_CUH
#define NBR_ONCHIP_CUH

#include "pair_force.cuh"

#include <stdint.h>

typedef uint16_t onchip_idx;

enum { ONCHIP_MAX_ATOMS = 65535 };

/* The lanes of this thread's group within its warp, as a ballot mask. */
__device__ __forceinline__ unsigned onchip_group_mask(int tp)
{
    const int lane = threadIdx.x & 31;
    return tp == 32 ? 0xffffffffu : ((1u << tp) - 1u) << (lane & ~(tp - 1));
}

/* The n2 build of atom i by its group (every lane of the warp calls, active or not, the same
 * number of times: the ballots take the whole warp): each j != i within r_n, in index order.
 * Returns m_i (every lane of the group); stores min(m_i, cap) entries. */
__device__ __forceinline__ int onchip_build_atom(int i, bool active, int sub, int tp, const real4 *r, int n,
                                                 real L, real rn2, onchip_idx *list_i, int cap)
{
    const unsigned gmask = onchip_group_mask(tp);
    const unsigned below = (1u << (threadIdx.x & 31)) - 1u;
    const real4 ri = active ? r[i] : make_real4(0, 0, 0, 0);
    int m = 0;
    for (int j0 = 0; j0 < n; j0 += tp) {
        const int j = j0 + sub;
        bool hit = false;
        if (active && j < n && j != i) {
            real dx, dy, dz;
            hit = min_image_r2(ri, r[j], L, dx, dy, dz) < rn2;
        }
        const unsigned b = __ballot_sync(0xffffffffu, hit) & gmask;
        if (hit) {
            const int pos = m + __popc(b & below);
            if (pos < cap) list_i[pos] = (onchip_idx)j;
        }
        m += __popc(b);
    }
    return m;
}

/* Forces on atom i from its list (the per-pair function of the shared force family,
 * pair_force.cuh, over a 16-bit list in shared or global memory): the group's sums of f,
 * u(r_ij) and r_ij . f_ij, in every lane of the group. Every lane of the warp calls. */
template <int Kind>
__device__ __forceinline__ ForceSum onchip_force_atom(int i, bool active, int sub, int tp, const real4 *r,
                                                     const onchip_idx *list_i, int count, real L,
                                                     const PairPotential &pot)
{
    ForceSum f = {0, 0, 0, 0, 0};
    if (active) {
        const real4 ri = r[i];
#pragma unroll 4
        for (int m = sub; m < count; m += tp) {
            const real4 rj = r[list_i[m]];   /* one vector load (a reference would let q_j load apart) */
            pair_force_add<Kind>(ri, rj, L, pot, f);
        }
    }
    for (int o = tp >> 1; o > 0; o >>= 1) {
        f.fx += __shfl_xor_sync(0xffffffffu, f.fx, o);
        f.fy += __shfl_xor_sync(0xffffffffu, f.fy, o);
        f.fz += __shfl_xor_sync(0xffffffffu, f.fz, o);
        f.u += __shfl_xor_sync(0xffffffffu, f.u, o);
        f.w += __shfl_xor_sync(0xffffffffu, f.w, o);
    }
    return f;
}

#endif
