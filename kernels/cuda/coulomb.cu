/* coulomb.cu - Sirny's tiled all-pairs Coulomb energy in CUDA (see coulomb.cuh).
 *
 * One thread per atom; the (x, y, z, q) of one block at a time are staged through shared memory;
 * the own tile (j > i) and the last, partial tile (j < n) are handled apart so the loop over the
 * full tiles between them has no condition; the inner loop is unrolled UNROLL times with the
 * outer loop kept rolled (#pragma unroll 1), as the thesis's macro unrolling does. FULL sweeps
 * every j != i instead (each pair twice; the host halves the sum). --sweep picks how row tiles
 * map to blocks (a kernel argument, not a template parameter: it decides only which row tiles a
 * block takes): half, block b takes row tile b (the thesis); folded, the half sweep with block b
 * taking row tiles b and rows - 1 - b (equal work per block); full, row tile b. Pass 1 leaves one sum per
 * block (tree in shared memory), pass 2 (one block) sums those. The arrays are padded to whole
 * blocks (padding: charge 0, far away; never read unconditionally). IPT (--ipt) atoms per thread:
 * a block's tile is then blockDim * IPT atoms and each position read from shared memory serves
 * IPT pairs (register blocking: fewer instructions per pair; IPT 1 is the thesis's kernel).
 *
 * Each thread sums q_j / r_ij and multiplies by its q_i once at the end (the thesis multiplies
 * every term: one FMUL per pair more). Modes: 0 float, 1 double, 2 kahan (float terms; plain
 * sums per tile, the tile sums Kahan-compensated per thread, exact TwoSum combination of
 * (hi, lo) pairs in both reductions), 3 pairwise (float terms; a plain sum per tile, tile sums
 * merged pairwise like a binary counter, tree reductions), 4 exact (double terms, every term
 * Kahan-compensated: the reference's arithmetic). */
#include "coulomb.cuh"
#include "cuda_check.cuh"

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

