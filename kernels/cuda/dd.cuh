/* dd.cuh - domain decomposition over several GPUs, one process each (gpu-dd; Doijade et al.
 * 2025, the GROMACS halo exchange).
 *
 * The box is cut into a regular grid px * py * pz of domains; rank r owns the atoms whose
 * (wrapped) position lies in its box [lo, hi). On the device a domain keeps one position
 * array, local atoms first, then ghosts:
 *     r[0, n_local)                      the atoms it owns (integrated here)
 *     r[n_local, n_local + n_ghost)      copies of atoms of other domains (or periodic images
 *                                        of its own) within r_n of its faces, already shifted
 *                                        by +-L where they cross the periodic boundary, so
 *                                        every pair is a plain difference of two positions
 * The charge rides in r.w (as in every GPU program: the ghosts carry it for free), the global
 * atom id in v.w (in float as the int's bits: id_to_w): migrants carry it, the check gathers by it,
 * the conservation test hashes it; the ghosts' ids are sent only when the check asks.
 *
 * Ghosts arrive by pulses, axis by axis (those with one domain first, whose pulses are local
 * copies, then the split ones; z before y before x in each group), each axis one pulse down
 * (the atoms within r_n of the low face go to the lower neighbour) and one up; a pulse's candidates are the local
 * atoms and the ghosts of the axes before, so edge and corner ghosts reach diagonal
 * neighbours through the intermediate domains (the paper's pulse forwarding). Which atoms a
 * pulse sends (send_idx) and where its ghosts land (recv_off) is fixed at each rebuild; every
 * step the coordinate halo repeats the pulses: pack r[send_idx] + shift, send, receive into
 * r + recv_off, in order (a later pulse forwards what an earlier one received).
 * An axis with one domain exchanges with itself (a copy with the shift), so the same code
 * covers one rank and P ranks; the cells over local + ghost atoms are not periodic.
 *
 * At a rebuild (the loop's rebuild): wrap, migrate (per axis, the atoms whose owner moved
 * to the neighbour), check conservation (count and id hash summed over ranks), gather the
 * ghosts, build cells and the full neighbour matrix W of the local atoms over local + ghost
 * atoms (every --reorder N_R steps the local atoms are first sorted by cell, as gpu-layer
 * reorders, so a warp's gathers hit the cache). Forces then use the shared force kernel
 * (force.cu) over the local atoms unchanged:
 * by default (--dd-newton off) no Newton 3 across the boundary, so no force halo; each pair
 * across a boundary is computed on both domains.
 *
 * --dd-newton on: Newton 3 across the boundary, with the force halo back (the paper's scheme).
 * Each axis has one pulse, down (the atoms within r_n of the low face to the lower neighbour),
 * so ghosts come from the upper neighbours only (a half shell; forwarding as above, so edge and
 * corner ghosts arrive). A ghost's zone is the set of axes along which it came down (bits,
 * exchanged with the ghosts at rebuilds). W has a row for every local and ghost atom; a row
 * lists a partner iff their zones share no axis (GROMACS's eighth-shell rule: a pair of two
 * ghosts that both came down along an axis belongs to the domain above), which puts every pair
 * within r_n on exactly one domain, in both its rows (tests/dd_pulse_model.py --newton checks
 * this on 8 grids). The shared force kernel then runs over all rows (Dd.rows: dom with n =
 * n_local + n_ghost; g->blocks covers them, the kicks' extra blocks leave zero partials):
 * u_i = (1/2) sum_j and the virial's halves stay right, as both halves of each pair are
 * computed here and the energy partials of the ghosts' rows count once over all ranks. Then
 * the force halo (dd_force_halo): the pulses in reverse order (x, y, z), each rank returning its
 * ghosts' a and u to the rank that sent them, which adds them to a[send_idx], u[send_idx]
 * (ghosts included: a later reverse pulse carries those home through the domain that forwarded
 * them); no atomics, a pulse's atoms are distinct. The kernel evaluates a pair from both rows,
 * so a boundary pair costs two evaluations on one domain instead of one on each domain: the
 * same pair work as off, half the coordinate halo, plus a force halo after the forces (a
 * kernel adding each pair's reaction would halve the boundary work; not written). Backends: mpi and nccl pack a.xyz + u and
 * send (ret_buf); p2p signals recv_rank that its ghosts are final, waits for send_rank's signal
 * and pulls from send_rank's a and u (peer pointers); nvshmem and --dd-overlap on are refused.
 *
 * Domains thinner than r_n would need more than one pulse per direction: refused. */
