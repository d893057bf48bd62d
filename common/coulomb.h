/* coulomb.h - the Coulomb energy programs' harness (Sirny 2010): not an MD loop but one energy
 * E = 332.0636 sum_{i<j} q_i q_j / r_ij (kcal/mol, Angstrom, e; no cutoff, no periodic images),
 * evaluated --reps times and timed. Like nbr_main for the MD variants, coulomb_main owns the
 * parameters (its own option table, parsed by options.c), the input (input.c), the reference,
 * the timing, the summary and the CSV row (csvrow.c: same provenance and refusal rules as the
 * MD report); an implementation supplies setup / energy / teardown. */
#ifndef NBR_COULOMB_H
#define NBR_COULOMB_H

#include "input.h"

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define COULOMB_K 332.0636   /* kcal A / (mol e^2) */

typedef enum { CIMPL_REF, CIMPL_OPENCL, CIMPL_CUDA, NCIMPL } CoulombImplKind;
/* ACC_EXACT: double terms with compensated (Kahan, TwoSum) sums: the reference's arithmetic,
 * which a GPU implementation can compute for sizes where the CPU reference takes minutes. */
typedef enum { ACC_FLOAT, ACC_DOUBLE, ACC_KAHAN, ACC_PAIRWISE, ACC_EXACT } AccMode;
typedef enum { REF_CPU, REF_DEVICE } RefWhere;
/* HALF: block / work-group b sums row tile b over j > i (the thesis); FOLDED: the same sums,
 * block b taking row tiles b and rows - 1 - b (equal work per block); FULL: all j != i. */
typedef enum { SWEEP_HALF, SWEEP_FULL, SWEEP_FOLDED } SweepKind;
extern const char *const cimpl_names[], *const acc_names[], *const sweep_names[], *const ref_names[];

/* Knobs: which implementation an option belongs to (a program has the union of its
 * implementations'; an option of another implementation than --impl is refused). */
enum {
    CKNOB_REF    = 1u << 0,   /* OpenMP threads */
    CKNOB_OPENCL = 1u << 1,   /* platform and device */
    CKNOB_CUDA   = 1u << 2,   /* device */
    CKNOB_TILED  = 1u << 3,   /* unroll, block / work-group size, sweep: the GPU algorithm */
};

typedef struct {
    int impl, acc, unroll, ipt, block, sweep, threads;
    int cl_platform, cl_device, device;
    int reps, warmup, ref;
    char input[512];
    int format;
    long water, random;
    uint64_t seed;
    double e_ref;                /* given reference energy; NaN: compute it */
    char write[512];
    int check, quiet, print_config, allow_dirty;
    char csv[512], tag[64];
} CoulombParams;

typedef struct CoulombRun {
    const CoulombParams *p;
    const ChargeSystem *sys;
    void *ctx;                   /* the implementation's state */
} CoulombRun;

typedef struct {
    int kind;                    /* CoulombImplKind */
    unsigned knobs;              /* CKNOB_* this implementation honours */
    const char *compiler;        /* beside the host compiler in the CSV (NULL: none) */
    void (*setup)(CoulombRun *r);                      /* upload, build; fails with one line */
    double (*energy)(CoulombRun *r, double *seconds);  /* one evaluation and its time */
    const char *(*device_name)(CoulombRun *r);
    void (*teardown)(CoulombRun *r);
    /* this machine has the device (cuda: a GPU and its driver), checked before anything is
     * printed; else one line, exit EXIT_NO_DEVICE. NULL: any machine has */
    void (*preflight)(const char *program);
} CoulombImpl;

typedef struct {
    const char *name, *summary;
    const CoulombImpl *impl[NCIMPL];      /* NULL: not in this program */
    const char *missing[NCIMPL];          /* why not (printed when asked for), or NULL */
    int default_impl;
    /* The exact energy: double terms, compensated sums (kernels/cpu/coulomb_ref.c). */
    double (*exact)(const ChargeSystem *s, int threads, double *abs_sum);
    /* The sd of E from rounding the positions to float (coulomb_ref_rounding_spread). */
    double (*spread)(const ChargeSystem *s, int threads);
} CoulombProgram;

/* Relative error tolerance each accumulation mode states (the tests and --check use it); for
 * the modes with float positions (float, kahan, pairwise) at least 4 times spread, the relative
 * sd of E from rounding the positions to float (NaN: not known, the stated tolerance alone). */
double coulomb_tolerance(int acc, double spread);

int coulomb_main(int argc, char **argv, const CoulombProgram *prog);

#ifdef __cplusplus
}
#endif
#endif