namespace {

template <int MODE> struct ModeT { typedef float R; typedef float4 V4; };
#if CUDART_VERSION >= 13000
typedef double4_32a Double4;   /* CUDA 13 deprecates the unqualified double4 */
#else
typedef double4 Double4;
#endif
template <> struct ModeT<1> { typedef double R; typedef Double4 V4; };
template <> struct ModeT<4> { typedef double R; typedef Double4 V4; };

/* MUFU.RSQ alone: the .ftz form skips the subnormal-input fix-up that rsqrtf carries (two
 * predicated multiplies and a compare per pair; r^2 is never subnormal here) */
__device__ __forceinline__ float rsqrt_(float x)
{
    float y;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ double rsqrt_(double x) { return rsqrt(x); }
__device__ __forceinline__ float fma_(float a, float b, float c) { return fmaf(a, b, c); }

/* kahan and pairwise: row i in coordinates scaled by its own s_i in [1, 2), dx = s_i x_i -
 * s_i x_j in one FMA (the FADD's cost), the row's sum times s_i q_i. Why: in the water boxes
 * the oxygens sit on a lattice, so many pairs share one r^2 and with it one rounding error of
 * dx, r^2 and rsqrt; those errors added up coherently (1.5e-6 .. 2e-6 relative at 240k-630k
 * atoms, runs/coulomb_error.c), the scale makes them independent. Plain float keeps the
 * thesis's arithmetic. */
template <int MODE> struct Scaled { enum { on = MODE == 2 || MODE == 3 }; };
__device__ __forceinline__ float row_scale(unsigned i)   /* a hash of i in [1, 2) */
{
    unsigned h = i;
    h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
    return 1.0f + (float)(h >> 9) * 0x1p-23f;
}
__device__ __forceinline__ double fma_(double a, double b, double c) { return fma(a, b, c); }

template <typename R> struct AccPlain {
    R s;
    __device__ AccPlain() : s(0) {}
    __device__ __forceinline__ void add(R t) { s += t; }
    __device__ __forceinline__ void tile_end() {}
    __device__ __forceinline__ R hi() const { return s; }
    __device__ __forceinline__ R lo() const { return 0; }
};

/* Kahan: s + c is the sum, c what the additions lost. PER_TERM: every term compensated (the
 * exact mode); else a plain sum per tile, each tile's sum added compensated (kahan: the cost
 * per pair of plain float; what a tile of BLOCK terms loses is a few units of rounding of the
 * tile's own sum, which the per-tile sums do not accumulate into the row's). */
template <typename R, bool PER_TERM> struct AccKahan {
    R s, c, t;
    __device__ AccKahan() : s(0), c(0), t(0) {}
    __device__ __forceinline__ void kahan(R x)
    {
        R y = x + c, u = s + y;
        c = y - (u - s);
        s = u;
    }
    __device__ __forceinline__ void add(R x)
    {
        if (PER_TERM) kahan(x);
        else t += x;
    }
    __device__ __forceinline__ void tile_end()
    {
        if (!PER_TERM) {
            kahan(t);
            t = 0;
        }
    }
    __device__ __forceinline__ R hi() const { return s; }
    __device__ __forceinline__ R lo() const { return c; }
};

struct AccPairwise {
    float t, stack[32];
    unsigned count;
    __device__ AccPairwise() : t(0), count(0) {}
    __device__ __forceinline__ void add(float x) { t += x; }
    __device__ __forceinline__ void tile_end()
    {
        float v = t;
        unsigned k = ++count;
        int l = 0;
        while ((k & 1u) == 0) { v += stack[l++]; k >>= 1; }
        stack[l] = v;
        t = 0;
    }
    __device__ __forceinline__ float hi() const
    {
        float s = 0;
        for (int l = 0; l < 32; l++)
            if (count & (1u << l)) s += stack[l];
        return s;
    }
    __device__ __forceinline__ float lo() const { return 0; }
};

template <int MODE> struct AccOf { typedef AccPlain<float> T; };
template <> struct AccOf<1> { typedef AccPlain<double> T; };
template <> struct AccOf<2> { typedef AccKahan<float, false> T; };
template <> struct AccOf<4> { typedef AccKahan<double, true> T; };
template <> struct AccOf<3> { typedef AccPairwise T; };

/* (ah, al) += (bh, bl): exact for the high parts (TwoSum), the low parts added */
template <typename R> __device__ __forceinline__ void two_add(R &ah, R &al, R bh, R bl)
{
    R s = ah + bh, bb = s - ah, e = (ah - (s - bb)) + (bh - bb);
    al = al + bl + e;
    ah = s;
}

template <int MODE, typename R> __device__ void reduce_tile(R *rh, R *rl, unsigned lid, unsigned size)
{
    for (unsigned step = size >> 1; step > 0; step >>= 1) {
        if (lid < step) {
            if (MODE == 2 || MODE == 4) {
                R h = rh[lid], l = rl[lid];
                two_add(h, l, rh[lid + step], rl[lid + step]);
                rh[lid] = h;
                rl[lid] = l;
            } else {
                rh[lid] += rh[lid + step];
            }
        }
        __syncthreads();
    }
}

/* conditions of the boundary tiles: (k, j) = the thread's k-th atom, index j in the tile; the
 * thread's k-th atom is index k * bsize + lid of its own tile */
struct Always { __device__ bool operator()(int, unsigned) const { return true; } };
struct InRange {
    unsigned base, n;
    __device__ bool operator()(int, unsigned j) const { return base + j < n; }
};
struct Above {
    unsigned lid, bsize, base, n;
    __device__ bool operator()(int k, unsigned j) const { return j > k * bsize + lid && base + j < n; }
};
struct NotSelf {
    unsigned lid, bsize, base, n;
    __device__ bool operator()(int k, unsigned j) const { return j != k * bsize + lid && base + j < n; }
};

/* One tile of `size` atoms against the thread's IPT atoms: each atom j read from shared memory
 * once serves IPT pairs (register blocking: the load and the loop's overhead per pair / IPT) */
template <int UNROLL, int IPT, bool SCALED, typename V4, typename R, typename Acc, typename Cond>
__device__ __forceinline__ void tile_loop(const V4 *tile, const V4 (&me)[IPT], const R (&sc)[IPT], unsigned size,
                                          Acc (&acc)[IPT], Cond cond)
{
    /* a pointer loop: its increment, compare and branch are the loop's whole overhead (an index
     * loop adds the address computation: one instruction more per iteration in the SASS) */
    const V4 *const end = tile + size;
#pragma unroll 1
    for (const V4 *t = tile; t < end; t += UNROLL) {
        const unsigned j = (unsigned)(t - tile);   /* the conditions' index; dead in Always */
#pragma unroll
        for (int u = 0; u < UNROLL; u++) {
            const V4 p = t[u];
#pragma unroll
            for (int k = 0; k < IPT; k++) {
                if (cond(k, j + u)) {
                    R dx, dy, dz;
                    if (SCALED) {
                        dx = fma_(-sc[k], p.x, me[k].x), dy = fma_(-sc[k], p.y, me[k].y);
                        dz = fma_(-sc[k], p.z, me[k].z);
                    } else {
                        dx = me[k].x - p.x, dy = me[k].y - p.y, dz = me[k].z - p.z;
                    }
                    acc[k].add(p.w * rsqrt_(dx * dx + dy * dy + dz * dz));   /* q_i: once, at the end */
                }
            }
        }
    }
#pragma unroll
    for (int k = 0; k < IPT; k++) acc[k].tile_end();
}

extern __shared__ __align__(32) unsigned char coulomb_smem[];

/* Row tile g (bsize * IPT atoms; thread lid holds the atoms k * bsize + lid of it, k < IPT, so
 * that the staging loads stay coalesced) against the tiles it sums over; its rows' energies
 * added to the thread's (h, l). rows: the number of row tiles. */
template <int UNROLL, int IPT, int MODE, bool FULL>
__device__ __forceinline__ void row_tile(const typename ModeT<MODE>::V4 *__restrict__ pos, unsigned n, unsigned g,
                                         unsigned rows, typename ModeT<MODE>::V4 *tile, typename ModeT<MODE>::R &h,
                                         typename ModeT<MODE>::R &l)
{
    typedef typename ModeT<MODE>::R R;
    typedef typename ModeT<MODE>::V4 V4;
    const unsigned lid = threadIdx.x, bsize = blockDim.x;
    const unsigned ts = bsize * IPT, own = g * ts, last = (rows - 1) * ts;
    constexpr bool SC = Scaled<MODE>::on;
    V4 me[IPT];
    R sc[IPT];
    typename AccOf<MODE>::T acc[IPT];
#pragma unroll
    for (int k = 0; k < IPT; k++) {
        me[k] = pos[own + k * bsize + lid];
        sc[k] = 1;
        if (SC) {
            sc[k] = row_scale(own + k * bsize + lid);
            me[k].x *= sc[k]; me[k].y *= sc[k]; me[k].z *= sc[k]; me[k].w *= sc[k];
        }
    }
    const bool active = own + lid < n;   /* its first atom; the others may be padding (q = 0) */
    auto stage = [&](unsigned base) {
#pragma unroll
        for (int k = 0; k < IPT; k++) tile[k * bsize + lid] = pos[base + k * bsize + lid];
    };

    if (FULL) {
        for (unsigned t = 0; t + 1 < rows; t++) {
            stage(t * ts);
            __syncthreads();
            if (active) {
                if (t == g) tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, NotSelf{lid, bsize, own, n});
                else tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, Always{});
            }
            __syncthreads();
        }
        stage(last);
        __syncthreads();
        if (active) {
            if (g == rows - 1) tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, NotSelf{lid, bsize, last, n});
            else tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, InRange{last, n});
        }
    } else {
        /* the own tile: j > i */
        stage(own);
        __syncthreads();
        if (active) tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, Above{lid, bsize, own, n});
        __syncthreads();
        /* the full tiles after it, but the last: no condition */
        for (unsigned t = g + 1; t + 1 < rows; t++) {
            stage(t * ts);
            __syncthreads();
            if (active) tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, Always{});
            __syncthreads();
        }
        /* the last tile, unless it is the own one */
        if (g != rows - 1) {
            stage(last);
            __syncthreads();
            if (active) tile_loop<UNROLL, IPT, SC>(tile, me, sc, ts, acc, InRange{last, n});
        }
    }
    /* each row's sum sum_j q_j / r_ij times q_i; for a (hi, lo) pair hi q_i exactly as
     * hi' + e (FMA), e carried into lo; the thread's IPT rows added as (hi, lo) pairs */
    if (active) {
#pragma unroll
        for (int k = 0; k < IPT; k++) {
            R rh_k = acc[k].hi() * me[k].w, rl_k = acc[k].lo() * me[k].w;
            if (MODE == 2 || MODE == 4) {
                rl_k += fma_(acc[k].hi(), me[k].w, -rh_k);
                two_add(h, l, rh_k, rl_k);
            } else {
                h += rh_k;
            }
        }
    }
}