#ifndef NBR_DD_CUH
#define NBR_DD_CUH

#include "gpu_sim.cuh"

/* gpu-dd's own options (Variant.opts, declared in variants/gpu-dd.cu): no other program has them,
 * so they live here, not in Params. dd_opts(s): as given (read-only); dd_ran(s): what ran (the
 * grid and the replays resolved, which the row's dd_grid and dd_halo_reps pairs show). */
typedef enum { COMM_MPI, COMM_NCCL, COMM_P2P, COMM_NVSHMEM, NCOMMS } Comm;   /* --comm: the halo backends */
extern const char *const comm_names[];
struct DdOpts {
    int comm;            /* Comm: the halo exchange backend */
    char dd_grid[32];    /* domains per axis "PXxPYxPZ" ("" = P x 1 x 1; ran: the grid that ran) */
    int dd_overlap;      /* 1: inner atoms' forces while the remote halo is in flight */
    int dd_graph;        /* 1: the halo of a step as one CUDA graph */
    int dd_newton;       /* 1: half-shell ghosts, each pair across a boundary on one domain, forces sent back */
    int dd_horizon;      /* --decide device: 1 = the host looks at the estimated rebuild step, 0 = sample points only */
    int dd_force_gate;   /* --decide device: 1 = forces under the gate graph, 0 = launched ungated */
    int dd_halo_reps;    /* halo and force replays after the run; -1 = --stage-reps (ran: the count used) */
    int dd_profile;      /* 1: each rebuild timed by phase, the stream synchronised and the ranks aligned */
    double dd_timeout;   /* seconds a device wait on a peer may take before every rank stops */
};
static inline const DdOpts *dd_opts(const Sim *s) { return (const DdOpts *)s->opts; }
static inline DdOpts *dd_ran(Sim *s) { return (DdOpts *)s->ran_opts; }

enum { DD_PULSES = 6 };   /* z down, z up, y down, y up, x down, x up (--dd-newton on: the down pulses only) */

struct DdPulse {
    int axis, dir;          /* dir -1: low face to the lower neighbour; +1: high face up */
    int send_rank;          /* where this rank's face atoms go */
    int recv_rank;          /* whose face atoms arrive here (the neighbour on the other side) */
    real shift;             /* added to the coordinate along axis of every atom sent */
    int nsend, nrecv;
    int *send_idx;          /* device, nsend entries (capacity send_cap) */
    int send_cap;
    int recv_off;           /* ghosts of this pulse: r[recv_off, recv_off + nrecv) */
    int remote_off;         /* p2p: recv_off of send_rank's same pulse (where to write) */
    real4 *send_buf;        /* mpi / nccl: packed positions (capacity send_cap) */
    real4 *host_send, *host_recv;   /* mpi: pinned staging (capacity host_cap) */
    int host_cap;
    real4 *ret_buf;         /* --dd-newton on, mpi / nccl: [0, nrecv) this pulse's ghosts' forces (xyz) and
                               energies (w) packed to go back to recv_rank; [nrecv, nrecv + nsend) those
                               send_rank returns (capacity ret_cap) */
    int ret_cap;
};

struct DdComm;   /* the halo's state for the run (dd_halo.cuh) */
struct DdHalo;   /* a halo backend: one interface, one implementation per --comm (dd_halo.cuh) */

/* The tests' planted faults, compiled only into the test build test-dd-plant (-DNBR_PLANT_DD),
 * chosen there by environment (docs/programs.md, "Environment"); -1: not planted. In gpu-dd
 * dd_planted is 0 and every planted branch is dead code. */
