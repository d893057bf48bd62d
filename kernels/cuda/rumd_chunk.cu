/* rumd_chunk.cu - gpu-rumd's chunk kernel (rumd_chunk.cuh says what it is made of). */
#include "rumd_chunk.cuh"
#include "chunk_sync.cuh"
#include "decide.cuh"
#include "leapfrog.cuh"

/* The test builds' planted faults (-DRUMD_CHUNK_PLANT=K, test-rumd-chunk-plant-K; docs/mutants.md):
 * 1 the largest v^2 of block 0's atoms alone, 2 no list build after a resume (the atoms sorted,
 * the lists of the old order kept), 3 no list build at all; 0 elsewhere. */
#ifndef RUMD_CHUNK_PLANT
#define RUMD_CHUNK_PLANT 0
#endif

namespace {

/* The largest v^2 of the block's atoms into the control block; at the sample point also the
 * per-atom launch's kinetic partials, atom block by atom block (the same atoms to a partial as
 * kick_props and leapfrog_kernel sum). Per atom leapfrog_kernel's arithmetic: the second
 * half-kick, v^2, and with drift the next step's half-kick and drift. */
__device__ __forceinline__ void kick_atoms(const RumdChunkArgs &A, int n, bool drift)
{
    const real4 *a = A.F.a;
    double most = 0;
    for (int vb = blockIdx.x; vb < A.atom_blocks; vb += gridDim.x) {   /* uniform over the block */
        double sum = 0, vb_most = 0;
        for (int t = threadIdx.x; t < A.atom_threads; t += blockDim.x) {
            const int i = vb * A.atom_threads + t;
            if (i >= n) break;
            real4 vi = A.v[i];
            const real4 ai = a[i];
            const double vv = leapfrog_end(vi, ai, A.half_dt, A.dt, drift, A.r + i);
            A.v[i] = vi;
            sum += vv;
            vb_most = fmax(vb_most, vv);
        }
        most = fmax(most, vb_most);
        if (!drift) {   /* the sample point's partials */
            const double s = block_reduce(sum, SumOp(), 0.0), m = block_reduce(vb_most, MaxOp(), 0.0);
            if (threadIdx.x == 0) {
                A.part_ukin[vb] = s;
                A.part_vvmax[vb] = m;
            }
        }
    }
    most = block_reduce(most, MaxOp(), 0.0);
    if (threadIdx.x == 0 && (RUMD_CHUNK_PLANT != 1 || blockIdx.x == 0))
        atomicMax(&A.c->vvmax_bits, (unsigned long long)__double_as_longlong(most));
}

template <int Kind, int TP, bool Prefetch, bool AllPairs>
__global__ void __launch_bounds__(1024) rumd_chunk_kernel(RumdChunkArgs A)
{
    extern __shared__ __align__(32) unsigned char smem[];
    DeviceControl *c = A.c;
    const int n = A.F.n, rank = blockIdx.x * blockDim.x + threadIdx.x, nthr = gridDim.x * blockDim.x;
    const bool lead = rank == 0;
    int k = 0;
    bool resumed = false;
    if (A.resume) {
        const int stop = __ldcg(&c->chunk_stop);
        if (stop == 0) return;   /* the first launch ran to its end */
        k = stop - 1;
        resumed = true;
    } else if (A.drift_first) {   /* after the sample point's kick: the first step's kick and drift */
        for (int i = rank; i < n; i += nthr) {
            real4 ri = A.r[i], vi = A.v[i];
            half_kick(vi, A.F.a[i], A.half_dt);
            drift(ri, vi, A.dt);
            A.r[i] = ri;
            A.v[i] = vi;
        }
        GridSync::sync();
    }
    for (; k < A.nsteps; k++) {
        if (__ldcg(&c->due)) {
            if (!resumed) {
                if (A.reorder_every > 0 && __ldcg(&c->reorder_now)) {   /* the host sorts, then resumes */
                    if (lead) c->chunk_stop = k + 1;
                    return;
                }
                for (int i = rank; i < n; i += nthr) wrap_atom(A.r, i, A.L);
                GridSync::sync();
            }
            if constexpr (!AllPairs && RUMD_CHUNK_PLANT != 3)
                if (RUMD_CHUNK_PLANT != 2 || !resumed) {
                    for (int b = blockIdx.x; b < A.F.force_blocks; b += gridDim.x)
                        build_n2_block<READ_PLAIN, WLAYOUT_ROW>(A.F.lay, A.F.pos, n, A.F.box, A.rn2, A.list, b, smem);
                    GridSync::sync();
                }
        }
        resumed = false;
        for (int b = blockIdx.x; b < A.F.force_blocks; b += gridDim.x)
            pair_force_block<READ_PLAIN, WLAYOUT_ROW, Kind, TP, 0, Prefetch, AllPairs>(A.F, b);
        GridSync::sync();
        kick_atoms(A, n, !(A.sample_last && k == A.nsteps - 1));
        GridSync::sync();
        if (lead) {
            const double vv = __longlong_as_double((long long)__ldcg(&c->vvmax_bits));
            c->vvmax_bits = 0;
            decide_step(c, A.st, vv, A.ddt, A.threshold, A.equil, A.reorder_every);
        }
        GridSync::sync();
    }
    if (A.resume && lead) c->chunk_stop = 0;   /* every block read it at the start, syncs ago */
}

/* Calls f with the instance of k. */
template <class F>
void dispatch_chunk(const RumdChunkKind &k, F f)
{
    typedef std::integral_constant<bool, true> On;
    typedef std::integral_constant<bool, false> Off;
    dispatch_potential(k.potential, [&](auto kind) {
        constexpr int K = decltype(kind)::value;
        auto pick = [&](auto tp, auto pre, auto all) {
            f((const void *)rumd_chunk_kernel<K, decltype(tp)::value, decltype(pre)::value, decltype(all)::value>);
        };
        auto by_lists = [&](auto tp, auto pre) { k.all_pairs ? pick(tp, pre, On{}) : pick(tp, pre, Off{}); };
        auto by_pre = [&](auto tp) { k.prefetch ? by_lists(tp, On{}) : by_lists(tp, Off{}); };
        k.tp1 ? by_pre(std::integral_constant<int, 1>{}) : by_pre(std::integral_constant<int, 0>{});
    });
}

}  // namespace

int rumd_chunk_per_sm(const RumdChunkKind &k, int threads, size_t smem)
{
    int per_sm = 0;
    dispatch_chunk(k, [&](const void *fn) {
        CUDA_CHECK(GridSync::resident(fn, 0, threads, smem, &per_sm));
    });
    return per_sm;
}

void rumd_chunk_launch(RumdChunkArgs A, const RumdChunkKind &k, int blocks, int threads, size_t smem,
                       cudaStream_t stream)
{
    dispatch_chunk(k, [&](const void *fn) {
        void *args[] = {&A};
        CUDA_CHECK(GridSync::launch(fn, blocks, threads, smem, stream, args));
    });
}