/* Row tiles to blocks. half (fold 0, the thesis): block b takes row tile b, rows blocks of
 * decreasing work (block 0 the longest; it ran alone at the end: SMs idle a quarter of the time
 * at 240k atoms, ncu). folded (fold 1): block b takes row tiles b and then rows - 1 - b, rows + 1
 * tiles of work for every block, (rows + 1) / 2 blocks; the thread's (h, l) carries over from
 * the first row tile to the second. The full sweep is uniform already: row tile b (fold 0). */
template <int UNROLL, int IPT, int MODE, bool FULL>
__global__ void coulomb_energy_kernel(const typename ModeT<MODE>::V4 *__restrict__ pos, unsigned n, unsigned rows,
                                      unsigned fold, typename ModeT<MODE>::R *out_hi, typename ModeT<MODE>::R *out_lo)
{
    typedef typename ModeT<MODE>::R R;
    typedef typename ModeT<MODE>::V4 V4;
    const unsigned lid = threadIdx.x, bsize = blockDim.x, b = blockIdx.x;
    V4 *tile = reinterpret_cast<V4 *>(coulomb_smem);
    R *rh = reinterpret_cast<R *>(tile + bsize * IPT), *rl = rh + bsize;
    R h = 0, l = 0;
    row_tile<UNROLL, IPT, MODE, FULL>(pos, n, b, rows, tile, h, l);
    if (!FULL && fold && rows - 1 - b > b) {   /* the same for the whole block */
        __syncthreads();
        row_tile<UNROLL, IPT, MODE, FULL>(pos, n, rows - 1 - b, rows, tile, h, l);
    }
    rh[lid] = h;
    rl[lid] = l;
    __syncthreads();
    reduce_tile<MODE>(rh, rl, lid, bsize);
    if (lid == 0) {
        out_hi[b] = rh[0];
        out_lo[b] = rl[0];
    }
}

