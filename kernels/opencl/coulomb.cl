/* coulomb.cl - Sirny's tiled all-pairs Coulomb energy (thesis 2010, Appendix A) in OpenCL C.
 *
 * Build options (set by the host, kernels/opencl/coulomb_cl.c):
 *   -DUNROLL=1|2|4|8   the inner loop unrolled this many times
 *   -DIPT=1|2|4        atoms per work-item (register blocking; a work-group's tile is
 *                      work-group size * IPT atoms)
 *   -DMODE=0|1|2|3|4   float, double, kahan (float terms, plain per-tile sums added
 *                      compensated), pairwise (float terms, per-tile sums combined pairwise,
 *                      tree reductions), exact (double terms, every term compensated: the
 *                      reference's arithmetic)
 *   -cl-denorms-are-zero (float modes) rsqrt without the subnormal fix-up (r^2 never is one)
 *   -DFULL=0|1         0: work-item i sums j > i (the thesis); 1: all j != i (halved on the host)
 *   -DFOLD=0|1         (FULL=0 only) 0: work-group b takes row tile b (--sweep half, the thesis);
 *                      1: row tiles b and rows - 1 - b, equal work per group (--sweep folded)
 * One work-item per atom; positions and charges (x, y, z, q) of one work-group at a time are
 * staged through local memory; the own tile and the last (partial) tile are handled apart so
 * that the loop over full tiles has no condition. The arrays are padded to whole work-groups.
 * --sweep folded: work-group b takes row tiles b and rows - 1 - b (equal work per work-group).
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

/* ---- accumulation of one work-item's terms: IPT rows, one accumulator each (k) ------------- */
#define FOR_K for (int k = 0; k < IPT; k++)
#if MODE == 2 || MODE == 4
/* Kahan: s + c is the sum, c what the additions lost. exact (4): every term compensated;
 * kahan (2): a plain sum per tile, each tile's sum added compensated (the cost per pair of
 * plain float) */
#define ACC_KAHAN(k, x) { real_t y_ = (x) + acc_c[k]; real_t u_ = acc_s[k] + y_; acc_c[k] = y_ - (u_ - acc_s[k]); \
                          acc_s[k] = u_; }
#if MODE == 4
#define ACC_DECL real_t acc_s[IPT], acc_c[IPT]; FOR_K { acc_s[k] = 0; acc_c[k] = 0; }
#define ACC_ADD(k, t) ACC_KAHAN(k, t)
#define ACC_TILE_END
#else
#define ACC_DECL real_t acc_s[IPT], acc_c[IPT], acc_t[IPT]; FOR_K { acc_s[k] = 0; acc_c[k] = 0; acc_t[k] = 0; }
#define ACC_ADD(k, t) acc_t[k] += (t)
#define ACC_TILE_END FOR_K { ACC_KAHAN(k, acc_t[k]); acc_t[k] = 0; }
#endif
#define ACC_HI(k) acc_s[k]
#define ACC_LO(k) acc_c[k]
#elif MODE == 3
/* pairwise: a plain sum per tile; tile sums merged like a binary counter (equal sizes only) */
#define ACC_DECL real_t acc_t[IPT], stack[IPT][32]; uint count = 0; FOR_K acc_t[k] = 0
#define ACC_ADD(k, t) acc_t[k] += (t)
#define ACC_TILE_END { count++; FOR_K { real_t v_ = acc_t[k]; uint k_ = count; int l_ = 0; \
                       while ((k_ & 1u) == 0) { v_ += stack[k][l_++]; k_ >>= 1; } stack[k][l_] = v_; acc_t[k] = 0; } }
#define ACC_HI(k) pairwise_total(stack[k], count)
#define ACC_LO(k) 0
real_t pairwise_total(real_t *stack, uint count)
{
    real_t s = 0;
    for (int l = 0; l < 32; l++)
        if (count & (1u << l)) s += stack[l];
    return s;
}
#else
#define ACC_DECL real_t acc_s[IPT]; FOR_K acc_s[k] = 0
#define ACC_ADD(k, t) acc_s[k] += (t)
#define ACC_TILE_END
#define ACC_HI(k) acc_s[k]
#define ACC_LO(k) 0
#endif

