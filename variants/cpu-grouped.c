/* cpu-grouped - neighbours grouped by atom (p_i, t_m), Newton's third law kept.
 *
 * Why this shape: the paper's second CPU step. The same pairs as the pair list, but stored
 * by their first atom: atom i's neighbours are t_m for p_i <= m < p_{i+1}, so the list holds
 * one index per pair instead of two and f_i stays in registers over i's whole inner loop.
 * The build loops over atoms i' and, for each, over its own cell (atoms after i' only) and
 * the 13 half-shell neighbour cells, so each pair is stored once; f_i'' is still updated out
 * of order. The cost the paper notes: with few neighbours per atom (SP: ~7.5 stored) the
 * repeated set-up of the short inner loop shows.
 * Deviations: no image code is stored (the paper does not say; it would limit N to 2^26),
 * the force loop forms the minimum image without branches instead; each atom's neighbours
 * are processed in two passes (pair_chunk: the arithmetic, branch-free and vectorised; then
 * the sums and the scattered -f), which keeps the paper's loop over atoms and over t_m;
 * atoms are reordered in cell order every --reorder steps (the paper does this on the GPU;
 * --reorder 0 gives its CPU chain as described). */
#include "../common/tune.h"
#include "../kernels/cpu/cpu_lists.h"

#include <stdlib.h>
#include <string.h>

static int init(Sim *s) { return grouped_stage_init(s, 1); }

static void forces(Sim *s)
{
    const GroupedCtx *c = s->ctx;
    const int *restrict p = c->list.p, *restrict t = c->list.t;
    vec3 *restrict a = s->a;
    double upot = 0, virial = 0;
    PairChunk b;
    memset(a, 0, sizeof(vec3) * s->n);
    for (int i = 0; i < s->n; i++) {
        real fx = 0, fy = 0, fz = 0, ui = 0, wi = 0;
        for (int m0 = p[i]; m0 < p[i + 1]; m0 += PAIR_CHUNK) {
            const int len = p[i + 1] - m0 < PAIR_CHUNK ? p[i + 1] - m0 : PAIR_CHUNK;
            pair_chunk(s, i, t + m0, len, &b);
            for (int k = 0; k < len; k++) {
                const int j = t[m0 + k];
                fx += b.x[k]; fy += b.y[k]; fz += b.z[k]; ui += b.u[k]; wi += b.w[k];
                a[j].x -= b.x[k]; a[j].y -= b.y[k]; a[j].z -= b.z[k];
            }
        }
        a[i].x += fx; a[i].y += fy; a[i].z += fz;
        upot += ui;
        virial += wi;
    }
    s->props.upot_sum = upot;
    s->props.virial_sum = virial;
}

/* --autotune (common/tune.h): the skin and the reorder interval by the generic search; the one
 * CPU program that declares knobs, so that the trial runner is tested where there is no GPU */
static const TuneDecl tune = {2, {{"delta", NULL, 0.05, 1.5, 0.05, NULL}, {"reorder", "0 20 100 500", 0, 0, 0, "100"}},
                              1, NULL};

static const Variant variant = {
    .name = "cpu-grouped",
    .summary = "neighbours grouped by atom (p_i, t_m), 14 cells, Newton 3",
    .knobs = KNOB_LIST | KNOB_REORDER | KNOB_AUTOTUNE,
    .tune = &tune,
    .pair_multiplicity = 1,
    .init = init,
    .finish = grouped_stage_finish,
    CPU_COMMON_STAGES,
    .reorder = grouped_stage_reorder,
    .build = grouped_stage_build,
    .forces = forces,
    .for_each_pair = grouped_stage_pairs,
};

int main(int argc, char **argv) { return nbr_main(argc, argv, &variant); }
