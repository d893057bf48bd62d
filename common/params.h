/* params.h - run parameters: the two systems of the paper as presets, every field a flag.
 *
 * One table (params.c) defines each option: its flag, type, limits, help text, and which
 * algorithm knob it is. The parser, --help and the printed configuration all read that table,
 * so the documentation cannot drift from the code. A variant declares the knobs it honours
 * (Variant.knobs); passing a knob the variant does not have is an error, not silently ignored.
 * An option that only one program has is declared in that program's file instead (Variant.opts,
 * options.h's OwnOptions), stored in a struct of its own: the functions below take its table and
 * struct (`own`, `own_p`; NULL, NULL for none) and list it with these. */
#ifndef NBR_PARAMS_H
#define NBR_PARAMS_H

#include "options.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Knobs: options that only some variants have. Options with knob 0 apply to every program. */
enum {
    KNOB_THREADS  = 1u << 0,  /* threads per block */
    KNOB_READ     = 1u << 1,  /* how positions are read: texture / __ldg / plain */
    KNOB_REORDER  = 1u << 2,  /* reorder interval N_R */
    KNOB_WLAYOUT  = 1u << 3,  /* neighbour-matrix layout */
    KNOB_LAYERS   = 1u << 4,  /* layer assignment host / device */
    KNOB_REDUCE   = 1u << 5,  /* final reduction host / device */
    KNOB_TP       = 1u << 6,  /* threads per particle */
    KNOB_LIST     = 1u << 7,  /* capacity of a neighbour list / matrix */
    KNOB_LAYERCAP = 1u << 8,  /* capacity of the layer matrix */
    KNOB_PAIRCAP  = 1u << 9,  /* an unordered pair list's capacity, grown from --grow-from (cpu-pairlist) */
    KNOB_DECIDE   = 1u << 10, /* rebuild decision on the host or the device */
    KNOB_GRAPH    = 1u << 11, /* CUDA graphs for the steps between sample points */
    KNOB_DEVICE   = 1u << 12, /* which GPU */
    KNOB_LISTMETHOD = 1u << 13, /* the neighbour-list build: none / n2 / sort (RUMD), n2 / cells (gpu-onchip) */
    KNOB_AUTOTUNE = 1u << 17, /* the autotuner (common/tune.h): the program declares Variant.tune */
    KNOB_LEAPFROG = 1u << 19, /* the device loop's leapfrog kernels: split (kick, decide, kick_drift) or fused */
    KNOB_CLUSTERS = 1u << 21, /* cluster-pair lists: atoms per i-cluster and per j-unit */
    KNOB_LAUNCH   = 1u << 24, /* the device loop's steps as one launch per stage or one per chunk */
};

/* Every enumerated option has a name table in params.c (enum value = index). */
typedef enum { SYS_SP, SYS_LJ, SYS_SALT, SYS_LAMMPS_LJ } SystemKind;
typedef enum { LATTICE_SC, LATTICE_FCC } LatticeKind;
typedef enum { LIST_AUTO, LIST_NONE, LIST_N2, LIST_SORT, LIST_CELLS } ListMethod;
typedef enum { CONFIG_LATTICE, CONFIG_JITTER, CONFIG_RANDOM, CONFIG_BOUNDARY, CONFIG_APPROACH } ConfigKind;
typedef enum { READ_TEXTURE, READ_LDG, READ_PLAIN } ReadMode;
typedef enum { WLAYOUT_ROW, WLAYOUT_COL } WLayout;
typedef enum { WHERE_HOST, WHERE_DEVICE } Where;
typedef enum { DECIDE_HOST, DECIDE_DEVICE } Decide;

extern const char *const system_names[];
extern const char *const config_names[];
extern const char *const read_names[];
extern const char *const wlayout_names[];
extern const char *const where_names[];
extern const char *const onoff_names[];
/* --leapfrog: the device loop's kick + decide + next kick_drift as three kernels or one
 * (kernels/cuda/integrate.cu) */
enum { LEAPFROG_SPLIT, LEAPFROG_FUSED };
extern const char *const leapfrog_names[];
/* --graph: none; the steps between sample points as one CUDA graph; the same with each
 * step's rebuild kernels under a conditional node (kernels/cuda/device_loop.cu) */
enum { GRAPH_OFF, GRAPH_ON, GRAPH_COND };
extern const char *const graph_names[];
/* --launch: with --decide device, each stage of a step as a kernel of its own, or every step
 * between two sample points as one cooperative launch (gpu-rumd: kernels/cuda/rumd_chunk.cu) */
enum { LAUNCH_STAGE, LAUNCH_CHUNK };
extern const char *const launch_names[];
extern const char *const lattice_names[];
extern const char *const list_names[];

