/* options.c - the option-table parser (see options.h). */
#include "options.h"
#include "fail.h"
#include "real.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "program: --flag<msg>"; with raw, `flag` is the user's own word as typed. */
static void die_as(const char *program, const char *msg, const char *flag, int raw)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;
static void die_as(const char *program, const char *msg, const char *flag, int raw)
{
    fprintf(stderr, "%s: %s%s%s\n", program, flag && !raw ? "--" : "", flag ? flag : "", msg);
    nbr_exit(2);   /* an autotuner trial's bad value: that trial fails (fail.h) */
}
void opt_die(const char *program, const char *msg, const char *flag) { die_as(program, msg, flag, 0); }

/* The rows of a table with the program's own in their place (OptTable.own_at): k in
 * [0, opt_rows(t)), so that every listing walks both in one order. */
static int opt_rows(const OptTable *t) { return t->n + (t->own ? t->own->n : 0); }
static const Option *opt_row(const OptTable *t, int k)
{
    const int nown = t->own ? t->own->n : 0;
    if (k < t->own_at || !nown) return &t->opt[k];
    return k < t->own_at + nown ? &t->own->opt[k - t->own_at] : &t->opt[k - nown];
}

/* One of the program's own options (by identity: its rows are another array). */
static int is_own(const OptTable *t, const Option *o)
{
    for (int k = 0; t->own && k < t->own->n; k++)
        if (o == &t->own->opt[k]) return 1;
    return 0;
}

/* The struct o's offset is into. */
static void *base_of(const OptTable *t, const void *base, const void *own, const Option *o)
{
    return (void *)(is_own(t, o) ? own : base);
}

const Option *opt_find(const OptTable *t, const char *flag)
{
    for (int k = 0; k < opt_rows(t); k++)
        if (strcmp(opt_row(t, k)->flag, flag) == 0) return opt_row(t, k);
    return NULL;
}

int opt_applies(const OptTable *t, const Option *o) { return !o->knob || (o->knob & t->knobs) || is_own(t, o); }

static int enum_index(const char *const *names, const char *text)
{
    for (int k = 0; names[k]; k++)
        if (strcmp(names[k], text) == 0) return k;
    return -1;
}

/* The values of enum option o this program takes (OptTable.narrow), as a bit mask. */
static unsigned enum_mask(const OptTable *t, const Option *o)
{
    return t->narrow.flag && strcmp(t->narrow.flag, o->flag) == 0 ? t->narrow.mask : ~0u;
}

static void enum_choices(const char *const *names, unsigned mask, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; names[k]; k++) {
        if (!(mask >> k & 1u)) continue;
        strncat(out, out[0] ? "|" : "", len - strlen(out) - 1);
        strncat(out, names[k], len - strlen(out) - 1);
    }
}

void opt_set(const OptTable *t, void *p, void *own, const Option *o, const char *text)
{
    const char *program = t->program;
    char *base = (char *)base_of(t, p, own, o) + o->offset, *end = NULL, msg[512];
    if (o->type == T_ENUM) {
        const unsigned mask = enum_mask(t, o);
        int k = enum_index(o->names, text);
        if (k < 0 || !(mask >> k & 1u)) {
            char choices[256];
            enum_choices(o->names, mask, choices, sizeof choices);
            snprintf(msg, sizeof msg, " must be one of %s (got '%s')", choices, text);
            opt_die(program, msg, o->flag);
        }
        *(int *)base = k;
        return;
    }
    if (o->type == T_STR) {
        if (strlen(text) > (size_t)o->max) {
            snprintf(msg, sizeof msg, " is longer than %.0f characters", o->max);
            opt_die(program, msg, o->flag);
        }
        strcpy(base, text);
        return;
    }
    if (o->type == T_U64) {   /* one parser checks and stores: decimal digits only (1e3, 0x10 refused) */
        errno = 0;
        const unsigned long long u = strtoull(text, &end, 10);
        if (!isdigit((unsigned char)text[0]) || *end != '\0') {
            char *rest;
            const double d = strtod(text, &rest);
            if (rest == text || *rest != '\0') snprintf(msg, sizeof msg, " needs a number (got '%s')", text);
            else if (d < o->min) snprintf(msg, sizeof msg, " = %s is outside its limits [%g, %g]", text, o->min, o->max);
            else snprintf(msg, sizeof msg, " needs a whole number in decimal digits (got '%s')", text);
            opt_die(program, msg, o->flag);
        }
        if (errno == ERANGE || (double)u < o->min || (double)u > o->max) {
            snprintf(msg, sizeof msg, " = %s is outside its limits [%g, %g]", text, o->min, o->max);
            opt_die(program, msg, o->flag);
        }
        *(uint64_t *)base = u;
        return;
    }
    errno = 0;
    double v = strtod(text, &end);
    if (errno || end == text || *end != '\0' || !isfinite(v)) {
        snprintf(msg, sizeof msg, " needs a number (got '%s')", text);
        opt_die(program, msg, o->flag);
    }
    if (o->type != T_REAL && v != floor(v)) {
        snprintf(msg, sizeof msg, " needs a whole number (got '%s')", text);
        opt_die(program, msg, o->flag);
    }
    if (v < o->min || v > o->max) {
        snprintf(msg, sizeof msg, " = %s is outside its limits [%g, %g]", text, o->min, o->max);
        opt_die(program, msg, o->flag);
    }
    switch (o->type) {
    case T_INT: *(int *)base = (int)v; break;
    case T_LONG: *(long *)base = (long)v; break;
    default: *(double *)base = v; break;
    }
}

