/* gpu-old - Rapaport 2011's "old method" (Anderson, Lorenz & Travesset 2008), composed of the
 * harness's parts (kernels/cuda/):
 *   list     the W build with a thread block per cell and a thread per layer, the 27 neighbour
 *            cells staged through shared memory (list_cell_block.cu);
 *   the rest gpu-layer's (gpu_sim.cuh): cells, layers and H, the force kernel with its --tp,
 *            leapfrog, reductions, reordering, the device loop, the autotuner's generic search.
 * So gpu-old / gpu-layer (Table 3) is the W build's effect alone. --threads sizes every per-atom
 * kernel but the list kernel, whose block is N_l rounded up to a warp (stats.list_threads). */
#include "../kernels/cuda/gpu_sim.cuh"

static void build(Sim *s) { gpu_build(s, W_CELL_BLOCK); }
int main(int argc, char **argv)
{
    static const Variant variant = gpu_variant({
        .name = "gpu-old",
        .summary = "Anderson et al. 2008 list build (Rapaport's old method): a thread block per cell, N_l threads, "
                   "the 27 neighbour cells staged through shared memory; gpu-layer's force kernel and the rest",
        .build = build,
        .compiler = NBR_COMPILER,
    });
    return nbr_main(argc, argv, &variant);
}
