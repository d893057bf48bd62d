/* gpu-layer - Rapaport 2011's GPU program, composed of the harness's parts (kernels/cuda/):
 *   list     the W build over the cell-layer matrix H, one thread per atom (list_layer.cu);
 *   the rest shared with the other GPU programs (gpu_sim.cuh): cells of edge r_n, layers and H,
 *            reordering, the pair-force kernel (one thread per atom as in the paper; --tp T gives
 *            each atom T lanes of a warp, force.cu), leapfrog (--leapfrog fused with --decide
 *            device: the step's integration one kernel after the forces, integrate.cu),
 *            reductions, the device loop and graphs, the autotuner's generic search.
 * The paper's point against gpu-old (Anderson et al. 2008, one block per cell): the layer build's
 * parallelism is N_a whatever the cutoff, the old method's the cell occupancy N_l. */
#include "../kernels/cuda/gpu_sim.cuh"

static void build(Sim *s) { gpu_build(s, W_LAYER); }
int main(int argc, char **argv)
{
    static const Variant variant = gpu_variant({
        .name = "gpu-layer",
        .summary = "Rapaport 2011 GPU program: cell-layer matrix H, neighbour matrix W built one thread per atom, "
                   "forces one thread (--tp: T lanes) per atom without Newton 3",
        .build = build,
        .compiler = NBR_COMPILER,
    });
    return nbr_main(argc, argv, &variant);
}
