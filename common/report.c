/* report.c - the console summary and the CSV row.
 *
 * The CSV schema is defined here and only here: fill_row() lists every column in order,
 * so the header and the values cannot disagree. The header is the same for every program (the
 * options every program has are columns); each program's own knobs go into one last column,
 * knobs, as column=value pairs, so a knob added to one program changes no header (docs/csv.md).
 * Appending to a file whose header differs is refused (the schema changed: start a new file)
 * rather than mixing meanings. */
#define _XOPEN_SOURCE 700   /* realpath */
#include "core.h"
#include "csvrow.h"
#include "real.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <errno.h>
#include <limits.h>
#include <unistd.h>

/* Rows, headers and the refusal rules are csvrow.c's (shared with the Coulomb programs). */
enum { MAX_COLS = CSV_MAX_COLS, COL_LEN = CSV_COL_LEN };
typedef CsvRow Row;

static void col(Row *row, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    csv_vcol(row, name, fmt, ap);
    va_end(ap);
}

/* A measured number, or empty where it was never measured (not a 0 that reads as one). */
static void measured_col(Row *row, const char *name, const char *fmt, int measured, double v)
{
    if (measured) col(row, name, fmt, v);
    else col(row, name, "%s", "");
}

static void option_col(void *row, const char *name, const char *value) { col(row, name, "%s", value); }

/* The knobs column: "column=value" pairs separated by single spaces, in table order, for the
 * options with a knob bit that this program has (docs/csv.md). A value with white space in it
 * would split into a false pair, so it is refused (one line, exit 2: report_open builds the row
 * before any computing); an '=' in a value is safe (the reader splits at the first one). */
typedef struct {
    const char *program;
    char text[COL_LEN];
    size_t len;
} Knobs;

static void knob_pair(void *ctx, const char *name, const char *value)
{
    Knobs *k = ctx;
    for (const char *c = value; *c; c++)
        if (*c == ' ' || *c == '\t' || *c == '\n' || *c == '\r')
            nbr_fail(EXIT_INPUT, "%s: the value '%s' of CSV column %s contains white space, which separates the "
                                 "pairs of the knobs column: give it without spaces",
                     k->program, value, name);
    const int w = snprintf(k->text + k->len, sizeof k->text - k->len, "%s%s=%s", k->len ? " " : "", name, value);
    if (w < 0 || (size_t)w >= sizeof k->text - k->len)
        nbr_fail(EXIT_INTERNAL, "internal: %s's knobs column is longer than %d characters", k->program, COL_LEN - 1);
    k->len += (size_t)w;
}

/* --check's columns (Sim.checked, check.c): the verdict, pass or fail, and the largest errors the
 * check judged, as its lines print them. '-' where there is no verdict (no --check, or the run
 * stopped inside it) or the number does not apply (no per-atom energies, no last forces compared,
 * no stored pairs); empty where the check failed without comparing (an unstable run's state). */
static void check_cols(Row *row, const Sim *s)
{
    const CheckResult *c = &s->checked;
    const char *const names[] = {"check_f_err", "check_u_err", "check_e_rel", "check_w_err", "check_last_f_err"};
    const double errs[] = {c->f_err, c->u_err, c->e_rel, c->w_err, c->last_f_err};
    col(row, "check", "%s", c->verdict > 0 ? "pass" : c->verdict < 0 ? "fail" : "-");
    for (size_t k = 0; k < sizeof errs / sizeof errs[0]; k++)
        if (!c->verdict || (c->compared && errs[k] < 0)) col(row, names[k], "-");
        else measured_col(row, names[k], "%.3g", c->compared, errs[k]);   /* NaN: "nan", a failure */
    if (!c->verdict || (c->compared && c->pairs_bad < 0)) col(row, "check_pairs_bad", "-");
    else if (c->compared) col(row, "check_pairs_bad", "%ld", c->pairs_bad);
    else col(row, "check_pairs_bad", "%s", "");
}

/* Stage fractions from kernel time x calls per step (the paper's t_n/t, t_f/t). */
static double stage_share(const StageTimes *st, int k)
{
    double sum = 0;
    for (int j = 0; j < NSTAGES; j++) sum += st->us[j] * st->per_step[j];
    return sum > 0 ? st->us[k] * st->per_step[k] / sum : 0;
}