/* pass 2, one block: the blocks' sums to one (hi, lo) pair */
template <int MODE>
__global__ void coulomb_sum_kernel(const typename ModeT<MODE>::R *in_hi, const typename ModeT<MODE>::R *in_lo,
                                   unsigned count, typename ModeT<MODE>::R *result)
{
    typedef typename ModeT<MODE>::R R;
    R *rh = reinterpret_cast<R *>(coulomb_smem), *rl = rh + blockDim.x;
    const unsigned lid = threadIdx.x, size = blockDim.x;
    R h = 0, l = 0;
    for (unsigned k = lid; k < count; k += size) {
        if (MODE == 2 || MODE == 4) two_add(h, l, in_hi[k], in_lo[k]);
        else h += in_hi[k];
    }
    rh[lid] = h;
    rl[lid] = l;
    __syncthreads();
    reduce_tile<MODE>(rh, rl, lid, size);
    if (lid == 0) {
        result[0] = rh[0];
        result[1] = rl[0];
    }
}

typedef void (*EnergyLaunch)(const void *pos, unsigned n, unsigned rows, unsigned fold, void *hi, void *lo,
                             unsigned groups, unsigned block, size_t smem);
typedef void (*SumLaunch)(const void *hi, const void *lo, unsigned count, void *result, unsigned block, size_t smem);
typedef cudaError_t (*KernelAttr)(cudaFuncAttributes *a);   /* the instantiation's registers, static shared memory */
struct EnergyFns { EnergyLaunch launch; KernelAttr attr; };
struct SumFns { SumLaunch launch; KernelAttr attr; };

