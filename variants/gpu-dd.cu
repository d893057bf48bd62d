/* gpu-dd - domain decomposition over P GPUs, one process each (Doijade et al. 2025, the
 * GROMACS halo exchange): a grid of domains px * py * pz = P (--dd-grid, default P slabs
 * along x), ghost atoms by pulse forwarding z, y, x, the coordinate halo every step through
 * a backend (--comm mpi | nccl | p2p | nvshmem), full neighbour lists over local + ghost atoms
 * (no force halo; --dd-newton on: ghosts from the upper neighbours only, each pair across a
 * boundary on one domain, the ghosts' forces sent back in reverse pulse order), migration at
 * rebuilds with the atom count and an id checksum checked each time.
 *
 * What it composes (kernels/cuda/):
 *   dd_stages.cu   the Variant's stages: every rank's start (MPI, options, device), the end
 *                  (the halo and force kernel replayed alone: the console line, the row's pairs)
 *   dd_domain.cu   the domain grid: migration, ghosts by pulses, cells over local + ghost atoms,
 *                  the W list build, --reorder's sort (cellsort.cuh), the check's gathers
 *   dd_halo.cuh    the halo behind one interface, one file per --comm backend:
 *                  dd_halo_mpi.cu, dd_halo_nccl.cu, dd_halo_p2p.cu, dd_halo_nvshmem.cu
 *   force.cu       the shared force kernel over the local (--dd-newton on: and ghost) rows
 *   integrate.cu   the shared split leapfrog on the local atoms
 *   dd_run.cu      --decide device: the rebuild test on the devices (nccl, p2p, nvshmem)
 *   dd_comm.cu     MPI around the run: host collectives, every rank stopped when one fails
 *
 * The run is the one loop (common/md_loop.c) on every rank: every rank builds the same
 * initial state, keeps the atoms of its domain, and runs the steps on them; the whole
 * system's properties are summed over ranks (on rank 0, broadcast, so every rank takes the
 * same rebuild decisions). --check gathers every rank's atoms (by id) and compares them with
 * the O(N^2) reference, as for every other variant. Rank 0 prints and writes the CSV; the
 * other ranks are silent (NBR_DD_ALL_RANKS=1, a diagnostic: all print).
 *
 * Start: mpirun -np P gpu-dd [--comm mpi|nccl|p2p|nvshmem] [--dd-grid PXxPYxPZ] [flags]; one rank
 * without mpirun. Ranks take GPUs round-robin within a host (several per GPU for testing).
 * Keep NCCL_NVLS_ENABLE=0 and NVSHMEM_DISABLE_NVLS=1 (NVLink multicast off): set here if
 * unset (dd_start). */
#include "../kernels/cuda/dd.cuh"

#include <stdio.h>
#include <string.h>

/* Its own options (Variant.opts: no other program has them), stored in DdOpts (dd.cuh), listed
 * with the common ones before --device; the row's dd_grid and dd_halo_reps pairs are what ran
 * (dd_ran: the grid and the count resolved). */
