/* sim.h - the simulation state every stage works on, and the variant interface.
 *
 * A variant is a table of stage functions (struct Variant). The MD loop (md_loop.c) calls
 * them in the paper's order and owns the timers, so every program is timed the same way.
 * A NULL entry means "use the common CPU stage" (integrate.c): CPU variants supply only
 * build and forces; GPU variants supply everything that touches device memory. */
#ifndef NBR_SIM_H
#define NBR_SIM_H

#include "params.h"
#include "potential.h"
#include "real.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Timed stages. Fractions of the production time go to the CSV under these names. */
typedef enum {
    STAGE_LIST,       /* periodic wrap, cell/layer assignment, neighbour build */
    STAGE_FORCE,      /* forces and potential energy */
    STAGE_INTEGRATE,  /* both leapfrog half-kicks and the drift */
    STAGE_TRANSFER,   /* host <-> device copies the algorithm needs every step or rebuild */
    STAGE_REORDER,    /* reordering atoms in cell order */
    STAGE_OTHER,      /* properties (reductions), rescaling, rebuild test */
    NSTAGES
} Stage;
extern const char *const stage_names[NSTAGES];

/* Whole-system properties the loop needs each step (stage e of the paper). */
typedef struct {
    double ukin_sum;   /* sum of v^2 (kinetic energy = ukin_sum / 2) */
    double upot_sum;   /* total potential energy U */
    double vv_max;     /* largest v^2: drives the rebuild test */
} Props;

/* Measured by the variant; reported in the summary and the CSV. */
typedef struct {
    double nbr_entries;   /* full-list-equivalent neighbour entries at the last build (N_p) */
    double nbr_sum;       /* running sums over production builds, for means */
    long   builds;        /* rebuilds during production */
    long   builds_total;
    int    layers;        /* N_l: largest cell occupancy at the last build */
    int    layers_max;
    int    cells_per_axis;/* G */
    double bytes;         /* storage of state + neighbour structures, bytes */
    long   grows;         /* automatic capacity increases */
} Stats;

struct Variant;

typedef struct Sim {
    Params p;
    const struct Variant *variant;
    int n;                /* atoms */
    real L;               /* edge of the cubic region, centred at the origin */
    PairPotential pot;
    real rn;              /* r_c + delta */
    /* host state: authoritative for CPU variants, a mirror for GPU ones (see download) */
    vec3 *r, *v, *a;
    real *u;              /* per-atom potential energy (sum over j of u(r_ij)/2), if has_u */
    Props props;
    Stats stats;
    int step;             /* current step, 0 before the first */
    int production;       /* 1 once equilibration is over */
    int rebuild_due;
    double disp_acc;      /* cumulative max displacement since the last build */
    void *ctx;            /* the variant's own data (device arrays, lists) */
    double t_stage[NSTAGES]; /* seconds per stage, production only */
} Sim;

/* Directed pairs (i, j) of a neighbour structure, for the exactness tests. */
typedef void (*PairFn)(int i, int j, void *arg);

typedef struct Variant {
    const char *name;
    const char *summary;
    unsigned knobs;        /* KNOB_* this variant honours */
    int has_u;             /* forces() fills per-atom u */
    int pair_multiplicity; /* each unordered pair stored once (Newton 3) or twice (full) */
    double pair_cutoff;    /* for_each_pair holds r < this: 0 = r_n, < 0 = r_c (cpu-cells) */

    int  (*init)(Sim *s);      /* allocate and upload; host state is initialised */
    void (*finish)(Sim *s);

    /* MD stages; NULL = common CPU version */
    void (*kick_drift)(Sim *s);         /* (a) v += a dt/2; r += v dt */
    void (*wrap)(Sim *s);               /* (b) periodic boundaries */
    void (*reorder)(Sim *s);            /* (b) cell order; NULL = not supported */
    void (*build)(Sim *s);              /* (b) neighbour structure; NULL = none */
    void (*forces)(Sim *s);             /* (c) a, and u if has_u; props.upot_sum here or in props */
    void (*kick)(Sim *s);               /* (d) v += a dt/2 */
    void (*props)(Sim *s);              /* (e) props.ukin_sum, props.vv_max (upot_sum for GPU) */
    void (*rescale)(Sim *s, double factor); /* (f) v *= factor */
    void (*download)(Sim *s);           /* make host r, v, a, u current; NULL for CPU */
    void (*for_each_pair)(Sim *s, PairFn fn, void *arg); /* NULL = no stored structure */

    /* Timing: NULL = host clock. A GPU variant records a CUDA event into a slot (timer_mark)
     * and returns the seconds between two recorded slots (timer_seconds, which may wait
     * for the later one); the loop's stage bookkeeping (timers.c) is the same for all. */
    void (*timer_mark)(Sim *s, int slot);
    double (*timer_seconds)(Sim *s, int from, int to);
    const char *(*device_name)(Sim *s);  /* NULL = the host CPU */
    const char *compiler;                /* device compiler, if any (NBR_COMPILER of the .cu) */
} Variant;

/* The whole program of a variant: parse flags, build the initial state, run the paper's
 * loop, validate if asked, print the summary and append the CSV row. Returns the exit code. */
int nbr_main(int argc, char **argv, const Variant *v);

/* Fatal error with a one-line message, exit code 3 (capacity) or 2 (input). */
void nbr_fail(int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* Common CPU stages (integrate.c), also used by the check. */
void cpu_kick_drift(Sim *s);
void cpu_wrap(Sim *s);
void cpu_kick(Sim *s);
void cpu_props(Sim *s);
void cpu_rescale(Sim *s, double factor);

/* Stage timers (timers.c). Stages nest: time inside an inner stage (a host transfer inside
 * the list build, say) is attributed to the inner stage only. Active in production only.
 * TIMER_SLOTS is the number of marks a variant's timer_mark must be able to hold. */
enum { TIMER_SLOTS = 256 };
void stage_enter(Sim *s, Stage st);
void stage_leave(Sim *s);
void timers_flush(Sim *s);   /* adds pending intervals into s->t_stage */

/* Reorders r and v (and a) by the permutation order[new] = old. */
void reorder_atoms(Sim *s, const int *order);

/* Host allocation that dies with a message naming the size on failure. */
void *nbr_alloc(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif
#endif