/* kahan and pairwise: row i in coordinates scaled by its own s_i in [1, 2), dx = s_i x_i -
 * s_i x_j in one FMA (the subtraction's cost), the row's sum times s_i q_i: the water boxes'
 * lattice gives many pairs one r^2 and so one rounding error of dx, r^2 and rsqrt, which then
 * add up coherently; the scale makes them independent (coulomb.cu, runs/coulomb_error.c) */
#if MODE == 2 || MODE == 3
#define DIFF(k, c) fma(-sc[k], p_.c, me[k].c)
#else
#define DIFF(k, c) (me[k].c - p_.c)
#endif
float row_scale(uint i)   /* a hash of i in [1, 2) */
{
    uint h = i;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return 1.0f + (float)(h >> 9) * 1.1920928955078125e-7f;
}

/* atom j of the tile against the work-item's IPT atoms (register blocking: one local load
 * serves IPT pairs); C(k, j) the condition of a boundary tile */
#define TERM_IF(j, C) { real4_t p_ = tile[(j)]; \
                        FOR_K if (C(k, (j))) { real_t dx_ = DIFF(k, x), dy_ = DIFF(k, y), dz_ = DIFF(k, z); \
                                  ACC_ADD(k, p_.w * rsqrt(dx_ * dx_ + dy_ * dy_ + dz_ * dz_)); } }
/* the unconditional tiles: atom tp_[u] of a pointer loop (for (tp_ = tile; tp_ < end; tp_ +=
 * UNROLL), STEPS(0)): its increment, compare and branch are the loop's whole overhead, as in
 * coulomb.cu (an index loop recomputes the address: one instruction more per iteration) */
#define TERM(u) { real4_t p_ = tp_[(u)]; \
                  FOR_K { real_t dx_ = DIFF(k, x), dy_ = DIFF(k, y), dz_ = DIFF(k, z); \
                          ACC_ADD(k, p_.w * rsqrt(dx_ * dx_ + dy_ * dy_ + dz_ * dz_)); } }

#if UNROLL == 1
#define STEPS(j) TERM(j)
#define STEPS_IF(j, C) TERM_IF(j, C)
#elif UNROLL == 2
#define STEPS(j) TERM(j) TERM((j) + 1)
#define STEPS_IF(j, C) TERM_IF(j, C) TERM_IF((j) + 1, C)
#elif UNROLL == 4
#define STEPS(j) TERM(j) TERM((j) + 1) TERM((j) + 2) TERM((j) + 3)
#define STEPS_IF(j, C) TERM_IF(j, C) TERM_IF((j) + 1, C) TERM_IF((j) + 2, C) TERM_IF((j) + 3, C)
#elif UNROLL == 8
#define STEPS(j) TERM(j) TERM((j) + 1) TERM((j) + 2) TERM((j) + 3) TERM((j) + 4) TERM((j) + 5) TERM((j) + 6) \
                 TERM((j) + 7)
#define STEPS_IF(j, C) TERM_IF(j, C) TERM_IF((j) + 1, C) TERM_IF((j) + 2, C) TERM_IF((j) + 3, C) \
                       TERM_IF((j) + 4, C) TERM_IF((j) + 5, C) TERM_IF((j) + 6, C) TERM_IF((j) + 7, C)
#else
#error UNROLL must be 1, 2, 4 or 8
#endif

/* conditions of the boundary tiles (k: the work-item's k-th atom, index k * bsize + lid of
 * its own tile; j: index in the tile) */
#if FULL
#define OWN(k, j) ((j) != (k) * bsize + lid && base + (j) < n)
#else
#define OWN(k, j) ((j) > (k) * bsize + lid && base + (j) < n)
#endif
#define LAST(k, j) (base + (j) < n)

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

/* A work-group of bsize work-items owns bsize * IPT atoms (a tile): work-item lid the atoms
 * k * bsize + lid of it, k < IPT (coalesced staging loads). */
#define STAGE(b) FOR_K tile[k * bsize + lid] = pos[(b) + k * bsize + lid]

/* Row tile g of `groups` against the tiles it sums over, its rows' energies added to (*h_out,
 * *l_out); every work-item of the work-group calls it (barriers inside). */