struct DdPlant {
    int fail_rank;          /* NBR_DD_FAIL_RANK: this rank stops (at start, or at fail_step's rebuild) */
    int fail_step;          /* NBR_DD_FAIL_STEP: the first rebuild at or after this step */
    int lose_step;          /* NBR_DD_LOSE_STEP: rank 0 drops an atom at the rebuild at or after it */
    int skip_v_step;        /* NBR_DD_SORT_SKIP_V: the sort by cell leaves the velocities behind */
};
#ifdef NBR_PLANT_DD
static const int dd_planted = 1;
static inline int dd_plant_int(const char *v) { return v && *v ? atoi(v) : -1; }
static inline DdPlant dd_plant(void)
{
    return {dd_plant_int(getenv("NBR_DD_FAIL_RANK")), dd_plant_int(getenv("NBR_DD_FAIL_STEP")),
            dd_plant_int(getenv("NBR_DD_LOSE_STEP")), dd_plant_int(getenv("NBR_DD_SORT_SKIP_V"))};
}
#else
static const int dd_planted = 0;
static inline DdPlant dd_plant(void) { return {-1, -1, -1, -1}; }
#endif

/* the phases of a rebuild that --dd-profile on times (dd_prof) */
enum DdProfPhase {
    PROF_MIGRATE, PROF_SORT, PROF_CONSERVE, PROF_SELECT, PROF_COUNTS, PROF_REFRESH, PROF_GHOSTS, PROF_ZONES, PROF_CELLS, PROF_LIST,
    PROF_CAPTURE, PROF_SKEW, DD_PROF_PHASES
};
extern const char *const dd_prof_names[DD_PROF_PHASES];

/* --decide device (dd_run.cu): the rebuild test on the device. vv_local / vv_all may live
 * elsewhere (NVSHMEM's symmetric heap): the kernels take Dd's pointers. */
struct DdCtrl {
    unsigned long long vv_local, vv_all;   /* this step's largest v^2 here / over all ranks (bits of
                                              a non-negative double: they order as the values do) */
    double disp;            /* summed largest displacement since the last build */
    int halted;             /* the step whose test found a rebuild due; 0 while running */
    int votes;              /* p2p: vote rounds done (parity picks the slot row) */
};

struct Dd {
    int rank, size;
    int dims[3];            /* px, py, pz */
    int coord[3];           /* this rank's domain */
    int nbr[3][2];          /* neighbour ranks along each axis: [axis][0] lower, [1] upper */
    double lo[3], hi[3], width[3];
    int comm_kind;          /* --comm: COMM_* */
    const DdHalo *halo;     /* its backend (dd_halo_for) */
    int local_device;

    Sim dom;                /* the domain as the shared GPU stages see it: dom.n = n_local */
    GpuSim *g;              /* its device state; g->r holds local then ghost atoms */
    int n_local, n_ghost;
    int cap;                /* atoms the per-atom arrays hold (local + ghosts) */
    int part_blocks;        /* blocks the reduction partials have room for */
    real4 *r_alt, *v_alt;   /* migration: sorted copies and send buffers */
    CellSort sort;          /* every sort of the local atoms (migration, inner first, --reorder) and
                               the cells' contents of the list build (cellsort.cuh) */
    int *zone, *flags, *flags_up;   /* --dd-newton on: ghost zones; an axis's send flags down, up */
    void *cub_tmp;          /* the selections' workspace */
    size_t cub_bytes;
    int *counters;          /* device: migration counts [3], selection count, errors */
    int *counters_host;     /* pinned */
    unsigned long long *hash_dev, *hash_host;

    DdPulse pulse[DD_PULSES];
    int npulses;            /* pulses in use: 6, or 3 with --dd-newton on (one direction per axis) */
    /* --dd-newton on: ghosts from the upper neighbours only (zones: the axes a ghost crossed), rows
     * for local and ghost atoms, each pair across a boundary computed on one domain, the ghosts'
     * forces sent back in reverse pulse order */
    int newton;
    int n_rows;             /* rows of W and of the force launch: n_local, or n_local + n_ghost (newton) */
    Sim rows;               /* dom with n = n_rows: what the force kernel runs over */
    long long migrated;     /* atoms sent to other domains, over the run */
    int sorted_at = -1;     /* --reorder: the step of the last sort of the local atoms by cell */
    unsigned long long id_hash_all;   /* sum over ids 0..N-1 of the mixed id */

