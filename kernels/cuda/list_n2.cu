/* list_n2.cu - RUMD's n2 list build (Fig. 4; see rumd_lists.cuh). */
#include "rumd_lists.cuh"

template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) build_n2_kernel(TpLayout lay, PosSource pos, int n, PbcBox box, real rn2,
                                                        int *__restrict__ W, int *__restrict__ nbr_count, int nbr_cap,
                                                        BuildStatus *status, const int *gate)
{
    if (gate && !*gate) return;   /* device decision: no rebuild this step */
    extern __shared__ __align__(32) unsigned char shared_raw[];   /* real4 may be a 32-byte double4 */
    real4 *tile = (real4 *)shared_raw;            /* ppb positions */
    int *slots = (int *)(tile + lay.ppb);         /* ppb slot counters */
    int local, sub;
    bool idle;
    tp_place(lay, local, sub, idle);
    const int i = blockIdx.x * lay.ppb + local;
    const bool active = !idle && i < n;
    for (int k = threadIdx.x; k < lay.ppb; k += blockDim.x) slots[k] = 0;
    const real4 ri = active ? fetch_pos<Mode>(pos, i) : make_real4(0, 0, 0, 0);
    for (int base = 0; base < n; base += lay.ppb) {
        const int len = min(lay.ppb, n - base);
        __syncthreads();   /* the previous tile is no longer read (and the counters are zeroed) */
        for (int k = threadIdx.x; k < len; k += blockDim.x) tile[k] = fetch_pos<Mode>(pos, base + k);
        __syncthreads();
        if (active)
            for (int k = sub; k < len; k += lay.tp) {
                const int j = base + k;
                real dx, dy, dz;
                if (j != i && min_image_r2(ri, tile[k], box, dx, dy, dz) < rn2) {
                    const int m = atomicAdd(&slots[local], 1);
                    if (m < nbr_cap) W[w_index<Layout>(m, i, n, nbr_cap)] = j;
                }
            }
    }
    __syncthreads();
    const int m = active && sub == 0 ? slots[local] : 0;
    if (active && sub == 0) nbr_count[i] = m;
    record_nbr_stats(m, status);
}

void list_n2_launch(const TpLayout &lay, int read, int layout, PosSource pos, int n, real L, real rn2, ListTarget out,
                    const int *gate, cudaStream_t stream)
{
    const size_t shared = (size_t)lay.ppb * (sizeof(real4) + sizeof(int));
    const int blocks = blocks_for(n, lay.ppb);
    dispatch_read_layout(read, layout, [&](auto rd, auto lo) {
        build_n2_kernel<decltype(rd)::value, decltype(lo)::value><<<blocks, lay.threads, shared, stream>>>(
            lay, pos, n, pbc_box(L), rn2, out.W, out.nbr_count, out.nbr_cap, out.status, gate);
    });
    LAUNCH_CHECK("build_n2_kernel");
}

double list_n2_bytes(double n, double np) { return n * sizeof(real4) + 4 * np + 4 * n; }
