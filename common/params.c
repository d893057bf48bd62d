/* params.c - the option table and the parser built on it. */
#include "params.h"
#include "options.h"
#include "potential.h"
#include "real.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const system_names[]  = {"sp", "lj", "salt", "lammps-lj", NULL};
const char *const lattice_names[] = {"sc", "fcc", NULL};
const char *const list_names[]    = {"auto", "none", "n2", "sort", "cells", NULL};
const char *const config_names[]  = {"lattice", "jitter", "random", "boundary", "approach", NULL};
const char *const read_names[]    = {"texture", "ldg", "plain", NULL};
const char *const wlayout_names[] = {"row", "col", NULL};
const char *const where_names[]   = {"host", "device", NULL};
const char *const onoff_names[]   = {"off", "on", NULL};
const char *const graph_names[]   = {"off", "on", "cond", NULL};
const char *const leapfrog_names[] = {"split", "fused", NULL};
const char *const launch_names[] = {"stage", "chunk", NULL};

#define F(field) offsetof(Params, field)
static const Option options[] = {
    {"system", T_ENUM, F(system), 0, 0, system_names, 0, "system",
     "preset: sp (soft sphere: rho 0.8, T 1, r_c 2^(1/6), delta 0.6, shift 1), lj "
     "(rho 0.38, T 1.2, r_c 3, delta 0.8, shift 0) or salt (RUMD's molten salt: LJ + shifted-force Coulomb, "
     "charges +-1, rho 0.3677, T 2, r_c 6, delta 0.5, dt 0.004) or lammps-lj (the LAMMPS/RUMD LJ benchmark, "
     "LAMMPS's bench/in.lj: fcc lattice, rho 0.8442, T 1.44 at the start, r_c 2.5, skin 0.3, shift 0, dt 0.005, "
     "NVE from the start: --equil 0; N = 4 ne^3); applied before every other flag"},
    {"ne", T_INT, F(ne), 1, 1290, NULL, 0, "ne",
     "unit cells per edge of the initial lattice: N = ne^3 (--lattice sc) or 4 ne^3 (fcc, as LAMMPS's "
     "'region box block 0 ne 0 ne 0 ne')"},
    {"lattice", T_ENUM, F(lattice), 0, 0, lattice_names, 0, "lattice",
     "initial lattice: sc (simple cubic, the paper) or fcc (face-centred cubic, 4 atoms per unit cell)"},
    {"rho", T_REAL, F(rho), 1e-6, 3.0, NULL, 0, "rho", "number density"},
    {"temp", T_REAL, F(temp), 0, 1e3, NULL, 0, "temp", "temperature (initial |v| = sqrt(3T); rescaling target)"},
    {"rc", T_REAL, F(rc), 0.5, 10, NULL, 0, "rc", "interaction cutoff r_c"},
    {"delta", T_REAL, F(delta), 0, 5, NULL, 0, "delta", "neighbour shell thickness: r_n = r_c + delta"},
    {"dt", T_REAL, F(dt), 1e-6, 0.05, NULL, 0, "dt", "time step"},
    {"potential", T_ENUM, F(potential), 0, 0, potential_names, 0, "potential",
     "pair potential: lj (LJ 12-6, cut at r_c, plus --shift) or lj-coulsf (the same plus shifted-force Coulomb "
     "between charges +-1 in a rock-salt pattern: needs an even --ne)"},
    {"shift", T_REAL, F(shift), -10, 10, NULL, 0, "shift", "energy added to u(r) inside r_c"},
    {"config", T_ENUM, F(config), 0, 0, config_names, 0, "config",
     "initial positions: lattice (the paper), jitter (lattice + random displacements), "
     "random (uniform), boundary (atoms placed exactly on cell and box faces), approach (the rebuild rule's "
     "worst case: atoms 0 and 1 r_n + 0.01 apart along x, closing head-on at sqrt(3T) each, every other atom at rest "
     "on its lattice site; needs sites over 2 r_n apart, a low --rho)"},
    {"seed", T_U64, F(seed), 0, 1.8e19, NULL, 0, "seed", "random seed"},
    {"steps", T_INT, F(steps), 0, 1e9, NULL, 0, "steps", "total time steps, equilibration included"},
    {"equil", T_INT, F(equil), 0, 1e9, NULL, 0, "equil", "equilibration steps (rescaled, not timed)"},
    {"rescale-every", T_INT, F(rescale_every), 1, 1e9, NULL, 0, NULL, "rescale velocities every this many steps while equilibrating"},
    {"avg-block", T_INT, F(avg_block), 1, 1e9, NULL, 0, NULL, "steps per averaging block"},
    {"sample-every", T_INT, F(sample_every), 1, 1e9, NULL, 0, "sample_every",
     "steps between sample points, where energies and pressure are recorded (and, with --decide device, "
     "the only points where the host reads the device)"},
    {"threads", T_INT, F(threads), 32, 1024, NULL, KNOB_THREADS, "threads", "threads per block (multiple of 32)"},
    {"read", T_ENUM, F(read), 0, 0, read_names, KNOB_READ, "read",
     "how kernels read positions: texture (paper: texture on), ldg (read-only cache), plain (texture off)"},
    {"reorder", T_INT, F(reorder), 0, 1e9, NULL, KNOB_REORDER, "reorder", "reorder atoms in cell order every N_R steps, at the next rebuild (0 = never)"},
    {"reorder-at", T_ENUM, F(reorder_at), 0, 0, where_names, KNOB_REORDER, "reorder_at", "reorder on the host (paper) or the device"},
    {"wlayout", T_ENUM, F(wlayout), 0, 0, wlayout_names, KNOB_WLAYOUT, "wlayout",
     "neighbour matrix W(m,i) layout: row (m-th neighbours of all atoms adjacent, the paper) or col (transposed)"},
    {"layers", T_ENUM, F(layers), 0, 0, where_names, KNOB_LAYERS, "layer_assign", "layer assignment on the host (paper) or the device (atomics)"},
    {"reduce", T_ENUM, F(reduce), 0, 0, where_names, KNOB_REDUCE, "reduce", "final stage of the energy/max-v^2 reductions: host (paper) or device"},
    {"decide", T_ENUM, F(decide), 0, 0, where_names, KNOB_DECIDE, "decide",
     "who decides when to rebuild and reorder: host (reads the properties every step; the paper) or device "
     "(the device runs ahead; the host reads it every --sample-every steps; needs --layers device and "
     "--reorder-at device)"},
    {"graph", T_ENUM, F(graph), 0, 0, graph_names, KNOB_GRAPH, "graph",
     "with --decide device: capture the steps between sample points once as a CUDA graph and replay it; "
     "cond: each step's rebuild kernels under a conditional node, launched only when the step rebuilds"},
    {"leapfrog", T_ENUM, F(leapfrog), 0, 0, leapfrog_names, KNOB_LEAPFROG, "leapfrog",
     "with --decide device: split (each step's second half-kick, rebuild decision and the next step's kick and "
     "drift as three kernels) or fused (one kernel after the forces does all three: two kernels per step that does "
     "not rebuild; the default, split with host decisions)"},
    {"launch", T_ENUM, F(launch), 0, 0, launch_names, KNOB_LAUNCH, "launch",
     "with --decide device: stage (each stage of a step a kernel of its own, or with --graph a node of a graph) or "
     "chunk (every step between two sample points in one cooperative launch, the stages' same device code run by "
     "every block with a grid-wide sync between them: RUMD's and gamdpy's one-kernel integrator; reads positions "
     "with --read plain, which a launch that writes them needs)"},
    {"icluster", T_INT, F(icluster), 0, 8, NULL, KNOB_CLUSTERS, "icluster",
     "cluster-pair lists: atoms per i-cluster, cut from z-sorted columns of the box; a row of entries per i-cluster, "
     "each entry's j positions loaded once for all of its atoms (gpu-cluster: 4 or 8; 0 = by N, 4 below 65 536 "
     "atoms, else 8: the faster on the H200, the row's shape column)"},
    {"jcluster", T_INT, F(jcluster), 0, 8, NULL, KNOB_CLUSTERS, "jcluster",
     "cluster-pair lists: atoms per entry (j-unit): 1 (an i-cluster's row lists atoms), or --icluster (GROMACS's "
     "cluster pairs; 4 with --icluster 8: its 8x4), tested by bounding box against r_n; cpu-cluster: the SIMD "
     "width M of its 4xM kernels (4 or 8; the scalar loop takes either); 0 = the program's: 1 on the GPU, M on "
     "the CPU"},
    {"device", T_INT, F(device), 0, 64, NULL, KNOB_DEVICE, "device_index", "the GPU to run on (CUDA device index)"},
    {"tp", T_INT, F(tp), 0, 64, NULL, KNOB_TP, "tp",
     "threads per particle t_p (gpu-rumd: 0 = RUMD's default, 4 for N <= 10000, else 1; above 32 a multiple of 32. "
     "gpu-layer, gpu-old: lanes per atom of the W force kernel, 1, 2, 4, 8, 16 or 32; 0 = 1)"},
    {"list", T_ENUM, F(list_method), 0, 0, list_names, KNOB_LISTMETHOD, "list_method",
     "neighbour list build. gpu-rumd: none (all pairs every step), n2 (O(N^2) build in shared-memory tiles), sort "
     "(atoms sorted by cell, 125 cells of edge >= r_n/2 searched) or auto (RUMD's default: n2 below N = 8000, else "
     "sort). gpu-onchip: n2 (every atom tested), cells (binned on chip into cells of edge >= r_n, 27 searched; "
     "needs 3 per axis) or auto (cells above N = 2048 where 4 fit per axis, else n2)"},
    {"autotune", T_FLAG, F(autotune), 0, 0, NULL, KNOB_AUTOTUNE, "autotune",
     "first tune the knobs this program declares (gpu-rumd: list method, skin, p_b, t_p and sort interval by RUMD's "
     "search; gpu-layer, gpu-old: skin, threads, t_p and read path; gpu-onchip: skin, tier, cluster, t_p and "
     "threads) with short runs in this process from one stored start, or take them from --autotune-cache; then the "
     "run with them"},
    {"autotune-budget", T_REAL, F(autotune_budget), 1, 1e5, NULL, KNOB_AUTOTUNE, NULL,
     "seconds the autotuner may spend; the search stops with the best found when they are used up"},
    {"autotune-cache", T_STR, F(autotune_cache), 0, sizeof(((Params *)0)->autotune_cache) - 1, NULL, KNOB_AUTOTUNE,
     NULL, "file of autotuned parameters keyed by program (but gpu-rumd), GPU, N, rho, T, potential and dt (\"\" = no cache)"},
    {"max-nbr", T_LONG, F(max_nbr), 0, 1e6, NULL, KNOB_LIST, "max_nbr", "neighbours-per-atom capacity (0 = automatic, grows on demand)"},
    {"grow-from", T_LONG, F(grow_from), 0, 1e6, NULL, KNOB_LIST | KNOB_PAIRCAP, NULL,
     "debug: the automatic neighbour capacity starts from this many neighbours per atom (stored entries: pairs "
     "per atom for a Newton 3 list) instead of the density's estimate, so that it must grow during the run (the "
     "overflow tests)"},
    {"max-layers", T_LONG, F(max_layers), 0, 1e6, NULL, KNOB_LAYERCAP, "max_layers", "layer capacity (0 = automatic, grows on demand)"},
    {"check", T_FLAG, F(check), 0, 0, NULL, 0, NULL, "after the run rebuild, recompute and compare per atom with the O(N^2) reference and brute-force pairs"},
    {"verify-lists", T_FLAG, F(verify_lists), 0, 0, NULL, 0, "verify_lists",
     "before every rebuild check that the stale neighbour structure still holds every pair now within r_c "
     "(a missing pair stops the run naming the pair, the step and the displacement)"},
    {"rebuild-frac", T_REAL, F(rebuild_frac), 0.05, 1, NULL, 0, "rebuild_frac",
     "debug: rebuild when the summed largest displacement reaches this fraction of delta (0.5 is the rule "
     "that guarantees every pair within r_c is listed; larger values are unsafe, for testing --verify-lists)"},
    {"stage-reps", T_INT, F(stage_reps), 0, 1e6, NULL, 0, "stage_reps",
     "kernel-level timing: after production replay each stage this many times on its own (0 = off)"},
    {"drift-limit", T_REAL, F(drift_limit), 0, 1e9, NULL, 0, NULL,
     "a run whose energy moves by more than this, relative to |E| (or 3T/2 where E is near 0), is unstable: status unstable, exit 4"},
    NBR_OUTPUT_OPTIONS(Params),
    {"blocks-csv", T_STR, F(blocks_csv), 0, sizeof(((Params *)0)->blocks_csv) - 1, NULL, 0, NULL,
     "append one row per averaging block (energies, temperature, timing) to this CSV file"},
};
#undef F
enum { NOPTIONS = sizeof options / sizeof options[0] };