void row_tile(__global const real4_t *pos, uint n, uint g, uint groups, __local real4_t *tile, real_t *h_out,
              real_t *l_out)
{
    const uint lid = get_local_id(0), bsize = get_local_size(0), ts = bsize * IPT, own = g * ts;
    real4_t me[IPT];
    real_t sc[IPT];
    FOR_K {
        me[k] = pos[own + k * bsize + lid];
        sc[k] = 1;
#if MODE == 2 || MODE == 3
        sc[k] = row_scale(own + k * bsize + lid);
        me[k] *= sc[k];   /* x, y, z and q */
#endif
    }
    const int active = own + lid < n;   /* its first atom; the others may be padding (q = 0) */
    uint base;
    ACC_DECL;

#if FULL
    /* the tiles before the own one (never the last: g < groups), no condition. Written as its
     * own loop, not as a branch on t == g inside one loop over all tiles: PoCL 5 (Ubuntu
     * 24.04) fails an assertion on a barrier loop whose body branches into two loops */
    for (uint t = 0; t < g; t++) {
        STAGE(t * ts);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (__local const real4_t *tp_ = tile; tp_ < tile + ts; tp_ += UNROLL) { STEPS(0) }
            ACC_TILE_END;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
#endif
    /* the own tile: j > i (j != i in the full sweep), and within n in the last work-group */
    base = own;
    STAGE(base);
    barrier(CLK_LOCAL_MEM_FENCE);
    if (active) {
        for (uint j = 0; j < ts; j += UNROLL) { STEPS_IF(j, OWN) }
        ACC_TILE_END;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    /* full tiles after it, but the last: no condition */
    for (uint t = g + 1; t + 1 < groups; t++) {
        STAGE(t * ts);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (__local const real4_t *tp_ = tile; tp_ < tile + ts; tp_ += UNROLL) { STEPS(0) }
            ACC_TILE_END;
        }
        barrier(CLK_LOCAL_MEM_FENCE);
    }
    /* the last tile, unless it is the own one */
    if (g != groups - 1) {
        base = (groups - 1) * ts;
        STAGE(base);
        barrier(CLK_LOCAL_MEM_FENCE);
        if (active) {
            for (uint j = 0; j < ts; j += UNROLL) { STEPS_IF(j, LAST) }
            ACC_TILE_END;
        }
    }
    /* each row's sum sum_j q_j / r_ij times q_i (once, not per pair as the thesis does); for a
     * (hi, lo) pair hi q_i exactly as hi' + e (FMA), e carried into lo; the work-item's IPT
     * rows added as (hi, lo) pairs */
    real_t h = *h_out, l = *l_out;
    if (active) {
        FOR_K {
            real_t hi = ACC_HI(k), rh_k = hi * me[k].w, rl_k = ACC_LO(k) * me[k].w;
#if MODE == 2 || MODE == 4
            rl_k += fma(hi, me[k].w, -rh_k);
            TWO_ADD(h, l, rh_k, rl_k);
#else
            h += rh_k;
#endif
        }
    }
    *h_out = h;
    *l_out = l;
}

/* Row tiles to work-groups (coulomb.cu): half and full, work-group b takes row tile b; folded
 * (FOLD), row tiles b and then rows - 1 - b, rows + 1 tiles of work each, the work-item's
 * (h, l) carried from the first to the second. */
__kernel void coulomb_energy(__global const real4_t *pos, uint n, uint rows, __local real4_t *tile,
                             __local real_t *rh, __local real_t *rl, __global real_t *out_hi,
                             __global real_t *out_lo)
{
    const uint lid = get_local_id(0), bsize = get_local_size(0), b = get_group_id(0);
    real_t h = 0, l = 0;
    row_tile(pos, n, b, rows, tile, &h, &l);
#if FOLD && !FULL
    if (rows - 1 - b > b) {   /* the same for the whole work-group */
        barrier(CLK_LOCAL_MEM_FENCE);
        row_tile(pos, n, rows - 1 - b, rows, tile, &h, &l);
    }
#endif
    rh[lid] = h;
    rl[lid] = l;
    barrier(CLK_LOCAL_MEM_FENCE);
    reduce_tile(rh, rl, lid, bsize);
    if (lid == 0) {
        out_hi[b] = rh[0];
        out_lo[b] = rl[0];
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
