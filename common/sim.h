/* sim.h - the simulation state every stage works on, and the variant interface.
 *
 * A variant is a table of stage functions (struct Variant). The MD loop (md_loop.c) calls
 * them in the paper's order and owns the timers, so every program is timed the same way.
 * Stages never call back into the loop (timers, rebuild bookkeeping): they do their work
 * and report what they did. CPU variants take the shared CPU stages from
 * kernels/cpu/stages.h (CPU_COMMON_STAGES) and supply build and forces; GPU variants declare
 * their own stages to gpu_variant (kernels/cuda/gpu_sim.cuh), which fills the shared ones they
 * left unset. Either way the table is declared once and not edited after. */
#ifndef NBR_SIM_H
#define NBR_SIM_H

#include "fail.h"
#include "params.h"
#include "potential.h"
#include "real.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Timed stages. Fractions of the production time go to the CSV under these names. */
typedef enum {
    STAGE_LIST,       /* periodic wrap, cell/layer assignment, neighbour build (with any
                         host <-> device copies these need) */
    STAGE_FORCE,      /* forces and potential energy */
    STAGE_INTEGRATE,  /* both leapfrog half-kicks and the drift */
    STAGE_REORDER,    /* reordering atoms in cell order */
    STAGE_OTHER,      /* properties (reductions), rescaling, rebuild test */
    NSTAGES
} Stage;
extern const char *const stage_names[NSTAGES];

/* Whole-system properties the loop needs each step (stage e of the paper). */
typedef struct {
    double ukin_sum;   /* sum of v^2 (kinetic energy = ukin_sum / 2) */
    double upot_sum;   /* total potential energy U */
    double virial_sum; /* sum over pairs of r_ij . f_ij (pressure P V = (sum v^2 + virial) / 3) */
    double vv_max;     /* largest v^2: drives the rebuild test */
} Props;

/* Measured by the variant; reported in the summary and the CSV. */
typedef struct {
    double nbr_entries;   /* full-list-equivalent neighbour entries at the last build (N_p) */
    double nbr_sum;       /* running sums over production builds, for means */
    long   builds;        /* rebuilds during production */
    long   builds_total;
    long   reorders;      /* reorderings during production */
    int    layers;        /* N_l: largest cell occupancy at the last build */
    int    layers_max;
    int    cells_per_axis;/* G */
    double bytes;         /* storage of state + neighbour structures, bytes */
    long   grows;         /* automatic capacity increases */
    unsigned long long rebuild_hash; /* the steps of the rebuilds after step 0, hashed in order */
    int    list_threads;  /* threads per block of the list-build kernel (GPU; 0 = n/a): gpu-old
                             sizes its blocks by N_l whatever --threads says */
} Stats;

/* What --check found (check.c fills it, report.c writes it to the row; docs/csv.md). */
typedef struct {
    int verdict;          /* 0: no verdict (no --check, an autotuner's trial, or the run stopped before
                             the check ended), 1: pass, -1: fail */
    int compared;         /* the check compared (0: an unstable run's state, refused: no error measured) */
    double f_err, u_err;  /* the largest per-atom force and energy errors; u_err < 0: no per-atom energies */
    double e_rel, w_err;  /* the total energy's relative error, the virial's (both beyond the borderline
                             pairs' share, as judged) */
    double last_f_err;    /* the run's last forces (Variant.check_last_force); < 0: not compared */
    long pairs_bad;       /* stored pair entries wrong (missing, extra, wrong multiplicity, self, out of
                             range); < 0: the run stores no pairs */
} CheckResult;

struct Variant;

/* What ran: the choices a program resolved from the options (an "auto" or 0 made concrete, a
 * knob that does not apply made its no-op), kept beside the options, which stay as parsed: a
 * program writes these, never s->p (the loop checks that Params are byte-identical after init
 * and after the run). ran_from_params fills them from Params before each init, so by default
 * what ran is what was asked for, narrowed by the knobs the program declares: without
 * KNOB_REORDER no reordering (reorder 0), without KNOB_LAYERS no host layer step (layers
 * device). The CSV row names these in their options' columns (report.c). A program's own
 * options (Variant.opts) have the same pair: Sim.opts as parsed, Sim.ran_opts what ran. */
typedef struct Ran {
    int list_method;      /* ListMethod built (gpu-rumd, gpu-onchip: auto resolved) */
    int tp;               /* threads per particle (gpu-rumd's default by N) */
    int icluster, jcluster;   /* cpu-cluster, gpu-cluster: the cluster shape */
    int reorder;          /* reordering every N steps at the next rebuild (0 = never) */
    int reorder_at;       /* Where the reordering ran */
    int layers;           /* Where layer assignment ran (device: none on the host) */
} Ran;
/* Ran's fields that stand for the Params field of the same name: copied from Params before init
 * (ran_from_params) and laid back over them for the row (ran_show), so a new one is one entry. */
