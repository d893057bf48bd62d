/* report.c - the console summary and the CSV row.
 *
 * The CSV schema is defined here and only here: fill_row() lists every column in order,
 * so the header and the values cannot disagree. Appending to a file whose header differs
 * is refused (the schema changed: start a new file) rather than mixing meanings. */
#include "core.h"
#include "real.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#ifndef NBR_GIT_REV
#define NBR_GIT_REV "unknown"
#endif
#ifndef NBR_COMPILER
#define NBR_COMPILER "unknown"
#endif

enum { MAX_COLS = 80, COL_LEN = 160 };
typedef struct {
    int n;
    const char *name[MAX_COLS];
    char value[MAX_COLS][COL_LEN];
} Row;

static void col(Row *row, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(row->value[row->n], COL_LEN, fmt, ap);
    va_end(ap);
    /* CSV safety: values never contain the separator or quotes */
    for (char *c = row->value[row->n]; *c; c++)
        if (*c == ',' || *c == '"' || *c == '\n') *c = ';';
    row->name[row->n++] = name;
}

static void cpu_model(char *out, size_t len)
{
    snprintf(out, len, "unknown-cpu");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f) return;
    char line[256];
    while (fgets(line, sizeof line, f))
        if (strncmp(line, "model name", 10) == 0) {
            char *c = strchr(line, ':');
            if (c) {
                c += 2;
                c[strcspn(c, "\n")] = '\0';
                snprintf(out, len, "%s", c);
            }
            break;
        }
    fclose(f);
}

static double total_time(const Sim *s)
{
    double t = 0;
    for (int k = 0; k < NSTAGES; k++) t += s->t_stage[k];
    return t;
}

static void fill_row(Row *row, const Sim *s, const RunResult *res, const char *status)
{
    const Params *p = &s->p;
    const Variant *v = s->variant;
    unsigned kn = v->knobs;
    char text[COL_LEN], host[128] = "unknown", device[COL_LEN];
    time_t now = time(NULL);
    int prod = p->steps - p->equil;
    double stage_sum = total_time(s);

    gethostname(host, sizeof host - 1);
    if (v->device_name) snprintf(device, sizeof device, "%s", v->device_name((Sim *)s));
    else cpu_model(device, sizeof device);
    strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));

    row->n = 0;
    col(row, "timestamp", "%s", text);
    col(row, "git_rev", "%s", NBR_GIT_REV);
    col(row, "host", "%s", host);
    col(row, "device", "%s", device);
    col(row, "compiler", "%s%s%s", NBR_COMPILER, v->compiler ? " + " : "", v->compiler ? v->compiler : "");
    col(row, "variant", "%s", v->name);
    col(row, "tag", "%s", p->tag);
    col(row, "system", "%s", system_names[p->system]);
    col(row, "config", "%s", config_names[p->config]);
    col(row, "ne", "%d", p->ne);
    col(row, "n", "%d", s->n);
    col(row, "rho", "%.6g", p->rho);
    col(row, "temp", "%.6g", p->temp);
    col(row, "rc", "%.6g", p->rc);
    col(row, "delta", "%.6g", p->delta);
    col(row, "dt", "%.6g", p->dt);
    col(row, "steps", "%d", p->steps);
    col(row, "equil", "%d", p->equil);
    col(row, "precision", "%s", NBR_PRECISION);
    static const char *const knob_flags[] = {"threads", "read", "reorder", "reorder-at", "wlayout", "layers",
                                             "reduce", "tp", "max-nbr", "max-layers", "max-pairs"};
    static const char *const knob_cols[] = {"threads", "read", "reorder", "reorder_at", "wlayout", "layer_assign",
                                            "reduce", "tp", "max_nbr", "max_layers", "max_pairs"};
    for (size_t k = 0; k < sizeof knob_cols / sizeof knob_cols[0]; k++) {
        params_knob_text(p, kn, knob_flags[k], text, sizeof text);
        col(row, knob_cols[k], "%s", text);
    }
    col(row, "us_per_atom_step", "%.6g", res->step_median / s->n * 1e6);
    col(row, "us_per_atom_step_mean", "%.6g", prod > 0 ? res->wall / prod / s->n * 1e6 : 0.0);
    col(row, "timing_blocks", "%d", res->nblocks);
    col(row, "total_s", "%.6g", res->wall);
    for (int k = 0; k < NSTAGES; k++) {
        static const char *const frac_cols[NSTAGES] = {"frac_list", "frac_force", "frac_integrate",
                                                       "frac_transfer", "frac_reorder", "frac_other"};
        col(row, frac_cols[k], "%.4f", stage_sum > 0 ? s->t_stage[k] / stage_sum : 0.0);
    }
    col(row, "nbr_per_atom", "%.4f", s->stats.builds ? s->stats.nbr_sum / s->stats.builds / s->n
                                                     : s->stats.nbr_entries / s->n);
    col(row, "cells_per_axis", "%d", s->stats.cells_per_axis);
    col(row, "layers", "%d", s->stats.layers_max);
    col(row, "rebuilds", "%ld", s->stats.builds);
    col(row, "steps_per_rebuild", "%.4f", s->stats.builds ? (double)prod / s->stats.builds : 0.0);
    col(row, "bytes_per_atom", "%.1f", s->stats.bytes / s->n);
    col(row, "capacity_grows", "%ld", s->stats.grows);
    col(row, "e_start", "%.10g", res->e_start);
    col(row, "e_end", "%.10g", res->e_end);
    col(row, "drift", "%.4g", res->drift);
    col(row, "status", "%s", status);
}

