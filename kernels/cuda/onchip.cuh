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

#include "gpu_sim.cuh"

#include <stdint.h>

typedef uint16_t onchip_idx;

/* One atom's force, u and virial sums (over j, before the halves of u and the virial). */
struct OnchipSum { real fx, fy, fz, u, w; };
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

/* Forces on atom i from its list (the W force kernel's arithmetic, force.cu): the group's sums
 * of f, u(r_ij) and r_ij . f_ij, in every lane of the group. Every lane of the warp calls. */
template <int Kind>
__device__ __forceinline__ OnchipSum onchip_force_atom(int i, bool active, int sub, int tp, const real4 *r,
                                                      const onchip_idx *list_i, int count, real L,
                                                      const PairPotential &pot)
{
    real fx = 0, fy = 0, fz = 0, usum = 0, wsum = 0;
    if (active) {
        const real4 ri = r[i];
#pragma unroll 4
        for (int m = sub; m < count; m += tp) {
            const real4 rj = r[list_i[m]];
            real dx, dy, dz;
            const real r2 = min_image_r2(ri, rj, L, dx, dy, dz);
            if (r2 < pot.rc2) {
                real fr;
                usum += pair_of_kind<Kind>(pot, r2, ri.w * rj.w, &fr);
                fx += fr * dx; fy += fr * dy; fz += fr * dz;
                wsum += fr * r2;
            }
        }
    }
    for (int o = tp >> 1; o > 0; o >>= 1) {
        fx += __shfl_xor_sync(0xffffffffu, fx, o);
        fy += __shfl_xor_sync(0xffffffffu, fy, o);
        fz += __shfl_xor_sync(0xffffffffu, fz, o);
        usum += __shfl_xor_sync(0xffffffffu, usum, o);
        wsum += __shfl_xor_sync(0xffffffffu, wsum, o);
    }
    return OnchipSum{fx, fy, fz, usum, wsum};
}

#endif