typedef struct Params {
    /* the physical system */
    int system;          /* SystemKind: selects the preset below */
    int ne;              /* unit cells per edge of the initial cubic lattice: N = ne^3 (sc) or 4 ne^3 (fcc) */
    int lattice;         /* LatticeKind: simple cubic (the paper) or face-centred cubic (lammps-lj) */
    double rho, temp, rc, delta, dt, shift;
    int potential;       /* PotentialKind (potential.h): lj, or lj-coulsf with charges +-1 */
    int config;          /* ConfigKind: initial positions */
    uint64_t seed;
    /* the run */
    int steps;           /* total steps, equilibration included */
    int equil;           /* equilibration steps (velocity rescaling, excluded from timing) */
    int rescale_every;
    int avg_block;       /* steps per averaging block */
    /* algorithm knobs (see KNOB_*) */
    int threads;         /* threads per block */
    int read;            /* ReadMode */
    int reorder;         /* reorder every N_R steps at the next rebuild; 0 = never */
    int reorder_at;      /* Where: reordering on the host (paper) or the device */
    int wlayout;         /* WLayout */
    int layers;          /* Where: layer assignment */
    int reduce;          /* Where: final stage of reductions */
    int tp;              /* threads per particle */
    int list_method;     /* ListMethod (gpu-rumd, gpu-onchip): auto = the program's default for N */
    int autotune;        /* tune the declared knobs first (common/tune.h) */
    double autotune_budget; /* seconds the search may take */
    char autotune_cache[512]; /* the file of tuned parameters ("" = no cache) */
    int decide;          /* Decide: who decides rebuilds (device: the host reads at sample points only) */
    int graph;           /* GRAPH_*: the steps between sample points as one CUDA graph */
    int device;          /* GPU index */
    int sample_every;    /* steps between sample points (energies, pressure) */
    int leapfrog;        /* LEAPFROG_*: with --decide device, the step's integration as split or fused kernels */
    int launch;          /* LAUNCH_*: with --decide device, a launch per stage or per chunk */
    int icluster;        /* atoms per i-cluster of a cluster-pair list (KNOB_CLUSTERS) */
    int jcluster;        /* atoms per j-unit of its entries: 1 (cluster x atom) up to icluster; 0 = the
                            program's (1 on the GPU, the SIMD width M on the CPU: each resolves it) */
    long max_nbr;        /* neighbours per atom capacity; 0 = automatic (grows) */
    long max_layers;     /* layer capacity; 0 = automatic (grows) */
    long grow_from;      /* debug: automatic neighbour capacity starts here (0 = from the density) */
    /* validation and safety */
    int check;           /* validate against the O(N^2) reference after the run */
    int verify_lists;    /* before each rebuild, check the stale structure still holds every
                            pair now within r_c */
    double rebuild_frac; /* rebuild when the summed max displacement reaches this fraction of
                            delta (0.5 is the safe rule; a debug knob for the tests) */
    double drift_limit;  /* |relative energy drift| beyond which the run is unstable */
    int stage_reps;      /* kernel-level timing: replays of each stage after production (0 = none) */
    /* output */
    int quiet;
    int print_config;    /* print the resolved configuration as name=value lines and exit */
    int allow_dirty;     /* allow rows under results/ from an uncommitted or unknown revision */
    char csv[512];       /* append one row here ("" = none) */
    char blocks_csv[512];/* append one row per averaging block here ("" = none) */
    char tag[64];        /* free-form label written to the CSV */
} Params;

/* Fills *p with defaults (and *own_p with own->defaults), applies the --system preset, then every
 * flag in order, of either table. On a bad flag or value prints one line naming the option and its
 * limit and exits 2. `knobs` is the variant's knob mask; `lists` the --list values it builds (bits
 * 1 << ListMethod, 0 = every one); `threads` its --threads default (0: the common one); `program`
 * and `summary` are for --help. */
void params_parse(Params *p, const OwnOptions *own, void *own_p, int argc, char **argv, unsigned knobs, unsigned lists,
                  int threads, const char *program, const char *summary);

/* Derived quantities. */
double params_rn(const Params *p);          /* r_c + delta */
double params_box(const Params *p);         /* L = (N / rho)^(1/3) */
long   params_natoms(const Params *p);      /* ne^3 (sc) or 4 ne^3 (fcc) */

/* Prints the fully resolved configuration, one "name = value" per line, prefixed "# ". */
void params_print(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs);

/* The CSV columns that come from the option table, in table order: fn(ctx, column, value)
 * for every option that has a column and no knob bit (knobbed = 0), or a knob bit among
 * `knobs`, or is the program's own (knobbed = 1: the row's knobs column, docs/csv.md). */
void params_columns(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs, int knobbed,
                    void (*fn)(void *ctx, const char *col, const char *value), void *ctx);

/* Every option of this program as name=value lines (the flag without dashes), for scripts
 * (--print-config); the caller adds the derived values. */
void params_print_plain(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs);

/* One option, of either table, set from its text as the flag takes it (limits checked: exit 2 on a
 * bad value, through nbr_exit); -1 when the program has no such valued option. The autotuner's
 * trials. */
int params_set(Params *p, const OwnOptions *own, void *own_p, unsigned knobs, const char *program, const char *flag,
               const char *value);
/* An option's value as text (as the flag takes it); -1 when there is no such option. */
int params_get(const Params *p, const OwnOptions *own, const void *own_p, const char *flag, char *out, int len);
/* A cluster program's --prune buffer (cpu-cluster, gpu-cluster: OwnOptions.check): the inner rows
 * are cut from the rows of r_c + delta, so a buffer not below --delta is refused (one line, exit 2). */
void params_check_prune(const Params *p, double buffer, const char *program);

#ifdef __cplusplus
}
#endif
#endif