    /* cells over the extended box (local box + r_n on every side), not periodic */
    int gc[3], ncells, cell_cap;
    real c_lo[3], c_inv_w[3];

    DdComm *comm;
    int step_epoch;         /* coordinate halo exchanges done */
    /* p2p, nvshmem: the signal counts each pulse's wait expects, kept on the device (so a step
     * can be a CUDA graph); a wait that gave up leaves its slot + 1 in mapped host memory (slots
     * [0, DD_PULSES): the coordinate halo; [DD_PULSES, 2 DD_PULSES): the force halo) */
    unsigned long long *expected_dev;
    int *timed_out, *timed_out_dev;
    /* --dd-graph on: the coordinate halo of a step (all pulses) captured once per rebuild */
    int graph;
    cudaGraphExec_t halo_graph;

    /* --dd-overlap on (the paper's schedule): the local atoms ordered inner first (at least r_n
     * from every face between domains: no neighbour of theirs comes from another rank), their
     * forces on the local stream while the remote pulses and then the border atoms' forces run
     * on the non-local one */
    int overlap;
    int self_pulses;        /* the first pulses, of the axes with one domain: local copies */
    int inner_blocks;       /* force blocks [0, inner_blocks) hold inner atoms only */
    cudaStream_t nonlocal;
    cudaEvent_t ev_self, ev_nonlocal;

    /* --decide device (dd_run.cu): the device runs ahead; the halo, kick and drift kernels run
     * only while *gate is 0 (gate NULL: the host decides, nothing gated) */
    int run_ahead;
    DdCtrl *ctrl, *ctrl_host;
    const int *gate;        /* &ctrl->halted */
    unsigned long long *vv_local, *vv_all;
    int *halt_host, *halt_dev;   /* mapped: the halted step, polled by the host without waiting */
    int rebuild_at;         /* the step the host rebuilds at (the device found it due) */
    /* the force launches (whole, or inner and border with --dd-overlap) under a conditional
     * node on the gate, captured at each rebuild: a stopped device skips them (NULL: ungated) */
    cudaGraphExec_t force_exec[2];
    cudaStream_t run_body;

    double timeout_s;       /* --dd-timeout: a device wait gives up after this many seconds */
    int force_gate;         /* --dd-force-gate: 0 = the forces launched ungated with --decide device */
    /* --dd-profile on: the rebuild's phases timed on the host, the stream synchronised and the
     * ranks aligned at each phase boundary (a diagnostic: it adds the waits it measures around;
     * off, one branch) */
    int prof_on;
    double prof_mark, prof_s[DD_PROF_PHASES];
    long long prof_builds;

    /* --dd-halo-reps: the halo exchange (per step) and the force kernel (per call) replayed on their
     * own after the run, in us: the largest over ranks and this rank's (dd_halo_timing); for the
     * console line and the row's pairs (dd_row_pairs). halo_reps 0: not timed (yet) */
    int halo_reps;
    double halo_us, force_us, halo_us_mine, force_us_mine;
};

static inline Dd *dd_of(Sim *s) { return (Dd *)s->ctx; }

/* The halo pack of every backend: the k-th atom of a pulse's send list, moved by the pulse's
 * shift along its axis (0, or +-L where it crosses the periodic boundary). */
__device__ __forceinline__ real4 dd_halo_atom(const real4 *r, const int *idx, int k, int axis, real shift)
{
    real4 q = r[idx[k]];
    if (axis == 0) q.x += shift;
    else if (axis == 1) q.y += shift;
    else q.z += shift;
    return q;
}

