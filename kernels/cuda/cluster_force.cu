/* cluster_force.cu - forces over the cluster-pair list (cluster_list.cuh), gpu-cluster's force
 * stage.
 *
 * A warp per i-cluster of C atoms: lane = k C + t holds atom t of the cluster (its position in
 * registers), K = 32 / C lanes per atom. The row is read in batches of 32 j atoms (32 entries of
 * one atom, or 32 / Cj entries of Cj): each lane decodes one, loads its position once and puts it,
 * moved by half the entry's periodic image, in the warp's shared slots; then lane (k, t) takes
 * slots k, k + K, ..., C of them, so each j position loaded serves the C atoms of the cluster from
 * shared memory. No minimum image: a batch whose entries are all unshifted (nearly all, away
 * from the box's faces; one vote per batch) forms r_i - r_j; otherwise r_i - r_j - S as
 * (r_i - S/2) - (r_j + S/2), pbc_delta's split form, exact where both halves are near L/2. The
 * own cluster's atoms come first in the row, so only the first batch compares indices to mask
 * i = j; padding (past a unit's atoms, past the row's end) and idle atoms sit far away, beyond
 * any cutoff. At the end the K lanes of each atom add their sums (shuffles) and one writes a_i,
 * u_i; the block sums go to the partials as pair_force_kernel's do (force_block_sums). No
 * Newton's third law: every pair is evaluated from both clusters' rows, so no atomics. */
#include "cluster_list.cuh"

#define FAR_AWAY ((real)1e30)

/* 1 / x: float the special-function unit's approximation (within 1 ulp; 1/inf = 0), double
 * the correctly rounded reciprocal (the double tolerance of --check is 1e-12) */
__device__ __forceinline__ float cluster_rcp(float x)
{
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}
__device__ __forceinline__ double cluster_rcp(double x) { return __drcp_rn(x); }

/* One slot. LJ: branch-free, every slot evaluated and the force selected where within r_c
 * (most slots are not, and a warp's lanes would diverge on the test: the branch cost as much);
 * charged: pair_of_kind under the test. */
template <int Kind, bool Self, bool Energy>
__device__ __forceinline__ void cluster_pair(real dx, real dy, real dz, real qq, bool distinct,
                                             const PairPotential &pot, ForceSum &acc)
{
    const real r2 = dx * dx + dy * dy + dz * dz;
    const bool in = r2 < pot.rc2 && (!Self || distinct);
    if constexpr (Kind == POT_LJ) {
        real fr;
        const real u = pair_lj_inv(pot, cluster_rcp(r2), &fr);
        fr = in ? fr : (real)0;
        acc.fx += fr * dx; acc.fy += fr * dy; acc.fz += fr * dz;
        if (Energy) {   /* selected, not multiplied by a zero fr: padding's r^2 is inf in float */
            acc.u += in ? u : (real)0;
            acc.w += in ? fr * r2 : (real)0;
        }
    } else if (in) {
        real fr;
        const real u = pair_of_kind<Kind>(pot, r2, qq, &fr);
        acc.fx += fr * dx; acc.fy += fr * dy; acc.fz += fr * dz;
        if (Energy) {
            acc.u += u;
            acc.w += fr * r2;
        }
    }
}

/* Slots k, k + K, ... of the batch against atom i (ri; index i for the self mask). */
template <int Kind, int C, bool Self, bool Shifted, bool Energy>
__device__ __forceinline__ void cluster_batch(const real4 *js, const real4 *jh, const int *jid, int k, int i,
                                              const real4 &ri, const PairPotential &pot, ForceSum &acc)
{
    constexpr int K = 32 / C;
#pragma unroll
    for (int q = 0; q < C; q++) {
        const int s = k + q * K;
        const real4 rj = js[s];
        real dx, dy, dz;
        if (Shifted) {
            const real4 h = jh[s];
            dx = (ri.x - h.x) - rj.x; dy = (ri.y - h.y) - rj.y; dz = (ri.z - h.z) - rj.z;
        } else {
            dx = ri.x - rj.x; dy = ri.y - rj.y; dz = ri.z - rj.z;
        }
        const bool distinct = jid[s] != i && !(CLUSTER_PLANT == 3 && jid[s] == i + 1);
        cluster_pair<Kind, Self, Energy>(dx, dy, dz, ri.w * rj.w, !Self || distinct, pot, acc);
    }
}