static const Option own_rows[] = {
    {"comm", T_ENUM, offsetof(DdOpts, comm), 0, 0, comm_names, 0, "comm",
     "halo exchange backend: mpi (host-staged, the CPU-driven schedule), nccl (send/recv on the stream), p2p (CUDA "
     "IPC peer writes + signals), nvshmem (fused pack + put-with-signal; where built)"},
    {"dd-grid", T_STR, offsetof(DdOpts, dd_grid), 0, sizeof(((DdOpts *)0)->dd_grid) - 1, NULL, 0, "dd_grid",
     "domains per axis PXxPYxPZ, their product the number of ranks (default P x 1 x 1)"},
    {"dd-overlap", T_ENUM, offsetof(DdOpts, dd_overlap), 0, 0, onoff_names, 0, "dd_overlap",
     "inner atoms' forces while the remote halo is in flight (local and non-local streams)"},
    {"dd-graph", T_ENUM, offsetof(DdOpts, dd_graph), 0, 0, onoff_names, 0, "dd_graph",
     "the halo of a step as one CUDA graph, captured at each rebuild (nccl, p2p, nvshmem)"},
    {"dd-newton", T_ENUM, offsetof(DdOpts, dd_newton), 0, 0, onoff_names, 0, "dd_newton",
     "Newton 3 across domain boundaries: ghosts from one side per axis, each boundary pair on one domain, the force "
     "halo back (mpi, nccl, p2p)"},
    {"dd-horizon", T_ENUM, offsetof(DdOpts, dd_horizon), 0, 0, onoff_names, 0, "dd_horizon",
     "--decide device: the host looks at the device at the step the rebuild is estimated due (off: at the sample "
     "points only, queueing gated steps up to the next one after each stop)"},
    {"dd-force-gate", T_ENUM, offsetof(DdOpts, dd_force_gate), 0, 0, onoff_names, 0, "dd_force_gate",
     "--decide device: the force launches under a conditional graph node on the stop flag, so a stopped device "
     "skips them (off: launched ungated, the same forces recomputed; slower, not different)"},
    {"dd-halo-reps", T_INT, offsetof(DdOpts, dd_halo_reps), -1, 1e6, NULL, 0, "dd_halo_reps",
     "after the run replay the halo exchange and the force kernel this many times each, timed on their own "
     "(0 = off, -1 = as --stage-reps; the row records the count used)"},
    {"dd-profile", T_ENUM, offsetof(DdOpts, dd_profile), 0, 0, onoff_names, 0, "dd_profile",
     "time every rebuild by phase (migrate, sort, ..., capture), printed at the end; the stream is synchronised "
     "and the ranks aligned at each phase boundary, which slows the rebuilds it times"},
    {"dd-timeout", T_REAL, offsetof(DdOpts, dd_timeout), 1e-3, 1e6, NULL, 0, NULL,
     "seconds a device wait on a peer (the p2p and nvshmem halo signals, p2p's rebuild vote) may take before every "
     "rank stops with an error (a run it does not stop is unchanged by it)"},
};
static const DdOpts own_defaults = {COMM_MPI, "", 0, 0, 0, 1, 1, -1, 0, 20.0};
static const OwnOptions own = {own_rows, sizeof own_rows / sizeof own_rows[0], sizeof(DdOpts), &own_defaults, NULL,
                               NULL};

int main(int argc, char **argv)
{
    const int n = dd_start(&argc, &argv);   /* MPI up; --help's backends; rank 0 alone prints and writes CSV */
    /* every stage its own (not gpu_variant's: a domain's atoms, ghosts and halo), declared once */
    static const Variant variant = {
        .name = "gpu-dd",
        .summary = "domain decomposition over P GPUs (one process each): ghosts by pulse forwarding z, y, x, coordinate "
                   "halo every step through --comm, full lists over local + ghost atoms (--dd-newton on: half shell, "
                   "each boundary pair on one domain, the force halo back), migration at rebuilds",
        .knobs = KNOB_THREADS | KNOB_READ | KNOB_REORDER | KNOB_WLAYOUT | KNOB_REDUCE | KNOB_LIST | KNOB_DECIDE,
        .opts = &own,
        .has_u = 1,
        .pair_multiplicity = 2,
        /* the domain and its halo backend, set up and torn down (dd_stages.cu) */
        .init = dd_init,
        .finish = dd_finish,
        /* the integrator on the local atoms (integrate.cu; gated by dd_run.cu with --decide device) */
        .kick_drift = dd_kick_drift,
        /* a rebuild: wrap, migrate, ghosts, cells, W (dd_domain.cu); --reorder's sort inside it */
        .wrap = dd_wrap_stage,
        .build = dd_build,
        /* a step's coordinate halo (dd_halo.cuh), the force kernel (force.cu), --dd-newton's force halo */
        .forces = dd_forces,
        .kick = dd_kick,
        /* the whole system's sums over ranks; the check's gathers by id */
        .props = dd_props,
        .rescale = dd_rescale,
        .download = dd_download,
        .for_each_pair = dd_pairs,
        /* --decide device (nccl, p2p, nvshmem): kernels/cuda/dd_run.cu */
        .device_begin = dd_run_begin,
        .device_rebuild = dd_run_rebuild,
        .device_decide = dd_run_decide,
        .sample = dd_run_sample,
        .run_horizon = dd_run_horizon,
        .timer_mark = dd_mark,
        .timer_seconds = dd_seconds,
        .device_name = dd_device,
        .compiler = NBR_COMPILER,
        /* the halo and force replays' times (--dd-halo-reps) as the row's pairs: halo_us, force_us, ... */
        .row_pairs = dd_row_pairs,
    };
    const int rc = nbr_main(n, argv, &variant);
    fflush(stdout);
    dd_mpi_finalize();
    return rc;
}
