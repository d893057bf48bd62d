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
#include "../rebuild_rule.h"

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
        const real u = pot_lj_inv(pot.lj, cluster_rcp(r2), &fr);
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

/* Slots k, k + K, ... of the batch against atom i (ri; index i for the self mask); with Prune,
 * bit q of *near says slot k + q K lies within the inner rows' radius of atom i. */
template <int Kind, int C, bool Self, bool Shifted, bool Energy, bool Prune>
__device__ __forceinline__ void cluster_batch(const real4 *js, const real4 *jh, const int *jid, int k, int i,
                                              const real4 &ri, const PairPotential &pot, ForceSum &acc,
                                              real rin2, unsigned *near)
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
        if (Prune) *near |= (unsigned)(dx * dx + dy * dy + dz * dz < rin2) << q;
    }
}

/* The batch's slots within the inner radius of any of the cluster's atoms: slot k + q K is
 * evaluated by lanes k C .. k C + C - 1 at step q of cluster_batch. */
template <int C>
__device__ __forceinline__ unsigned cluster_batch_keep(unsigned near)
{
    constexpr int K = 32 / C;
    constexpr unsigned group = C == 32 ? 0xffffffffu : (1u << C) - 1;
    unsigned keep = 0;
#pragma unroll
    for (int q = 0; q < C; q++) {
        const unsigned b = __ballot_sync(0xffffffffu, near >> q & 1u);
#pragma unroll
        for (int k = 0; k < K; k++)
            if (b >> (k * C) & group) keep |= 1u << (k + q * K);
    }
    return keep;
}

/* The inner rows of --prune (gpu-cluster): where and when. mode: PRUNE_OFF (the rows only),
 * PRUNE_NOW / PRUNE_INNER (the host decided: rewrite the inner rows from the rows, or read
 * them), PRUNE_DEVICE (*flag decides: the device loop's prune_now). */
struct ClusterPrune {
    unsigned *W;       /* inner rows, the rows' stride */
    int *count;        /* entries per inner row */
    const int *flag;
    int mode;
    real rin2;         /* (r_c + buffer)^2 */
};

/* The forces from one row (m_total entries of Cj slots); with Prune the entries with a slot
 * within the inner radius of a cluster atom are copied, in order, into the inner row (the own
 * cluster's stay first: r_ii = 0). */