template <int U, int I, int M, bool F>
void launch_energy(const void *pos, unsigned n, unsigned rows, unsigned fold, void *hi, void *lo, unsigned groups,
                   unsigned block, size_t smem)
{
    typedef typename ModeT<M>::R R;
    typedef typename ModeT<M>::V4 V4;
    coulomb_energy_kernel<U, I, M, F><<<groups, block, smem>>>((const V4 *)pos, n, rows, fold, (R *)hi, (R *)lo);
}

template <int U, int I, int M, bool F> cudaError_t attr_energy(cudaFuncAttributes *a)
{
    return cudaFuncGetAttributes(a, coulomb_energy_kernel<U, I, M, F>);
}
template <int U, int I, int M, bool F> EnergyFns energy_fns()
{
    EnergyFns f = {launch_energy<U, I, M, F>, attr_energy<U, I, M, F>};
    return f;
}

template <int M> void launch_sum(const void *hi, const void *lo, unsigned count, void *result, unsigned block, size_t smem)
{
    typedef typename ModeT<M>::R R;
    coulomb_sum_kernel<M><<<1, block, smem>>>((const R *)hi, (const R *)lo, count, (R *)result);
}

template <int M> cudaError_t attr_sum(cudaFuncAttributes *a) { return cudaFuncGetAttributes(a, coulomb_sum_kernel<M>); }
template <int M> SumFns sum_fns()
{
    SumFns f = {launch_sum<M>, attr_sum<M>};
    return f;
}

template <int I, int M, bool F> EnergyFns pick_unroll(int u)
{
    switch (u) {
    case 1: return energy_fns<1, I, M, F>();
    case 2: return energy_fns<2, I, M, F>();
    case 4: return energy_fns<4, I, M, F>();
    default: return energy_fns<8, I, M, F>();
    }
}
template <int M, bool F> EnergyFns pick_ipt(int i, int u)
{
    switch (i) {
    case 1: return pick_unroll<1, M, F>(u);
    case 2: return pick_unroll<2, M, F>(u);
    default: return pick_unroll<4, M, F>(u);
    }
}
template <bool F> EnergyFns pick_mode(int m, int i, int u)
{
    switch (m) {
    case ACC_FLOAT: return pick_ipt<0, F>(i, u);
    case ACC_DOUBLE: return pick_ipt<1, F>(i, u);
    case ACC_KAHAN: return pick_ipt<2, F>(i, u);
    case ACC_EXACT: return pick_ipt<4, F>(i, u);
    default: return pick_ipt<3, F>(i, u);
    }
}
SumFns pick_sum(int m)
{
    switch (m) {
    case ACC_FLOAT: return sum_fns<0>();
    case ACC_DOUBLE: return sum_fns<1>();
    case ACC_KAHAN: return sum_fns<2>();
    case ACC_EXACT: return sum_fns<4>();
    default: return sum_fns<3>();
    }
}

struct CuCtx {
    void *pos, *hi, *lo, *result;
    unsigned rows, groups, block, block2;   /* row tiles; blocks launched (folded: (rows + 1) / 2) */
    unsigned fold;                          /* --sweep folded */
    size_t real_size, smem, smem2;
    EnergyLaunch energy;
    SumLaunch sum;
    cudaEvent_t start, stop;
    char device[256];
};

