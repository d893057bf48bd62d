/* gpu-n2 - gpu-layer with RUMD's n2 list build (Bailey et al. 2017, Fig. 4) as its W kernel: the
 * proof of the composable seam (issue 26, item 7). It composes:
 *   list    RUMD's n2 build (kernels/cuda/rumd_lists.cuh): every atom tests all N - 1 others,
 *           read in tiles through shared memory, one thread per atom in blocks of --threads
 *           (gpu-layer's W launch), W in --wlayout, grown and redone on overflow by gpu_build;
 *   the rest gpu-layer's, unchanged (kernels/cuda/gpu_sim.cuh): cells of edge r_n, layers and H
 *           (built, then unused by this W kernel), reordering, the pair-force kernel and its --tp,
 *           leapfrog, reductions, the device loop and graphs, the autotuner's generic search.
 * Why this pair: n2 fits the W-builder seam as it is (it reads the positions only and moves no
 * atom), while RUMD's sort-125 rearranges the atoms at every build and would leave gpu-layer's H
 * and l_i stale for its reordering. So gpu-n2 / gpu-layer (Fig. 6) is the W build's effect alone. */
#include "../kernels/cuda/rumd_lists.cuh"

static void launch_n2(Sim *s, GpuSim *g)
{
    /* t_p 1: one lane per atom, blocks of --threads atoms (rounded up to whole warps) */
    const TpLayout lay = tp_layout(1, g->threads, s->variant->name);
    list_n2_launch(lay, s->p.read, s->p.wlayout, gpu_pos(g), s->n, s->L, s->rn * s->rn, gpu_list_target(g), g->gate,
                   g->stream);
    s->stats.list_threads = lay.threads;
}

static void build(Sim *s) { gpu_build(s, WBuilder{launch_n2, 0}); }

/* the list stage's bytes are the n2 build's (rumd_lists.cuh), every other stage's gpu-layer's */
static double stage_bytes(Sim *s, Stage st)
{
    return st == STAGE_LIST ? list_n2_bytes(s->n, s->stats.nbr_entries) : gpu_stage_bytes(s, st);
}

int main(int argc, char **argv)
{
    /* the shared forces with its own list's bytes */
    static const Variant variant = gpu_variant({
        .name = "gpu-n2",
        .summary = "gpu-layer with RUMD 2017's n2 list build (shared-memory tiles over all pairs) as its "
                   "neighbour-matrix W kernel; cells, H, forces (--tp), reordering and the device loop as gpu-layer's",
        .build = build,
        .stage_bytes = stage_bytes,
        .compiler = NBR_COMPILER,
    });
    return nbr_main(argc, argv, &variant);
}