template <int Kind, int C, int Cj, bool Energy, bool Prune>
__device__ __forceinline__ void cluster_row(const PairForceArgs &A, const unsigned *row, int m_total, int lane, int i,
                                            const real4 &ri, real4 *js, real4 *jh, int *jid, ForceSum &f,
                                            const ClusterPrune &P, unsigned *out_row, int *out_count)
{
    const unsigned full = 0xffffffffu;
    const int k = lane / C;
    const real L = A.box.L;
    const int slots = m_total * Cj;   /* j slots of the row, padding of short units included */
    int kept = 0;
    for (int base = 0; base < slots; base += 32) {
        const int e = (base + lane) / Cj, q = (base + lane) % Cj;
        real4 rj = make_real4(-FAR_AWAY, -FAR_AWAY, -FAR_AWAY, 0), h = make_real4(0, 0, 0, 0);
        int j = -1;
        bool shifted = false;
        unsigned en = 0;
        if (e < m_total) {
            en = __ldg(row + e);
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
        unsigned near = 0;
        if (base == 0) {   /* the own cluster's atoms are here: mask i = j */
            if (any_shift) cluster_batch<Kind, C, true, true, Energy, Prune>(js, jh, jid, k, i, ri, A.pot, f, P.rin2, &near);
            else cluster_batch<Kind, C, true, false, Energy, Prune>(js, jh, jid, k, i, ri, A.pot, f, P.rin2, &near);
        } else if (any_shift) {
            cluster_batch<Kind, C, false, true, Energy, Prune>(js, jh, jid, k, i, ri, A.pot, f, P.rin2, &near);
        } else {
            cluster_batch<Kind, C, false, false, Energy, Prune>(js, jh, jid, k, i, ri, A.pot, f, P.rin2, &near);
        }
        if (Prune) {   /* an entry's first slot's lane writes it where one of its Cj slots is near */
            unsigned keep = cluster_batch_keep<C>(near);
            constexpr unsigned unit = Cj == 32 ? full : (1u << Cj) - 1;
            bool write = e < m_total && q == 0 && (keep >> lane & unit);
            if (CLUSTER_PLANT == 7) {
                const unsigned w = __ballot_sync(full, write);
                write = write && w >> lane != 1u;
            }
            const unsigned writers = __ballot_sync(full, write);
            if (write) out_row[kept + __popc(writers & ((1u << lane) - 1))] = en;
            kept += __popc(writers);
        }
        __syncwarp();
    }
    if (Prune && lane == 0 && out_count) *out_count = kept;
}

template <int Kind, int C, int Cj, bool Energy>
__global__ void __launch_bounds__(CLUSTER_FORCE_THREADS) cluster_force_kernel(PairForceArgs A, const int *__restrict__ cl_first,
                                                            const int *__restrict__ cl_count,
                                                            const int *__restrict__ row_count, const int *total,
                                                            ClusterPrune P)
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
    /* one value for the whole grid: the flag changes only between launches */
    const bool prune = P.mode == PRUNE_NOW || (P.mode == PRUNE_DEVICE && *P.flag);
    const bool inner = P.mode != PRUNE_OFF && !prune;
    int i = -1, cnt = 0, m_total = 0;
    real4 ri = make_real4(FAR_AWAY, FAR_AWAY, FAR_AWAY, 0);
    if (active) {
        cnt = cl_count[I];
        m_total = min(inner ? P.count[I] : row_count[I], A.nbr_cap);
        if (t < cnt) {
            i = cl_first[I] + t;
            ri = A.pos.ptr[i];
        }
    }
    const size_t row_at = (size_t)(active ? I : 0) * A.nbr_cap;
    const unsigned *row = (inner ? P.W : (const unsigned *)A.W) + row_at;
    ForceSum f = {0, 0, 0, 0, 0};
    if (prune)
        cluster_row<Kind, C, Cj, Energy, true>(A, row, m_total, lane, i, ri, js, jh, jid, f, P, P.W + row_at,
                                               active ? P.count + I : nullptr);
    else
        cluster_row<Kind, C, Cj, Energy, false>(A, row, m_total, lane, i, ri, js, jh, jid, f, P, nullptr, nullptr);
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

void cluster_force_launch(const PairForceArgs &A, const ClusterList &cl, const ClusterPruneSpec &spec, int potential, int energy,
                          cudaStream_t stream)
{
    const ClusterPrune P = {spec.W, spec.count, spec.flag, spec.mode,
                            CLUSTER_PLANT == 5 ? A.pot.rc2 : (real)spec.rin2};
    const int threads = CLUSTER_FORCE_THREADS, blocks = cluster_force_blocks(cl.geo);
    const size_t shared = (size_t)(threads / 32) * 32 * (2 * sizeof(real4) + sizeof(int));
    const ClusterGeom &geo = cl.geo;
    dispatch_potential(potential, [&](auto kind) {
        constexpr int Kd = decltype(kind)::value;
        auto run = [&](auto c, auto cj) {
            constexpr int Ci = decltype(c)::value, Cj = decltype(cj)::value;
            if (energy)
                cluster_force_kernel<Kd, Ci, Cj, true><<<blocks, threads, shared, stream>>>(A, cl.cl_first, cl.cl_count,
                                                                                           cl.row_count, cl.status_units, P);
            else
                cluster_force_kernel<Kd, Ci, Cj, false><<<blocks, threads, shared, stream>>>(A, cl.cl_first, cl.cl_count,
                                                                                            cl.row_count, cl.status_units, P);
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

int cluster_prune_due(int rebuilt, double disp, double disp_pruned, double threshold)
{
    return prune_due(rebuilt, disp, disp_pruned, CLUSTER_PLANT == 6 ? INFINITY : threshold);
}
