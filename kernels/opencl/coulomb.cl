/* coulomb.cl - Sirny's tiled all-pairs Coulomb energy (thesis 2010, Appendix A) in OpenCL C.
 *
 * Build options (set by the host, kernels/opencl/coulomb_cl.c):
 *   -DUNROLL=1|2|4|8   the inner loop unrolled this many times
 *   -DMODE=0|1|2|3|4   float, double, kahan (float terms, plain per-tile sums added
 *                      compensated), pairwise (float terms, per-tile sums combined pairwise,
 *                      tree reductions), exact (double terms, every term compensated: the
 *                      reference's arithmetic)
 *   -cl-denorms-are-zero (float modes) rsqrt without the subnormal fix-up (r^2 never is one)
 *   -DFULL=0|1         0: work-item i sums j > i (the thesis); 1: all j != i (halved on the host)
 * One work-item per atom; positions and charges (x, y, z, q) of one work-group at a time are
 * staged through local memory; the own tile and the last (partial) tile are handled apart so
 * that the loop over full tiles has no condition. The arrays are padded to whole work-groups.
 * Pass 1 leaves one partial sum per work-group (tree in local memory); pass 2 (one work-group)
 * sums those: the thesis's two-pass reduction. The mirror in CUDA is kernels/cuda/coulomb.cu. */
#if MODE == 1 || MODE == 4
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
typedef double real_t;
typedef double4 real4_t;
#else
typedef float real_t;
typedef float4 real4_t;
#endif

/* ---- accumulation of one work-item's terms ------------------------------------------------ */
#if MODE == 2 || MODE == 4
/* Kahan: s + c is the sum, c what the additions lost. exact (4): every term compensated;
 * kahan (2): a plain sum per tile, each tile's sum added compensated (the cost per pair of
 * plain float) */
#define ACC_KAHAN(x) { real_t y_ = (x) + acc_c; real_t u_ = acc_s + y_; acc_c = y_ - (u_ - acc_s); acc_s = u_; }
#if MODE == 4
#define ACC_DECL real_t acc_s = 0, acc_c = 0
#define ACC_ADD(t) ACC_KAHAN(t)
#define ACC_TILE_END
#else
#define ACC_DECL real_t acc_s = 0, acc_c = 0, acc_t = 0
#define ACC_ADD(t) acc_t += (t)
#define ACC_TILE_END { ACC_KAHAN(acc_t); acc_t = 0; }
#endif
#define ACC_HI acc_s
#define ACC_LO acc_c
#elif MODE == 3
/* pairwise: a plain sum per tile; tile sums merged like a binary counter (equal sizes only) */
#define ACC_DECL real_t acc_t = 0, stack[32]; uint count = 0
#define ACC_ADD(t) acc_t += (t)
#define ACC_TILE_END { real_t v_ = acc_t; uint k_ = ++count; int l_ = 0; \
                       while ((k_ & 1u) == 0) { v_ += stack[l_++]; k_ >>= 1; } stack[l_] = v_; acc_t = 0; }
#define ACC_HI pairwise_total(stack, count)
#define ACC_LO 0
real_t pairwise_total(real_t *stack, uint count)
{
    real_t s = 0;
    for (int l = 0; l < 32; l++)
        if (count & (1u << l)) s += stack[l];
    return s;
}
#else
#define ACC_DECL real_t acc_s = 0
#define ACC_ADD(t) acc_s += (t)
#define ACC_TILE_END
#define ACC_HI acc_s
#define ACC_LO 0
#endif

#define TERM(k) { real4_t p_ = tile[(k)]; real_t dx_ = me.x - p_.x, dy_ = me.y - p_.y, dz_ = me.z - p_.z; \
                  ACC_ADD(p_.w * rsqrt(dx_ * dx_ + dy_ * dy_ + dz_ * dz_)); }
#define TERM_IF(k, cond) if (cond) TERM(k)

#if UNROLL == 1
#define STEPS(j) TERM(j)
#define STEPS_IF(j, C) TERM_IF(j, C(j))
#elif UNROLL == 2
#define STEPS(j) TERM(j) TERM((j) + 1)
#define STEPS_IF(j, C) TERM_IF(j, C(j)) TERM_IF((j) + 1, C((j) + 1))
#elif UNROLL == 4
#define STEPS(j) TERM(j) TERM((j) + 1) TERM((j) + 2) TERM((j) + 3)
#define STEPS_IF(j, C) TERM_IF(j, C(j)) TERM_IF((j) + 1, C((j) + 1)) TERM_IF((j) + 2, C((j) + 2)) \
                       TERM_IF((j) + 3, C((j) + 3))
#elif UNROLL == 8
#define STEPS(j) TERM(j) TERM((j) + 1) TERM((j) + 2) TERM((j) + 3) TERM((j) + 4) TERM((j) + 5) TERM((j) + 6) \
                 TERM((j) + 7)