static void fill_row(Row *row, const Sim *s, const RunResult *res, const char *status)
{
    /* the options as given, with what ran over the choices a program resolved (Sim.ran) */
    Params shown;
    ran_show(s, &shown);
    const Params *p = &shown;
    const Variant *v = s->variant;
    int prod = p->steps - p->equil;

    row->n = 0;
    csv_provenance(row, v->device_name && s->ctx ? v->device_name((Sim *)s) : NULL, v->compiler);
    col(row, "variant", "%s", v->name);
    col(row, "tag", "%s", p->tag);
    col(row, "precision", "%s", NBR_PRECISION);
    col(row, "n", "%d", s->n);
    params_columns(p, v->opts, s->ran_opts, v->knobs, 0, option_col, row);   /* the options every program has */
    /* empty where nothing was timed (no production step, or stopped before its first block) */
    const int timed = res->nblocks > 0;
    measured_col(row, "us_per_atom_step", "%.6g", timed, res->step_median / s->n * 1e6);
    measured_col(row, "us_per_atom_step_mean", "%.6g", timed, timed ? res->wall / prod / s->n * 1e6 : 0);
    measured_col(row, "us_per_step", "%.6g", timed, res->step_median * 1e6);
    col(row, "timing_blocks", "%d", res->nblocks);
    col(row, "total_s", "%.6g", res->wall);
    /* kernel level (stagetime.c): microseconds per call, GB/s, and the fractions they imply */
    static const char *const us_cols[NSTAGES] = {"t_list_us", "t_force_us", "t_integrate_us", "t_reorder_us",
                                                 "t_other_us"};
    static const char *const gbs_cols[NSTAGES] = {"gbs_list", "gbs_force", "gbs_integrate", "gbs_reorder",
                                                  "gbs_other"};
    static const char *const frac_cols[NSTAGES] = {"frac_list", "frac_force", "frac_integrate", "frac_reorder",
                                                   "frac_other"};
    const StageTimes *st = &res->st;
    for (int k = 0; k < NSTAGES; k++)
        if (st->reps) col(row, us_cols[k], "%.4g", st->us[k]); else col(row, us_cols[k], "-");
    for (int k = 0; k < NSTAGES; k++)
        if (st->reps && st->gbs[k] >= 0) col(row, gbs_cols[k], "%.4g", st->gbs[k]); else col(row, gbs_cols[k], "-");
    for (int k = 0; k < NSTAGES; k++)
        if (st->reps) col(row, frac_cols[k], "%.4f", stage_share(st, k)); else col(row, frac_cols[k], "-");
    col(row, "nbr_per_atom", "%.4f", s->stats.builds ? s->stats.nbr_sum / s->stats.builds / s->n
                                                     : s->stats.nbr_entries / s->n);
    col(row, "cells_per_axis", "%d", s->stats.cells_per_axis);
    col(row, "layers", "%d", s->stats.layers_max);
    col(row, "list_threads", "%d", s->stats.list_threads);
    col(row, "rebuilds", "%ld", s->stats.builds);
    col(row, "steps_per_rebuild", "%.4f", s->stats.builds ? (double)prod / s->stats.builds : 0.0);
    col(row, "reorders", "%ld", s->stats.reorders);
    col(row, "bytes_per_atom", "%.1f", s->stats.bytes / s->n);
    col(row, "capacity_grows", "%ld", s->stats.grows);
    /* energies empty where no production sample measured them (an unstable or interrupted
     * run stopped first, --steps = --equil); drift and rms need two samples */
    const int ne = res->e_samples;
    measured_col(row, "e_start", "%.10g", ne > 0, res->e_start);
    measured_col(row, "e_end", "%.10g", ne > 0, res->e_end);
    measured_col(row, "drift", "%.4g", ne > 1, res->drift);
    measured_col(row, "e_rms", "%.4g", ne > 1, res->e_rms);
    measured_col(row, "pressure", "%.8g", ne > 0, res->pressure);
    measured_col(row, "temp_measured", "%.8g", ne > 0, res->temp);
    col(row, "lists_verified", "%ld", res->verified);
    col(row, "steps_done", "%d", s->step);   /* all of --steps, unless interrupted or unstable */
    col(row, "status", "%s", status);
    check_cols(row, s);
    /* last: this program's own knobs, one column whatever they are (docs/csv.md) */
    static Knobs knobs;
    knobs.program = v->name;
    knobs.len = 0;
    knobs.text[0] = '\0';
    params_columns(p, v->opts, s->ran_opts, v->knobs, 1, knob_pair, &knobs);   /* what ran of its own too */
    if (v->row_pairs && s->ctx) v->row_pairs((Sim *)s, knob_pair, &knobs);
    col(row, "knobs", "%s", knobs.text);
}