void cu_setup(CoulombRun *r)
{
    const CoulombParams *p = r->p;
    int count = 0;
    cuda_require_device("coulomb-cuda");   /* coulomb_main's preflight said so already */
    CUDA_CHECK(cudaGetDeviceCount(&count));
    if (p->device >= count)
        nbr_fail(EXIT_INPUT, "coulomb-cuda: --device %d: there are %d CUDA devices", p->device, count);
    CUDA_CHECK(cudaSetDevice(p->device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, p->device));
    CuCtx *c = (CuCtx *)calloc(1, sizeof *c);
    if (!c) nbr_fail(EXIT_CAPACITY, "cannot allocate the CUDA context");
    snprintf(c->device, sizeof c->device, "%s", prop.name);
    const int mode = p->acc;
    const bool dbl = mode == ACC_DOUBLE || mode == ACC_EXACT;
    c->real_size = dbl ? sizeof(double) : sizeof(float);
    c->block = (unsigned)p->block;
    const unsigned ipt = (unsigned)p->ipt, ts = c->block * ipt;   /* a block's tile: block * ipt atoms */
    const EnergyFns efn = p->sweep == SWEEP_FULL ? pick_mode<true>(mode, p->ipt, p->unroll)
                                                 : pick_mode<false>(mode, p->ipt, p->unroll);
    const SumFns sfn = pick_sum(mode);
    c->energy = efn.launch;
    c->sum = sfn.launch;
    /* --block and the shared memory it needs, against the device's and this instantiation's
     * limits (its registers bound its threads per block; dynamic shared memory is not opted in
     * beyond sharedMemPerBlock): refused here, exit 2 with one line naming the limit and its
     * value, before any kernel is launched, never left to a launch error */
    cudaFuncAttributes ea, sa;
    CUDA_CHECK(efn.attr(&ea));
    CUDA_CHECK(sfn.attr(&sa));
    if (c->block > (unsigned)prop.maxThreadsPerBlock)
        nbr_fail(EXIT_INPUT, "coulomb-cuda: --block %u is more than cudaDeviceProp.maxThreadsPerBlock %d of %s", c->block,
                 prop.maxThreadsPerBlock, prop.name);
    if (c->block > (unsigned)ea.maxThreadsPerBlock)
        nbr_fail(EXIT_INPUT, "coulomb-cuda: --block %u is more than the %d threads per block %s allows this kernel "
                 "(cudaFuncAttributes.maxThreadsPerBlock: %d registers per thread at --unroll %d --ipt %u --acc %s)",
                 c->block, ea.maxThreadsPerBlock, prop.name, ea.numRegs, p->unroll, ipt, acc_names[mode]);
    c->smem = (ts * 4 + c->block * 2) * c->real_size;
    const size_t smem_limit = (size_t)prop.sharedMemPerBlock < (size_t)ea.sharedSizeBytes
                                  ? 0 : (size_t)prop.sharedMemPerBlock - ea.sharedSizeBytes;
    if (c->smem > smem_limit)
        nbr_fail(EXIT_INPUT, "coulomb-cuda: --block %u with --ipt %u and %zu-byte reals (--acc %s%s) needs %zu bytes of "
                 "shared memory per block (a tile of %u atoms x 4 reals, 2 x %u partial sums) beside the kernel's %zu "
                 "static, more than cudaDeviceProp.sharedMemPerBlock %zu of %s: lower --block or --ipt",
                 c->block, ipt, c->real_size, acc_names[mode],
                 mode == ACC_EXACT ? ": also the --ref device reference's precision" : "", c->smem, ts, c->block,
                 (size_t)ea.sharedSizeBytes, (size_t)prop.sharedMemPerBlock, prop.name);
    /* pass 2's block: 256, halved to what its kernel and the shared memory allow */
    for (c->block2 = 256; c->block2 > 1 && (c->block2 > (unsigned)sa.maxThreadsPerBlock ||
                                           c->block2 * 2 * c->real_size + sa.sharedSizeBytes > prop.sharedMemPerBlock);
         c->block2 >>= 1) {}
    c->smem2 = c->block2 * 2 * c->real_size;

    const long n = r->sys->n;
    c->rows = (unsigned)((n + ts - 1) / ts);
    c->fold = p->sweep == SWEEP_FOLDED;
    c->groups = c->fold ? (c->rows + 1) / 2 : c->rows;
    const size_t npad = (size_t)c->rows * ts;
    void *host = nbr_alloc(npad * 4 * c->real_size, "CUDA positions");
    for (size_t i = 0; i < npad; i++) {
        const bool in = (long)i < n;
        const double v[4] = {in ? r->sys->x[i] : 1e15, in ? r->sys->y[i] : 1e15, in ? r->sys->z[i] : 1e15,
                             in ? r->sys->q[i] : 0};
        for (int k = 0; k < 4; k++)
            if (dbl) ((double *)host)[4 * i + k] = v[k];
            else ((float *)host)[4 * i + k] = (float)v[k];
    }
    CUDA_CHECK(cudaMalloc(&c->pos, npad * 4 * c->real_size));
    CUDA_CHECK(cudaMemcpy(c->pos, host, npad * 4 * c->real_size, cudaMemcpyHostToDevice));
    free(host);
    CUDA_CHECK(cudaMalloc(&c->hi, c->groups * c->real_size));
    CUDA_CHECK(cudaMalloc(&c->lo, c->groups * c->real_size));
    CUDA_CHECK(cudaMalloc(&c->result, 2 * c->real_size));
    CUDA_CHECK(cudaEventCreate(&c->start));
    CUDA_CHECK(cudaEventCreate(&c->stop));
    r->ctx = c;
}