#define STEPS_IF(j, C) TERM_IF(j, C(j)) TERM_IF((j) + 1, C((j) + 1)) TERM_IF((j) + 2, C((j) + 2)) \
                       TERM_IF((j) + 3, C((j) + 3)) TERM_IF((j) + 4, C((j) + 4)) TERM_IF((j) + 5, C((j) + 5)) \
                       TERM_IF((j) + 6, C((j) + 6)) TERM_IF((j) + 7, C((j) + 7))
#else
#error UNROLL must be 1, 2, 4 or 8
#endif

/* conditions of the boundary tiles (j: index in the tile) */
#if FULL
#define OWN(j) ((j) != lid && base + (j) < n)
#else
#define OWN(j) ((j) > lid && base + (j) < n)
#endif
#define LAST(j) (base + (j) < n)

/* Compensated (hi, lo) pairs added exactly (TwoSum), for the Kahan mode's reductions. */
#define TWO_ADD(ah, al, bh, bl) { real_t s_ = (ah) + (bh); real_t bb_ = s_ - (ah); \
                                  real_t e_ = ((ah) - (s_ - bb_)) + ((bh) - bb_); (al) = (al) + (bl) + e_; (ah) = s_; }

void reduce_tile(__local real_t *rh, __local real_t *rl, uint lid, uint size)
{
    for (uint step = size >> 1; step > 0; step >>= 1) {
        if (lid < step) {
#if MODE == 2 || MODE == 4
            real_t h = rh[lid], l = rl[lid];
            TWO_ADD(h, l, rh[lid + step], rl[lid + step]);
            rh[lid] = h; rl[lid] = l;
#else
            rh[lid] += rh[lid + step];
#endif
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
}

__kernel void coulomb_energy(__global const real4_t *pos, uint n, __local real4_t *tile,
                             __local real_t *rh, __local real_t *rl, __global real_t *out_hi,
                             __global real_t *out_lo)
{
    const uint lid = get_local_id(0), bsize = get_local_size(0), g = get_group_id(0);
    const uint groups = get_num_groups(0), gid = g * bsize + lid;
    const real4_t me = pos[gid];
    const int active = gid < n;
    uint base;
    ACC_DECL;

#if FULL
    /* the tiles before the own one (never the last: g < groups), no condition. Written as its
     * own loop, not as a branch on t == g inside one loop over all tiles: PoCL 5 (Ubuntu
     * 24.04) fails an assertion on a barrier loop whose body branches into two loops */
    for (uint t = 0; t < g; t++) {
        tile[lid] = pos[t * bsize + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (uint j = 0; j < bsize; j += UNROLL) { STEPS(j) }
            ACC_TILE_END;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    /* the own tile: j > i (j != i in the full sweep), and within n in the last work-group */
    base = g * bsize;
    tile[lid] = me;
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active) {
        for (uint j = 0; j < bsize; j += UNROLL) { STEPS_IF(j, OWN) }
        ACC_TILE_END;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* full tiles after it, but the last: no condition */
    for (uint t = g + 1; t + 1 < groups; t++) {
        tile[lid] = pos[t * bsize + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (uint j = 0; j < bsize; j += UNROLL) { STEPS(j) }
            ACC_TILE_END;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* the last tile, unless it is the own one */
    if (g != groups - 1) {
        base = (groups - 1) * bsize;
        tile[lid] = pos[base + lid];
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (uint j = 0; j < bsize; j += UNROLL) { STEPS_IF(j, LAST) }
            ACC_TILE_END;
        }
    }
    /* the row's sum sum_j q_j / r_ij times q_i (once, not per pair as the thesis does); for a
     * (hi, lo) pair hi q_i exactly as hi' + e (FMA), e carried into lo */
    real_t h = 0, l = 0;
    if (active) {
        real_t hi = ACC_HI;
        h = hi * me.w;
        l = ACC_LO * me.w;
#if MODE == 2 || MODE == 4
        l += fma(hi, me.w, -h);
#endif
    }
    rh[lid] = h;
    rl[lid] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    reduce_tile(rh, rl, lid, bsize);
    if (lid == 0) {
        out_hi[g] = rh[0];
        out_lo[g] = rl[0];
    }
}

/* Pass 2, one work-group: the partial sums of pass 1 to one (hi, lo) pair. */
__kernel void coulomb_sum(__global const real_t *in_hi, __global const real_t *in_lo, uint count,
                          __local real_t *rh, __local real_t *rl, __global real_t *result)
{
    const uint lid = get_local_id(0), size = get_local_size(0);
    real_t h = 0, l = 0;
    for (uint k = lid; k < count; k += size) {
#if MODE == 2 || MODE == 4
        TWO_ADD(h, l, in_hi[k], in_lo[k]);
#else
        h += in_hi[k];
#endif
    }
    rh[lid] = h;
    rl[lid] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    reduce_tile(rh, rl, lid, size);
    if (lid == 0) {
        result[0] = rh[0];
        result[1] = rl[0];
    }
}