static void print_help(const OptTable *t)
{
    printf("%s (%s precision): %s\n\nusage: %s [--flag value]...\n\n", t->program, NBR_PRECISION, t->summary,
           t->program);
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!opt_applies(t, o)) continue;
        char arg[256] = "";
        if (o->type == T_ENUM) enum_choices(o->names, enum_mask(t, o), arg, sizeof arg);
        else if (o->type == T_STR) strcpy(arg, "TEXT");
        else if (o->type != T_FLAG) snprintf(arg, sizeof arg, "%s [%g..%g]",
                                             o->type == T_REAL ? "X" : "N", o->min, o->max);
        printf("  --%-14s %s\n      %s\n", o->flag, arg, o->help);
    }
    printf("  --%-14s\n      %s\n", "print-options",
           "print every option as a tab-separated line (flag, type, domain, value, CSV column) and exit");
    if (t->help_note) printf("\n%s\n", t->help_note);
}

static const char *const type_names[] = {"int", "long", "u64", "real", "enum", "text", "flag"};

/* One line per option the program has, fields separated by tabs: flag, type, domain (min..max,
 * the names a|b|c, the longest text, or - for a flag), the value so far (defaults, the preset
 * and the flags before --print-options) and the CSV column (- if none). For scripts and tests:
 * what a program takes, read from the table instead of from --help's prose. */
static void print_options(const OptTable *t, const void *p, const void *own)
{
    printf("flag\ttype\tdomain\tvalue\tcolumn\n");
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!opt_applies(t, o)) continue;
        char domain[256] = "-", value[600];
        if (o->type == T_ENUM) enum_choices(o->names, enum_mask(t, o), domain, sizeof domain);
        else if (o->type == T_STR) snprintf(domain, sizeof domain, "%.0f", o->max);
        else if (o->type != T_FLAG) snprintf(domain, sizeof domain, "%.15g..%.15g", o->min, o->max);
        opt_text(t, p, own, o, value, sizeof value);
        printf("%s\t%s\t%s\t%s\t%s\n", o->flag, type_names[o->type], domain, value, o->column ? o->column : "-");
    }
}

void opt_parse(const OptTable *t, void *p, void *own, int argc, char **argv)
{
    const char *program = t->program;
    /* a program's own flag that the table has too would hide one of the two */
    for (int k = 0; t->own && k < t->own->n; k++)
        for (int j = 0; j < t->n; j++)
            if (strcmp(t->opt[j].flag, t->own->opt[k].flag) == 0)
                nbr_fail(EXIT_INTERNAL, "%s: internal: its own option --%s is an option of the common table too",
                         program, t->own->opt[k].flag);
    for (int k = 1; k < argc; k++) {
        const char *arg = argv[k];
        if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            print_help(t);
            exit(0);
        }
        if (strcmp(arg, "--print-options") == 0) {
            print_options(t, p, own);
            exit(0);
        }
        if (strncmp(arg, "--", 2) != 0) die_as(program, ": unexpected argument (flags start with --; see --help)", arg, 1);
        const Option *o = opt_find(t, arg + 2);
        if (!o) die_as(program, ": unknown flag (see --help)", arg, 1);
        if (!opt_applies(t, o)) {
            char msg[256];
            snprintf(msg, sizeof msg, " is not a knob of %s (see --help for the ones it has)", program);
            opt_die(program, msg, o->flag);
        }
        if (o->type == T_FLAG) { *(int *)((char *)base_of(t, p, own, o) + o->offset) = 1; continue; }
        if (k + 1 >= argc) opt_die(program, " needs a value", o->flag);
        opt_set(t, p, own, o, argv[++k]);
    }
}

void opt_value_text(const Option *o, const void *p, char *out, int len)
{
    const char *base = (const char *)p + o->offset;
    switch (o->type) {
    case T_INT: case T_FLAG: snprintf(out, len, "%d", *(const int *)base); break;
    case T_LONG: snprintf(out, len, "%ld", *(const long *)base); break;
    case T_U64: snprintf(out, len, "%llu", (unsigned long long)*(const uint64_t *)base); break;
    case T_REAL: snprintf(out, len, "%.10g", *(const double *)base); break;
    case T_ENUM: snprintf(out, len, "%s", o->names[*(const int *)base]); break;
    case T_STR: snprintf(out, len, "%s", base); break;
    }
}

void opt_text(const OptTable *t, const void *p, const void *own, const Option *o, char *out, int len)
{
    opt_value_text(o, base_of(t, p, own, o), out, len);
}

void opt_columns(const OptTable *t, const void *p, const void *own,
                 void (*fn)(void *ctx, const char *col, const char *value), void *ctx)
{
    char text[600];
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!o->column) continue;
        if (!opt_applies(t, o)) snprintf(text, sizeof text, "-");
        else opt_text(t, p, own, o, text, sizeof text);
        fn(ctx, o->column, text);
    }
}

void opt_columns_split(const OptTable *t, const void *p, const void *own, int knobbed,
                       void (*fn)(void *ctx, const char *col, const char *value), void *ctx)
{
    char text[600];
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!o->column || !(o->knob || is_own(t, o)) != !knobbed || !opt_applies(t, o)) continue;
        opt_text(t, p, own, o, text, sizeof text);
        fn(ctx, o->column, text);
    }
}

void opt_print_plain(const OptTable *t, const void *p, const void *own, const char *skip)
{
    char text[600];
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!opt_applies(t, o) || (skip && strcmp(o->flag, skip) == 0)) continue;
        opt_text(t, p, own, o, text, sizeof text);
        printf("%s=%s\n", o->flag, text);
    }
}

void opt_print(const OptTable *t, const void *p, const void *own)
{
    char text[600];
    for (int k = 0; k < opt_rows(t); k++) {
        const Option *o = opt_row(t, k);
        if (!opt_applies(t, o)) continue;
        opt_text(t, p, own, o, text, sizeof text);
        printf("# %-14s = %s\n", o->flag, text);
    }
}