double cu_energy(CoulombRun *r, double *seconds)
{
    CuCtx *c = (CuCtx *)r->ctx;
    CUDA_CHECK(cudaEventRecord(c->start));
    c->energy(c->pos, (unsigned)r->sys->n, c->rows, c->fold, c->hi, c->lo, c->groups, c->block, c->smem);
    LAUNCH_CHECK("coulomb_energy_kernel");
    c->sum(c->hi, c->lo, c->groups, c->result, c->block2, c->smem2);
    LAUNCH_CHECK("coulomb_sum_kernel");
    CUDA_CHECK(cudaEventRecord(c->stop));
    CUDA_CHECK(cudaEventSynchronize(c->stop));
    float ms = 0;
    CUDA_CHECK(cudaEventElapsedTime(&ms, c->start, c->stop));
    *seconds = ms * 1e-3;
    double res[2];
    if (c->real_size == sizeof(double)) {
        CUDA_CHECK(cudaMemcpy(res, c->result, sizeof res, cudaMemcpyDeviceToHost));
    } else {
        float f[2];
        CUDA_CHECK(cudaMemcpy(f, c->result, sizeof f, cudaMemcpyDeviceToHost));
        res[0] = f[0];
        res[1] = f[1];
    }
    const double e = COULOMB_K * (res[0] + res[1]);
    return r->p->sweep == SWEEP_FULL ? 0.5 * e : e;
}

const char *cu_device(CoulombRun *r) { return ((CuCtx *)r->ctx)->device; }

void cu_teardown(CoulombRun *r)
{
    CuCtx *c = (CuCtx *)r->ctx;
    if (!c) return;
    cudaFree(c->pos); cudaFree(c->hi); cudaFree(c->lo); cudaFree(c->result);
    cudaEventDestroy(c->start); cudaEventDestroy(c->stop);
    free(c);
    r->ctx = NULL;
}

} // namespace

#ifndef NBR_COMPILER
#define NBR_COMPILER "nvcc"
#endif
extern const CoulombImpl coulomb_cuda_impl = {
    CIMPL_CUDA, CKNOB_CUDA | CKNOB_TILED, NBR_COMPILER, cu_setup, cu_energy, cu_device, cu_teardown, cuda_require_device,
};
