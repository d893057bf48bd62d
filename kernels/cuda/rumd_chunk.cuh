/* rumd_chunk.cuh - gpu-rumd's --launch chunk: every step between two sample points as one
 * cooperative launch (RUMD's and gamdpy's one-kernel integrator), built from the same device
 * code as the stage launches, so that the ratio of the two is the launch structure's effect:
 *   the rebuild's wrap        the fused leapfrog's (integrate.cu: the rebuild wraps)
 *   the n2 build              build_n2_block (rumd_lists.cuh), block b of list_n2.cu's launch
 *   the forces                pair_force_block (pair_force.cuh), force block b, its partials
 *   the kick and next drift   leapfrog.cuh's half_kick, speed2 and drift, as leapfrog_kernel
 *   the decision              decide_step (decide.cuh), by one thread, as decide_kernel
 * Each block of the grid takes the stage's blocks b = blockIdx, blockIdx + gridDim, ... (the
 * grid is as many blocks as are resident, at most the force blocks); a grid-wide sync stands
 * where the stage launches have a kernel boundary. A step that does not rebuild syncs three
 * times (after the forces, after the kick's largest v^2, after the decision), one that
 * rebuilds twice more (after the wrap, after the build).
 *
 * Positions written in the launch are read back in it: plain loads (--read plain), which the
 * grid sync's fences order; the texture and read-only caches are not coherent within a launch.
 *
 * The sort by cell of lists n2 and none (--sort-every) is CUB passes of its own: a launch stops
 * at the top of a step that reorders (DeviceControl.chunk_stop = that step + 1), the host's
 * queue holds the wrap and the counting sort gated on chunk_stop and a second launch that
 * resumes there (returning at once where nothing stopped). With at most sort_every steps per
 * launch at most one step of it can reorder. --list sort (a sort at every build) is refused. */
#ifndef NBR_RUMD_CHUNK_CUH
#define NBR_RUMD_CHUNK_CUH

#include "rumd_lists.cuh"

struct RumdChunkArgs {
    PairForceArgs F;                  /* forces: lanes, force blocks and partials set (gpu-rumd's) */
    ListTarget list;                  /* the n2 build's output (unused with all pairs) */
    real rn2;
    real4 *r, *v;                     /* F.pos reads r; F.a is the acceleration */
    real L, half_dt, dt;
    int atom_threads, atom_blocks;    /* the per-atom launches' blocks: the kinetic partials' */
    double *part_ukin, *part_vvmax;
    DeviceControl *c;
    BuildStatus *st;
    double ddt, threshold;            /* the decision's (decide_step) */
    int equil, reorder_every;
    int nsteps;                       /* steps of this launch */
    int drift_first;                  /* the chunk's first launch: its first step's kick and drift */
    int sample_last;                  /* the launch ends at the sample point: no drift after it */
    int resume;                       /* the second launch: from chunk_stop, if a first one stopped */
};

/* What selects an instance: the potential, t_p == 1 (its own instance, as pair_force_launch's),
 * prefetch, and all pairs (--list none: no build). */
struct RumdChunkKind {
    int potential, tp1, prefetch, all_pairs;
};

/* Blocks of `threads` with `smem` dynamic bytes one SM holds of that instance (0: none fits). */
int rumd_chunk_per_sm(const RumdChunkKind &k, int threads, size_t smem);
/* The cooperative launch of `blocks` blocks (at most resident) on `stream`. */
void rumd_chunk_launch(RumdChunkArgs A, const RumdChunkKind &k, int blocks, int threads, size_t smem,
                       cudaStream_t stream);

#endif