template <int Kind, int C, int Cj, bool Energy>
__global__ void __launch_bounds__(CLUSTER_FORCE_THREADS) cluster_force_kernel(PairForceArgs A, const int *__restrict__ cl_first,
                                                            const int *__restrict__ cl_count,
                                                            const int *__restrict__ row_count, const int *total)
{
    extern __shared__ unsigned char smem[];
    const unsigned full = 0xffffffffu;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = blockDim.x >> 5;
    real4 *js = (real4 *)smem + warp * 32;
    real4 *jh = (real4 *)smem + (warps + warp) * 32;
    int *jid = (int *)((real4 *)smem + 2 * warps * 32) + warp * 32;
    const int I = blockIdx.x * warps + warp;
    const bool active = I < *total;
    const int t = lane % C, k = lane / C;
    int i = -1, cnt = 0, m_total = 0;
    real4 ri = make_real4(FAR_AWAY, FAR_AWAY, FAR_AWAY, 0);
    if (active) {
        cnt = cl_count[I];
        m_total = min(row_count[I], A.nbr_cap);
        if (t < cnt) {
            i = cl_first[I] + t;
            ri = A.pos.ptr[i];
        }
    }
    const unsigned *row = (const unsigned *)A.W + (size_t)(active ? I : 0) * A.nbr_cap;
    const real L = A.box.L;
    ForceSum f = {0, 0, 0, 0, 0};
    const int slots = m_total * Cj;   /* j slots of the row, padding of short units included */
    for (int base = 0; base < slots; base += 32) {
        const int e = (base + lane) / Cj, q = (base + lane) % Cj;
        real4 rj = make_real4(-FAR_AWAY, -FAR_AWAY, -FAR_AWAY, 0), h = make_real4(0, 0, 0, 0);
        int j = -1;
        bool shifted = false;
        if (e < m_total) {
            const unsigned en = __ldg(row + e);
            const int code = (int)(en & ENTRY_CODE_MASK);
            if (q <= (int)(en >> ENTRY_ATOMS & 7) + (CLUSTER_PLANT == 4)) {
                j = (int)(en >> ENTRY_FIRST) + q;
                rj = ldg_real4(A.pos.ptr + j);
                if (code != SHIFT_NONE) {
                    shifted = true;
                    const real hL = (real)0.5 * L;
                    h.x = (code % 3 - 1) * hL; h.y = (code / 3 % 3 - 1) * hL; h.z = (code / 9 - 1) * hL;
                    rj.x += h.x; rj.y += h.y; rj.z += h.z;
                }
            }
        }
        const bool any_shift = __any_sync(full, shifted);
        js[lane] = rj;
        if (any_shift) jh[lane] = h;
        if (base == 0) jid[lane] = j;
        __syncwarp();
        if (base == 0) {   /* the own cluster's atoms are here: mask i = j */
            if (any_shift) cluster_batch<Kind, C, true, true, Energy>(js, jh, jid, k, i, ri, A.pot, f);
            else cluster_batch<Kind, C, true, false, Energy>(js, jh, jid, k, i, ri, A.pot, f);
        } else if (any_shift) {
            cluster_batch<Kind, C, false, true, Energy>(js, jh, jid, k, i, ri, A.pot, f);
        } else {
            cluster_batch<Kind, C, false, false, Energy>(js, jh, jid, k, i, ri, A.pot, f);
        }
        __syncwarp();
    }
    /* the K lanes of atom t: lanes t, t + C, ... */
#pragma unroll
    for (int o = C; o < 32; o <<= 1) {
        f.fx += __shfl_xor_sync(full, f.fx, o);
        f.fy += __shfl_xor_sync(full, f.fy, o);
        f.fz += __shfl_xor_sync(full, f.fz, o);
        if (Energy) {
            f.u += __shfl_xor_sync(full, f.u, o);
            f.w += __shfl_xor_sync(full, f.w, o);
        }
    }
    real ui = 0, wi = 0;
    if (i >= 0 && k == 0) {
        A.a[i] = make_real4(f.fx, f.fy, f.fz, 0);
        if (Energy) {
            ui = (real)0.5 * f.u;
            wi = (real)0.5 * f.w;
            A.u[i] = ui;
        }
    }
    if (Energy) force_block_sums<0>(A, blockIdx.x, ui, wi);
}

void cluster_force_launch(const PairForceArgs &A, const ClusterList &cl, int potential, int energy, cudaStream_t stream)
{
    const int threads = CLUSTER_FORCE_THREADS, blocks = cluster_force_blocks(cl.geo);
    const size_t shared = (size_t)(threads / 32) * 32 * (2 * sizeof(real4) + sizeof(int));
    const ClusterGeom &geo = cl.geo;
    dispatch_potential(potential, [&](auto kind) {
        constexpr int Kd = decltype(kind)::value;
        auto run = [&](auto c, auto cj) {
            constexpr int Ci = decltype(c)::value, Cj = decltype(cj)::value;
            if (energy)
                cluster_force_kernel<Kd, Ci, Cj, true><<<blocks, threads, shared, stream>>>(A, cl.cl_first, cl.cl_count,
                                                                                           cl.row_count, cl.status_units);
            else
                cluster_force_kernel<Kd, Ci, Cj, false><<<blocks, threads, shared, stream>>>(A, cl.cl_first, cl.cl_count,
                                                                                            cl.row_count, cl.status_units);
        };
        typedef std::integral_constant<int, 1> One;
        typedef std::integral_constant<int, 4> Four;
        typedef std::integral_constant<int, 8> Eight;
        if (geo.C == 4) geo.Cj == 1 ? run(Four{}, One{}) : run(Four{}, Four{});
        else if (geo.Cj == 1) run(Eight{}, One{});
        else if (geo.Cj == 4) run(Eight{}, Four{});
        else run(Eight{}, Eight{});
    });
    LAUNCH_CHECK("cluster_force_kernel");
}

double cluster_force_bytes(const ClusterGeom &geo, double n, double entries)
{
    const double r4 = sizeof(real4);
    return r4 * n + 4 * entries + 12.0 * geo.max_clusters + r4 * n + sizeof(real) * n;
}