void report_csv(const Sim *s, const RunResult *res, const char *status)
{
    if (!s->p.csv[0]) return;
    static Row row;
    fill_row(&row, s, res, status);
    char header[MAX_COLS * 32] = "";
    for (int k = 0; k < row.n; k++) {
        strcat(header, k ? "," : "");
        strcat(header, row.name[k]);
    }
    FILE *f = fopen(s->p.csv, "a+");
    if (!f) nbr_fail(2, "%s: cannot open --csv %s for appending", s->variant->name, s->p.csv);
    rewind(f);
    char first[MAX_COLS * 32] = "";
    if (!fgets(first, sizeof first, f)) {
        fprintf(f, "%s\n", header);
    } else {
        first[strcspn(first, "\n")] = '\0';
        if (strcmp(first, header) != 0)
            nbr_fail(2, "%s: %s has another header (CSV schema changed): write to a new file",
                     s->variant->name, s->p.csv);
    }
    for (int k = 0; k < row.n; k++) fprintf(f, "%s%s", k ? "," : "", row.value[k]);
    fputc('\n', f);
    fclose(f);
}

void report_summary(const Sim *s, const RunResult *res)
{
    const Stats *st = &s->stats;
    int prod = s->p.steps - s->p.equil;
    double stage_sum = total_time(s);
    printf("%s %s %s ne=%d N=%d: ", s->variant->name, NBR_PRECISION, system_names[s->p.system],
           s->p.ne, s->n);
    if (prod > 0)
        printf("%.4g us/atom-step (median of %d blocks; mean %.4g), %d timed steps in %.3f s\n",
               res->step_median / s->n * 1e6, res->nblocks, res->wall / prod / s->n * 1e6, prod, res->wall);
    else
        printf("no timed steps\n");
    printf("  time fractions:");
    for (int k = 0; k < NSTAGES; k++)
        if (s->t_stage[k] > 0) printf(" %s %.3f", stage_names[k], s->t_stage[k] / stage_sum);
    printf("\n  N_p/N_a = %.2f  N_l = %d  N_u = %.2f  G = %d  bytes/atom = %.0f  grows = %ld\n",
           st->builds ? st->nbr_sum / st->builds / s->n : st->nbr_entries / s->n, st->layers_max,
           st->builds ? (double)prod / st->builds : 0.0, st->cells_per_axis, st->bytes / s->n, st->grows);
    if (prod > 0)
        printf("  energy E/N: start %.8f end %.8f drift %.3g\n", res->e_start, res->e_end, res->drift);
}