static void set_defaults(Params *p)
{
    memset(p, 0, sizeof *p);
    p->ne = 16;
    p->dt = 0.005;
    p->config = CONFIG_LATTICE;
    p->seed = 12345;
    p->steps = 6000;
    p->equil = 500;
    p->rescale_every = 20;
    p->avg_block = 1000;
    p->threads = 128;
    p->read = READ_TEXTURE;
    p->reorder = 100;
    p->reorder_at = WHERE_HOST;
    p->wlayout = WLAYOUT_ROW;
    p->layers = WHERE_HOST;
    p->reduce = WHERE_HOST;
    p->tp = 0;
    p->autotune_budget = 120;
    snprintf(p->autotune_cache, sizeof p->autotune_cache, "%s", "rumd-autotune.cache");
    p->leapfrog = LEAPFROG_FUSED;   /* split with host decisions and without the knob (params_parse) */
    p->rebuild_frac = 0.5;
    p->sample_every = 10;
    p->drift_limit = 0.05;
    p->stage_reps = 20;
}

static void apply_preset(Params *p)
{
    p->potential = POT_LJ;
    p->lattice = LATTICE_SC;
    if (p->system == SYS_LAMMPS_LJ) {   /* LAMMPS bench/in.lj: NVE from the fcc start, which melts */
        p->rho = 0.8442; p->temp = 1.44; p->rc = 2.5; p->delta = 0.3; p->shift = 0.0; p->dt = 0.005;
        p->lattice = LATTICE_FCC;
        p->equil = 0;
    } else if (p->system == SYS_SP) {
        p->rho = 0.8; p->temp = 1.0; p->rc = pow(2.0, 1.0 / 6.0); p->delta = 0.6; p->shift = 1.0;
    } else if (p->system == SYS_LJ) {
        p->rho = 0.38; p->temp = 1.2; p->rc = 3.0; p->delta = 0.8; p->shift = 0.0;
    } else {   /* RUMD 2017, Table 4: ~330 neighbours within r_c */
        p->rho = 0.3677; p->temp = 2.0; p->rc = 6.0; p->delta = 0.5; p->shift = 0.0; p->dt = 0.004;
        p->potential = POT_LJ_COULSF;
    }
}

