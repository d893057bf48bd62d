/* list_n2.cu - RUMD's n2 list build (Fig. 4; see rumd_lists.cuh). */
#include "rumd_lists.cuh"

template <int Mode, int Layout>
__global__ void __launch_bounds__(1024) build_n2_kernel(TpLayout lay, PosSource pos, int n, PbcBox box, real rn2,
                                                        ListTarget out, const int *gate)
{
    if (gate && !*gate) return;   /* device decision: no rebuild this step */
    extern __shared__ __align__(32) unsigned char shared_raw[];   /* real4 may be a 32-byte double4 */
    build_n2_block<Mode, Layout>(lay, pos, n, box, rn2, out, blockIdx.x, shared_raw);
}

void list_n2_launch(const TpLayout &lay, int read, int layout, PosSource pos, int n, real L, real rn2, ListTarget out,
                    const int *gate, cudaStream_t stream)
{
    const size_t shared = list_n2_smem(lay);
    const int blocks = blocks_for(n, lay.ppb);
    dispatch_read_layout(read, layout, [&](auto rd, auto lo) {
        build_n2_kernel<decltype(rd)::value, decltype(lo)::value><<<blocks, lay.threads, shared, stream>>>(
            lay, pos, n, pbc_box(L), rn2, out, gate);
    });
    LAUNCH_CHECK("build_n2_kernel");
}

double list_n2_bytes(double n, double np) { return n * sizeof(real4) + 4 * np + 4 * n; }