static void fill_block(Row *row, const Sim *s, const BlockRow *b)
{
    row->n = 0;
    col(row, "git_rev", "%s", nbr_git_rev());
    col(row, "variant", "%s", s->variant->name);
    col(row, "tag", "%s", s->p.tag);
    col(row, "system", "%s", system_names[s->p.system]);
    col(row, "ne", "%d", s->p.ne);
    col(row, "n", "%d", s->n);
    col(row, "precision", "%s", NBR_PRECISION);
    col(row, "block", "%d", b->block);
    col(row, "step", "%d", b->step);
    col(row, "steps_in_block", "%d", b->steps);
    col(row, "timed_steps", "%d", b->timed_steps);
    col(row, "e_mean", "%.10g", b->e_mean);
    col(row, "temp_mean", "%.8g", b->temp_mean);
    col(row, "e_end", "%.10g", b->e_end);
    col(row, "u_end", "%.10g", b->u_end);
    col(row, "builds_total", "%ld", b->builds_total);
    col(row, "us_per_atom_step", "%.6g", b->us_per_atom_step);
}

void report_open(const Sim *s)
{
    static Row row;
    static char header[MAX_COLS * 32];
    static const RunResult none;
    static const BlockRow no_block;
    /* two kinds of rows cannot share a file: refused now, not after the run (its row lost) */
    if (s->p.csv[0] && s->p.blocks_csv[0] && csv_same_file(s->p.csv, s->p.blocks_csv))
        nbr_fail(EXIT_INPUT, "%s: --csv %s and --blocks-csv %s name one file: run rows and block rows have different "
                             "headers, give each a file of its own",
                 s->variant->name, s->p.csv, s->p.blocks_csv);
    if (s->p.csv[0]) {
        fill_row(&row, s, &none, "ok");
        csv_header(&row, header, sizeof header);
        csv_open_check(s->variant->name, s->p.allow_dirty, s->p.csv, "csv", header);
    }
    if (s->p.blocks_csv[0]) {
        fill_block(&row, s, &no_block);
        csv_header(&row, header, sizeof header);
        csv_open_check(s->variant->name, s->p.allow_dirty, s->p.blocks_csv, "blocks-csv", header);
    }
}

void report_block(const Sim *s, const BlockRow *b)
{
    if (!s->p.blocks_csv[0]) return;
    static Row row;
    fill_block(&row, s, b);
    csv_append(s->variant->name, s->p.allow_dirty, s->p.blocks_csv, "blocks-csv", &row);
}

void report_csv(const Sim *s, const RunResult *res, const char *status)
{
    if (!s->p.csv[0]) return;
    static Row row;
    fill_row(&row, s, res, status);
    csv_append(s->variant->name, s->p.allow_dirty, s->p.csv, "csv", &row);
}

void report_summary(const Sim *s, const RunResult *res)
{
    const Stats *st = &s->stats;
    int prod = s->p.steps - s->p.equil;
    printf("%s %s %s ne=%d N=%d: ", s->variant->name, NBR_PRECISION, system_names[s->p.system],
           s->p.ne, s->n);
    if (prod > 0)
        printf("%.4g us/atom-step (median of %d blocks; mean %.4g; %.4g us/step), %d timed steps in %.3f s\n",
               res->step_median / s->n * 1e6, res->nblocks, res->wall / prod / s->n * 1e6, res->step_median * 1e6,
               prod, res->wall);
    else
        printf("no timed steps\n");
    if (res->st.reps) {
        printf("  stages (us per call, %d replays each; share of a step):", res->st.reps);
        for (int k = 0; k < NSTAGES; k++)
            if (res->st.per_step[k] > 0)
                printf(" %s %.4g (%.3f)", stage_names[k], res->st.us[k], stage_share(&res->st, k));
        printf("\n");
        int any = 0;
        for (int k = 0; k < NSTAGES; k++)
            if (res->st.gbs[k] >= 0) {
                printf("%s %s %.0f GB/s", any ? "," : "  achieved bandwidth:", stage_names[k], res->st.gbs[k]);
                any = 1;
            }
        if (any) printf("\n");
    }
    printf("  rebuilds after step 0: %ld, their steps hashed %016llx\n", st->builds_total - 1, st->rebuild_hash);
    printf("  N_p/N_a = %.2f  N_l = %d  N_u = %.2f  G = %d  bytes/atom = %.0f  grows = %ld\n",
           st->builds ? st->nbr_sum / st->builds / s->n : st->nbr_entries / s->n, st->layers_max,
           st->builds ? (double)prod / st->builds : 0.0, st->cells_per_axis, st->bytes / s->n, st->grows);
    if (prod > 0)
        printf("  energy E/N: start %.8f end %.8f drift %.3g rms %.3g; temperature %.6g; pressure %.6g\n",
               res->e_start, res->e_end, res->drift, res->e_rms, res->temp, res->pressure);
    if (s->p.verify_lists)
        printf("verify-lists: %ld stale structures checked at their last use, no pair within r_c missing: ok\n",
               res->verified);
}