/* The table as the generic parser (options.c) sees it, for one program; its own options (if
 * any) listed before --device, where the knobs of one program stood before they moved into their
 * programs (gpu-onchip's --tier), so --help and the row's knobs pairs keep their order. */
static OptTable table_of(const OwnOptions *own, unsigned knobs, const char *program, const char *summary)
{
    OptTable t = {options, NOPTIONS, knobs, program, summary,
                  "Defaults are the paper's: --system sp, 6000 steps, 500 equilibration steps "
                  "rescaled every 20, averages over 1000-step blocks.", {NULL, 0}, own, 0};
    /* the program's own rows stand before --device (where such knobs stood) or their `before` */
    const char *before = own && own->before ? own->before : "device";
    while (t.own_at < NOPTIONS && strcmp(options[t.own_at].flag, before) != 0) t.own_at++;
    return t;
}

static void die(const char *program, const char *msg, const char *flag) { opt_die(program, msg, flag); }

void params_parse(Params *p, const OwnOptions *own, void *own_p, int argc, char **argv, unsigned knobs, unsigned lists,
                  int threads, const char *program, const char *summary)
{
    OptTable t = table_of(own, knobs, program, summary);
    if (lists) t.narrow = (OptNarrow){"list", lists};
    set_defaults(p);
    if (own) memcpy(own_p, own->defaults, own->size);
    if (threads) p->threads = threads;
    /* The preset comes first wherever --system stands, so later flags override it. */
    for (int k = 1; k + 1 < argc; k++)
        if (strcmp(argv[k], "--system") == 0) opt_set(&t, p, own_p, opt_find(&t, "system"), argv[k + 1]);
    apply_preset(p);
    opt_parse(&t, p, own_p, argc, argv);
    if (own && own->check) own->check(p, own_p, program);   /* the program's own relations */

    /* Relations between options that single-option limits cannot express. */
    if (p->equil > p->steps) die(program, " must not exceed --steps", "equil");
    if (p->threads % 32 != 0) die(program, " must be a multiple of 32 (the warp size)", "threads");
    if (p->rc * p->rc >= 1e30) die(program, " is too large", "rc");
    if (p->potential == POT_LJ_COULSF && p->ne % 2)
        die(program, " must be even with --potential lj-coulsf (charges +-1 alternate on the lattice: an odd edge "
                     "leaves a net charge)", "ne");
    if (p->potential == POT_LJ_COULSF && p->lattice != LATTICE_SC)
        die(program, " must be sc with --potential lj-coulsf (the charges alternate on a simple cubic lattice)",
            "lattice");
    if (params_natoms(p) > 2147483647L)
        die(program, ": N = 4 ne^3 is beyond 2^31 - 1 atoms (atom indices are int): lower --ne", "ne");
    /* --leapfrog fused is a form of the device loop: asked for with host decisions it is refused;
     * as the default (set_defaults) it falls back to split there, and in programs without the
     * knob, so that the default can change without touching any other run */
    int leapfrog_given = 0;
    for (int k = 1; k < argc; k++)
        if (strcmp(argv[k], "--leapfrog") == 0) leapfrog_given = 1;
    if (!(knobs & KNOB_LEAPFROG)) p->leapfrog = LEAPFROG_SPLIT;
    if (p->leapfrog == LEAPFROG_FUSED && p->decide != DECIDE_DEVICE) {
        if (leapfrog_given)
            die(program, " fused needs --decide device (with host decisions the host reads every step's properties "
                         "between the kick and the next drift)", "leapfrog");
        p->leapfrog = LEAPFROG_SPLIT;
    }
    if (p->launch == LAUNCH_CHUNK && p->decide != DECIDE_DEVICE)
        die(program, " chunk needs --decide device (with host decisions the host reads every step)", "launch");
    if (p->launch == LAUNCH_CHUNK && p->graph != GRAPH_OFF)
        die(program, " chunk is one launch per chunk already: --graph applies to --launch stage", "launch");
    if (p->tp > 32 && p->tp % 32)
        die(program, " above 32 must be a multiple of 32 (a particle's threads then fill whole warps)", "tp");
}

