/* stage_bytes.cu - the fewest bytes each stage of a GPU variant must move through device
 * memory (the Variant's stage_bytes hook), so that the kernel-level timing (--stage-reps) can print GB/s beside each
 * stage's time (the H200's device-to-device copy ceiling, read + write, measured 4.06 TB/s in
 * the first session's runs).
 *
 * Every array a stage touches is counted once per access kind (read, or written, or both
 * for read-modify-write); neighbour positions r_j gathered through W or H are assumed to
 * come from cache after their first touch (true after reordering), so the N_p gathered
 * positions are not counted: a GB/s above that ceiling shows the caches at work. Block
 * partials of the reductions (8 bytes per block and quantity) are left out where a kernel
 * leaves them beside its real work. With n atoms, N_p = stats.nbr_entries (full-list
 * entries at the last build), r4 = sizeof(real4), G^3 cells:
 *
 *   STAGE_FORCE      one force call: W entries 4 N_p + m_i 4n + r_i r4 n + a_i r4 n
 *                    (written) + u_i sizeof(real) n (written), whatever --tp (the TP lanes
 *                    of an atom read its row once between them; m_i and r_i they read TP
 *                    times, from cache)
 *   STAGE_LIST       one rebuild (the wrap and the build): the W kernel's r_i r4 n + c_i 4n
 *                    + H entries 4n + k_c 4 G^3 + W entries 4 N_p + m_i 4n (written);
 *                    the wrap, the cell and layer assignment and their copies are not
 *                    counted (a lower bound of the stage)
 *   STAGE_INTEGRATE  one step's two calls: kick_drift reads r, v, a and writes r, v (5 r4 n);
 *                    the second half-kick reads v, a and writes v (3 r4 n): 8 r4 n;
 *                    --leapfrog fused, one call of the fused kernel: reads r, v, a and
 *                    writes r, v (5 r4 n)
 *   STAGE_REORDER    one reordering: r and v read and written (4 r4 n) + c_i, l_i read (8n)
 *   STAGE_OTHER      one props call: the reductions of v^2 and u are fused into the kick
 *                    and force kernels (their data already passes through registers there),
 *                    so props reads the NPARTS arrays of block partials only: 8 NPARTS
 *                    blocks (a stale v, after a rescale, adds r4 n; not in production)
 *
 * The list builders that are components state their own bytes beside their launches (RUMD's n2
 * and sort-125: kernels/cuda/rumd_lists.cuh); a program composed of them returns those.
 *
 * All values are per occurrence of the stage in the MD loop, as timed by the loop. */
#include "gpu_sim.cuh"

double gpu_stage_bytes(Sim *s, Stage st)
{
    const GpuSim *g = gpu_of(s);
    if (!g) return 0;
    const double n = s->n, np = s->stats.nbr_entries, r4 = sizeof(real4), nc = g->grid.ncells;
    switch (st) {
    case STAGE_FORCE: return 4 * np + n * (4 + r4 + r4 + sizeof(real));
    case STAGE_LIST: return n * (r4 + 4 + 4) + 4 * nc + 4 * np + 4 * n;
    case STAGE_INTEGRATE:
        return (s->p.decide == DECIDE_DEVICE && s->p.leapfrog == LEAPFROG_FUSED ? 5 : 8) * r4 * n;
    case STAGE_REORDER: return n * (4 * r4 + 8);
    case STAGE_OTHER: return 8.0 * NPARTS * g->blocks;
    default: return 0;
    }
}