/* dd_domain.cu: the per-domain work (kernels and their host sides). */
void dd_geometry(Sim *s, Dd *d);             /* domain boxes and cells; refuses thin domains (no GPU needed) */
void dd_setup(Sim *s, Dd *d);                /* arrays, local atoms from s->r */
void dd_wrap(Dd *d);
void dd_rebuild(Sim *s, Dd *d);              /* migrate, check conservation, ghosts, cells, W */
void dd_halo(Dd *d);                         /* the coordinate halo of one step */
void dd_force_halo(Dd *d);                   /* --dd-newton on: the ghosts' forces home, pulses in reverse order */
void dd_forces_step(Dd *d);                  /* halo and forces, overlapped where --dd-overlap on */
void dd_gather(Sim *s, Dd *d, int with_forces);   /* local atoms of every rank -> s->r, v (a, u) by id */
void dd_for_each_pair(Sim *s, Dd *d, PairFn fn, void *arg);
void dd_free(Dd *d);
/* --dd-profile on: the time since the last mark charged to `phase` (after a stream synchronise),
 * then a barrier whose wait is charged to PROF_SKEW; every rank passes the same marks */
void dd_prof(Dd *d, int phase);
void dd_prof_report(Dd *d);   /* per rebuild, largest over ranks (collective: every rank calls it) */
/* the captured halo graph destroyed: before the communicator is (NCCL waits at ncclCommDestroy
 * for every graph holding its operations to be destroyed first: a hang at exit otherwise) */
void dd_drop_halo_graph(Dd *d);
unsigned long long dd_mix_id(unsigned long long id);

/* dd_comm.cu: MPI around the run. Every rank failing in here names itself and stops every
 * rank (MPI_Abort), never leaves the others waiting. */
void dd_mpi_init(int *argc, char ***argv, int *rank, int *size);
void dd_mpi_finalize(void);
void dd_fail(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3), noreturn));
int dd_local_rank(int *local_size);   /* rank among the processes of this host (which GPU), and their number */
/* Host-side collectives and neighbour exchanges (counts, offsets; never per step). */
void dd_allreduce_sum_ll(long long *x, int n);
void dd_allreduce_sum_ull(unsigned long long *x, int n);
void dd_barrier(void);
void dd_allreduce_sum_d(double *x, int n);
/* the domain's U, sum v^2, virial summed over ranks and max v^2 taken, in one reduction, into *all */
void dd_reduce_props(Props *all, double upot, double ukin, double virial, double vv_max);
void dd_allreduce_max_d(double *x, int n);
void dd_allreduce_max_i(int *x, int n);
void dd_sendrecv_int(const int *send, int n, int to, int *recv, int from);
void dd_allgatherv_bytes(const void *send, long long bytes, void **all, long long *total);
/* dd_halo.cu: the halo, through the backend --comm chose (dd_halo.cuh). */
void dd_comm_init(Dd *d);
void dd_comm_free(Dd *d);
/* Moves nsend real4 from device send (this rank) to rank `to`, and nrecv real4 from rank
 * `from` into device recv, on d->g->stream; mpi host-staged, nccl send/recv, p2p and nvshmem
 * host-staged as mpi. For the same rank both ways, a device copy. */
void dd_exchange(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag);
/* The coordinate halo of pulse k: pack r[send_idx] + shift and deliver into send_rank's
 * r + remote_off through the backend, and receive this pulse's ghosts. */
void dd_pulse_exchange(Dd *d, int k);
/* --dd-newton on: the force halo of pulse k, the reverse of the coordinate one: this rank's
 * ghosts of pulse k, a[recv_off + m] and u[recv_off + m], go back to recv_rank, and what
 * send_rank returns is added to a[send_idx[m]], u[send_idx[m]] (into ghosts too, where pulse k
 * forwarded them: a later call carries them on). mpi host-staged, nccl send/recv, p2p a signal
 * to recv_rank and a pull from send_rank's a and u; gated like the pack (--decide device). */
void dd_force_pulse(Dd *d, int k);
/* Adds src[m] (xyz to a, w to u) into a[idx[m]], u[idx[m]]; src_u non-NULL: u from src_u[m]. */
void dd_launch_force_add(Dd *d, const int *idx, int n, const real4 *src, const real *src_u);
/* Packs a[first + m].xyz and u[first + m] into out[m] (m < n). */
void dd_launch_force_pack(Dd *d, int first, int n, real4 *out);
/* p2p, one thread, gated: raises *signal (a peer's) by one, after this stream's earlier writes. */
void dd_launch_signal(Dd *d, unsigned long long *signal);
/* p2p: after any reallocation of r, and at each rebuild, the peers' addresses and the offsets
 * of pulses [first, first + count) (those whose ghosts are about to be exchanged). */