#define RAN_PARAMS(X) \
    X(list_method) X(tp) X(icluster) X(jcluster) X(reorder) X(reorder_at) \
    X(layers)

/* Timer marks: a variant's timer_mark must hold TIMER_SLOTS of them (host clock readings or
 * CUDA events); the loop brackets whole blocks of steps with them, and --stage-reps replays
 * each stage between two of them. */
enum { TIMER_SLOTS = 4 };
typedef struct Sim {
    Params p;             /* the options as parsed (and as the autotuner set them): read-only to programs */
    Ran ran;              /* what ran: programs record resolved choices here */
    /* The program's own options (Variant.opts; NULL where it declares none), the driver's storage:
     * opts as parsed and tuned, read-only to the program like p (checked alike); ran_opts a copy
     * made before each init, where the program records what it resolved (the row shows it). */
    const void *opts;
    void *ran_opts;
    const struct Variant *variant;
    int n;                /* atoms */
    real L;               /* edge of the cubic region, centred at the origin */
    PairPotential pot;
    real rn;              /* r_c + delta */
    /* host state: authoritative for CPU variants, a mirror for GPU ones (see download) */
    vec3 *r, *v, *a;
    real *u;              /* per-atom potential energy (sum over j of u(r_ij)/2), if has_u */
    real *q;              /* charges (all 0 unless the potential has charges) */
    Props props;
    Stats stats;
    CheckResult checked;  /* --check's verdict and errors, for the row */
    int step;             /* current step, 0 before the first */
    int stepping;         /* 1 while step s->step runs (not yet done); 0 between steps */
    int production;       /* 1 once equilibration is over */
    int rebuild_due;
    double disp_acc;      /* cumulative max displacement since the last build */
    void *ctx;            /* the variant's own data (device arrays, lists) */
    double host_marks[TIMER_SLOTS]; /* host clock marks (CPU variants) */
    int trial;            /* an autotuner's trial (tune.c): no summary, no --check */
    int sums_skip;        /* 1: nothing reads U or the virial of the forces about to run (a device
                             loop's step before its sample point), so a force stage may skip them */
} Sim;

/* Directed pairs (i, j) of a neighbour structure, for the exactness tests. */
typedef void (*PairFn)(int i, int j, void *arg);

