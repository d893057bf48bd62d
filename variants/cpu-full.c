/* cpu-full - neighbours grouped by atom, without Newton's third law.
 *
 * Why this shape: the paper's third CPU step, the one that prepares for the GPU. Each atom
 * lists all its neighbours (27 cells, i' != i''), so every pair is stored and computed twice
 * and the list doubles; in exchange the force loop only reads other atoms and writes f_i and
 * u_i once per atom, from registers: no scattered read-modify-write, which is what a GPU
 * thread per atom needs. The per-atom energies u_i are kept (their sum is 2U) because that
 * is how the GPU program forms U without a global sum in the inner loop.
 * Deviations: as cpu-grouped (minimum image in the force loop instead of a stored image
 * code; the two-pass, vectorised pair arithmetic; cell-order reordering every --reorder
 * steps, --reorder 0 = the paper's CPU chain). */
#include "../kernels/cpu/cpu_lists.h"

#include <stdlib.h>

static int init(Sim *s) { return grouped_stage_init(s, 0); }

static void forces(Sim *s)
{
    const GroupedCtx *c = s->ctx;
    const int *restrict p = c->list.p, *restrict t = c->list.t;
    double usum = 0, wsum = 0;
    PairChunk b;
    for (int i = 0; i < s->n; i++) {
        real fx = 0, fy = 0, fz = 0, ui = 0, wi = 0;
        for (int m0 = p[i]; m0 < p[i + 1]; m0 += PAIR_CHUNK) {
            const int len = p[i + 1] - m0 < PAIR_CHUNK ? p[i + 1] - m0 : PAIR_CHUNK;
            pair_chunk(s, i, t + m0, len, &b);
            for (int k = 0; k < len; k++) { fx += b.x[k]; fy += b.y[k]; fz += b.z[k]; ui += b.u[k]; wi += b.w[k]; }
        }
        s->a[i] = (vec3){fx, fy, fz};
        s->u[i] = (real)0.5 * ui;
        usum += ui;
        wsum += wi;
    }
    s->props.upot_sum = 0.5 * usum; /* every pair counted from both ends */
    s->props.virial_sum = 0.5 * wsum;
}

static const Variant variant = {
    .name = "cpu-full",
    .summary = "neighbours grouped by atom, no Newton 3 (27 cells, only f_i updated, list doubled)",
    .knobs = KNOB_LIST | KNOB_REORDER,
    .has_u = 1,
    .pair_multiplicity = 2,
    .init = init,
    .finish = grouped_stage_finish,
    CPU_COMMON_STAGES,
    .reorder = grouped_stage_reorder,
    .build = grouped_stage_build,
    .forces = forces,
    .for_each_pair = grouped_stage_pairs,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