void params_check_prune(const Params *p, double buffer, const char *program)
{
    if (buffer > 0 && buffer >= p->delta)
        die(program, " must be below --delta (the inner rows are cut from the rows of r_c + delta)", "prune");
}

double params_rn(const Params *p) { return p->rc + p->delta; }
long params_natoms(const Params *p) { return (p->lattice == LATTICE_FCC ? 4L : 1L) * p->ne * p->ne * p->ne; }
/* L^3 = N / rho; for sc this is ne / rho^(1/3) */
double params_box(const Params *p)
{
    return p->lattice == LATTICE_FCC ? p->ne * cbrt(4.0 / p->rho) : p->ne / cbrt(p->rho);
}

void params_columns(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs, int knobbed,
                    void (*fn)(void *ctx, const char *col, const char *value), void *ctx)
{
    OptTable t = table_of(own, knobs, "", "");
    opt_columns_split(&t, p, own_p, knobbed, fn, ctx);
}

void params_print_plain(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs)
{
    OptTable t = table_of(own, knobs, "", "");
    opt_print_plain(&t, p, own_p, "print-config");
}

void params_print(const Params *p, const OwnOptions *own, const void *own_p, unsigned knobs)
{
    OptTable t = table_of(own, knobs, "", "");
    opt_print(&t, p, own_p);
    printf("# %-14s = %s\n# %-14s = %ld\n# %-14s = %.10g\n# %-14s = %.10g\n", "precision",
           NBR_PRECISION, "N", params_natoms(p), "L", params_box(p), "r_n", params_rn(p));
}

int params_set(Params *p, const OwnOptions *own, void *own_p, unsigned knobs, const char *program, const char *flag,
               const char *value)
{
    OptTable t = table_of(own, knobs, program, "");
    const Option *o = opt_find(&t, flag);
    if (!o || !opt_applies(&t, o) || o->type == T_FLAG) return -1;
    opt_set(&t, p, own_p, o, value);
    return 0;
}

int params_get(const Params *p, const OwnOptions *own, const void *own_p, const char *flag, char *out, int len)
{
    OptTable t = table_of(own, ~0u, "", "");
    const Option *o = opt_find(&t, flag);
    if (!o) return -1;
    opt_text(&t, p, own_p, o, out, len);
    return 0;
}