typedef struct Variant {
    const char *name;
    const char *summary;
    unsigned knobs;        /* KNOB_* this variant honours */
    /* the options only this program has, declared in its file (options.h's OwnOptions: table,
     * struct size, defaults); it reads them as Sim.opts. NULL: none */
    const OwnOptions *opts;
    unsigned lists;        /* with KNOB_LISTMETHOD: the --list values it builds, bits 1 << ListMethod
                              (parsing, --help and --print-options narrow the domain to them) */
    int threads;           /* with KNOB_THREADS: its --threads default (0: 128) */
    int has_u;             /* forces() fills per-atom u */
    int pair_multiplicity; /* each unordered pair stored once (Newton 3) or twice (full) */
    double pair_cutoff;    /* for_each_pair holds r < this: 0 = r_n, < 0 = r_c (cpu-cells) */
    int check_last_force;  /* --check also compares the run's last forces, from the structure the
                              run used (not rebuilt): for a structure that changes between builds */
    long max_atoms;        /* largest N the algorithm can index (0 = no limit of its own) ... */
    const char *max_atoms_why; /* ... and why, for the message */

    /* this machine can run the variant (a GPU variant: a device and its driver), checked before
     * anything is printed; else one line, exit EXIT_NO_DEVICE. NULL: any machine can */
    void (*preflight)(const Sim *s);
    int  (*init)(Sim *s);      /* allocate and upload; host state is initialised */
    void (*finish)(Sim *s);

    /* MD stages; NULL = common CPU version */
    /* MD stages; all but reorder, build, download and for_each_pair are required */
    void (*kick_drift)(Sim *s);         /* (a) v += a dt/2; r += v dt */
    void (*wrap)(Sim *s);               /* (b) periodic boundaries */
    int  (*reorder)(Sim *s);            /* (b) cell order; returns 1 if it reordered, 0 if it
                                           could not (nothing built yet); NULL = not supported */
    void (*build)(Sim *s);              /* (b) neighbour structure; NULL = none */
    void (*forces)(Sim *s);             /* (c) a, and u if has_u; props.upot_sum and
                                           props.virial_sum here or in props */
    void (*kick)(Sim *s);               /* (d) v += a dt/2 */
    void (*props)(Sim *s);              /* (e) props.ukin_sum, props.vv_max (and the sums of
                                           (c) for GPU variants) */
    void (*rescale)(Sim *s, double factor); /* (f) v *= factor */
    void (*download)(Sim *s);           /* make host r, v, a, u current; NULL for CPU */
    void (*for_each_pair)(Sim *s, PairFn fn, void *arg); /* NULL = no stored structure */

    /* Running ahead (--decide device). Per step the loop then calls kick_drift,
     * device_rebuild (kernels that rebuild only where the device found a rebuild due),
     * forces, kick and device_decide (the displacement test, on the device); the host reads
     * the device at sample points only, through sample. NULL device_begin: the variant
     * cannot run ahead, the host decides every step. */
    void (*device_begin)(Sim *s);       /* after step 0: the device takes the decisions over */
    void (*device_rebuild)(Sim *s);
    void (*device_decide)(Sim *s);
    /* --leapfrog fused (KNOB_LEAPFROG): kick, device_decide and the next step's kick_drift in
     * one stage; the loop then calls kick_drift once at the start of each chunk, and per step
     * device_rebuild (which wraps the positions when the step rebuilds), forces and
     * leapfrog(s, drift), drift = 0 at the chunk's last step (its sample point) */
    void (*leapfrog)(Sim *s, int drift);
    int  (*sample)(Sim *s);             /* props and stats to the host: -1, or, when a capacity had
                                           to grow, the step to replay from (state restored) */
    /* For a variant whose rebuilds need the host (gpu-dd: migration): how many steps from the
     * next one the device can run before a rebuild may be due (0: no estimate). The host then
     * looks there (sample, no statistics) instead of queuing gated steps up to the sample
     * point. Must give the same answer on every rank (it sets where collectives happen). */
    int  (*run_horizon)(Sim *s);
    /* The steps between two sample points as one launch (gpu-onchip, --decide device): the loop
     * calls it instead of the per-step stages; 1 = done, 0 = run the stages */
    int  (*chunk_run)(Sim *s, int nsteps);
    /* --graph on: the steps between two sample points captured once as a CUDA graph */
    int  (*chunk_replay)(Sim *s, int nsteps); /* 1 = a graph of nsteps steps was launched */
    void (*chunk_begin)(Sim *s, int nsteps);  /* starts capturing */
    void (*chunk_end)(Sim *s, int nsteps);    /* ends the capture and launches the graph */

    /* kernel-level timing (--stage-reps): the fewest bytes a stage must move through memory, for the GB/s
     * columns (documented where defined); NULL = not stated. */
    double (*stage_bytes)(Sim *s, Stage st);

    /* Timing: NULL = host clock. A GPU variant records a CUDA event into a slot (timer_mark)
     * and returns the seconds between two recorded slots (timer_seconds, which may wait
     * for the later one); the loop's stage bookkeeping (timers.c) is the same for all. */
    void (*timer_mark)(Sim *s, int slot);
    double (*timer_seconds)(Sim *s, int from, int to);
    const char *(*device_name)(Sim *s);  /* NULL = the host CPU */
    const char *compiler;                /* device compiler, if any (NBR_COMPILER of the .cu) */

    /* --autotune (KNOB_AUTOTUNE): the knobs the autotuner may set, their domains and starts
     * (common/tune.h); NULL = not tunable */
    const struct TuneDecl *tune;
    /* the name of the device --device names ("none" where there is none) and the bytes it holds
     * through gpu_alloc (the autotuner's cache key and its check that trials free what they allocate);
     * NULL = the host */
    void (*device_query)(const Sim *s, char *name, size_t len, double *used_bytes);
    /* The program's own measurements (a cluster list's fill, say) as name=value pairs, after its
     * knobs in the row's knobs column (csvq reads them as columns; docs/csv.md); called for every
     * row, so before any build it puts nothing. NULL = none. */
    void (*row_pairs)(Sim *s, void (*put)(void *ctx, const char *name, const char *value), void *ctx);
} Variant;

/* s->ran from s->p and the program's knobs (see Ran); the loop calls it before each init. */
void ran_from_params(Sim *s);
/* *shown = p with the values of what ran laid over their options (the CSV row's columns). */
void ran_show(const Sim *s, Params *shown);

/* The run keeps pairs that for_each_pair enumerates: a program that stores some, and a run
 * that asks for a list (--list none stores none: gpu-rumd's all-pairs forces). */
static inline int sim_stores_pairs(const Sim *s) { return s->variant->for_each_pair && s->ran.list_method != LIST_NONE; }

/* The whole program of a variant: parse flags, build the initial state, run the paper's
 * loop, validate if asked, print the summary and append the CSV row. Returns the exit code. */
int nbr_main(int argc, char **argv, const Variant *v);

/* A rebuild's bookkeeping (counts, the hash of the rebuild steps, the displacement reset), for
 * the loop and for a variant whose host rebuilds run inside a chunk of device steps (gpu-dd). */
void loop_rebuild_done(Sim *s);
/* The steps from the next one until the displacement test would fire if every step moved the
 * fastest atom as far as the last one did (props.vv_max); 0 = no estimate. A run_horizon. */
int loop_horizon_estimate(const Sim *s);

#ifdef __cplusplus
}
#endif
#endif