void dd_comm_rebuilt(Dd *d, int first, int count);
/* Packs r[idx[k]] + shift along axis into out (local or a peer's memory); with a signal
 * (p2p), each block then raises *signal by one, after its writes are visible. */
void dd_launch_pack(Dd *d, const int *idx, int n, int axis, real shift, real4 *out, unsigned long long *signal);
/* Host check after a step: a device wait that timed out stops every rank (p2p, nvshmem). */
void dd_comm_poll(Dd *d);
/* p2p, nvshmem: on the stream, wait until *signal reaches pulse k's expected count raised by
 * inc (the sender's blocks this step); gives up after --dd-timeout (d->timeout_s). */
void dd_launch_wait(Dd *d, const unsigned long long *signal, int k, unsigned long long inc);   /* k: the slot */
/* --decide device: the largest v^2 of the step over all ranks, vv_local -> vv_all on the
 * stream, no host wait (nccl all-reduce; p2p each rank's value into every peer's slots, then a
 * wait; nvshmem max-reduce on the stream). Collectives run every step on every rank (a
 * halted step too: their counts must match); p2p's vote kernel is gated. */
void dd_comm_vote_open(Dd *d);   /* p2p: maps every peer's vote slots (once, all ranks) */
void dd_comm_vote(Dd *d);
/* bytes this rank's halo sends to other ranks per step (positions; --dd-newton on: forces back) */
long long dd_halo_bytes(const Dd *d);
/* dd_run.cu: the variant's stages for --decide device */
void dd_run_begin(Sim *s);
void dd_run_rebuild(Sim *s);
void dd_run_decide(Sim *s);
int dd_run_sample(Sim *s);
int dd_run_horizon(Sim *s);   /* steps until the device may stop for a rebuild (Variant.run_horizon) */
void dd_run_kick_drift(Dd *d);
void dd_run_kick(Dd *d);
int dd_run_halted_seen(const Dd *d);   /* the host saw the device stop (a mapped read, no wait) */
void dd_run_capture_forces(Dd *d);     /* after each build while running ahead */
/* forces of blocks [first, first + nblocks) on st: part 0 whole or inner, part 1 border */
void dd_run_forces(Dd *d, int part, int first, int nblocks, cudaStream_t st);
void dd_run_free(Dd *d);
/* dd_stages.cu: the Variant's stages (variants/gpu-dd.cu composes them) */
/* every rank's start: NVLink multicast off, MPI up, --help's preamble (the compiled backends),
 * ranks > 0 silent and without --csv / --blocks-csv; the count of what stays in argv */
int dd_start(int *argc, char ***argv);
int dd_init(Sim *s);            /* options against the ranks, device, domain, halo backend */
void dd_finish(Sim *s);         /* the halo and the force kernel replayed on their own (--dd-halo-reps), teardown */
/* Variant.row_pairs: the halo and force replays' times, where they were measured (docs/csv.md) */
void dd_row_pairs(Sim *s, void (*put)(void *ctx, const char *name, const char *value), void *ctx);
void dd_kick_drift(Sim *s);
void dd_kick(Sim *s);
void dd_rescale(Sim *s, double factor);
void dd_wrap_stage(Sim *s);
void dd_build(Sim *s);
void dd_forces(Sim *s);
void dd_props(Sim *s);          /* the domain's sums, then the whole system's (every rank the same numbers) */
void dd_download(Sim *s);
void dd_pairs(Sim *s, PairFn fn, void *arg);
void dd_mark(Sim *s, int slot);
double dd_seconds(Sim *s, int from, int to);
const char *dd_device(Sim *s);
/* Called after a rank failure where MPI can still be reached. */
void dd_abort_all(int code);

#endif
