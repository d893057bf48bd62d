/* options.h - the option-table parser that every program's flags go through.
 *
 * A table of Option rows describes each flag: type, limits, help, the knob bit that says which
 * programs have it, and the CSV column that records it. The MD programs' table is in params.c
 * (struct Params); the Coulomb programs have their own (kernels/cpu/coulomb_params.c, struct
 * CoulombParams). Parsing, --help, the printed configuration and the CSV columns all read the
 * table, so the documentation cannot drift from the code. Bad input: one line, exit 2.
 * A program may add options of its own (OwnOptions: a second table over a struct it owns),
 * which the same functions list with the table's, as if they stood in it. */
#ifndef NBR_OPTIONS_H
#define NBR_OPTIONS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum { T_INT, T_LONG, T_U64, T_REAL, T_ENUM, T_STR, T_FLAG } OptType;

typedef struct Option {
    const char *flag;           /* without the leading "--" */
    OptType type;
    size_t offset;              /* of the field in the program's parameter struct */
    double min, max;            /* inclusive limits for numbers; for T_STR max = longest text */
    const char *const *names;   /* for T_ENUM: NULL-terminated, enum value = index */
    unsigned knob;              /* 0 = every program of the table */
    const char *column;         /* CSV column recording the value; NULL = not recorded */
    const char *help;
} Option;

/* The output options every program has, written once, for the table of a parameter struct T
 * with the fields quiet, print_config, allow_dirty, csv[] and tag[]. */
#define NBR_OUTPUT_OPTIONS(T)                                                                              \
    {"quiet", T_FLAG, offsetof(T, quiet), 0, 0, NULL, 0, NULL, "print only the summary"},                  \
    {"print-config", T_FLAG, offsetof(T, print_config), 0, 0, NULL, 0, NULL,                               \
     "print the resolved configuration as name=value lines (for scripts) and exit"},                       \
    {"allow-dirty", T_FLAG, offsetof(T, allow_dirty), 0, 0, NULL, 0, NULL,                                 \
     "allow appending rows under a results/ directory from a build of uncommitted or unknown code"},       \
    {"csv", T_STR, offsetof(T, csv), 0, sizeof(((T *)0)->csv) - 1, NULL, 0, NULL,                          \
     "append one result row to this CSV file (the program's schema; another header is refused)"},          \
    {"tag", T_STR, offsetof(T, tag), 0, sizeof(((T *)0)->tag) - 1, NULL, 0, NULL, "label written to the CSV row"}

/* An enumerated option whose values a program narrows (bit k: names[k] taken), so that parsing,
 * --help and --print-options all say the program's own domain. */
typedef struct {
    const char *flag;
    unsigned mask;
} OptNarrow;

/* Options only one program has, declared in that program's file: rows whose offsets are into a
 * struct of its own (not the table's), that struct's size and its values before any flag. Its
 * rows have knob 0 (they are the program's by being declared there); in the CSV row they are
 * knobs pairs, as the knob options are. `check` (NULL: none), after every flag is parsed: the
 * relations between them and the table's options (`base`: that struct) that single-option
 * limits cannot express, one line and exit 2 (opt_die) where they fail. `before`: the table's
 * flag they are listed before (NULL: the table's own choice; params.c: "device"), so that
 * options moved out of the table keep their place. */
typedef struct OwnOptions {
    const Option *opt;
    int n;
    size_t size;
    const void *defaults;
    void (*check)(const void *base, const void *own, const char *program);
    const char *before;
} OwnOptions;

typedef struct {
    const Option *opt;
    int n;
    unsigned knobs;             /* the program's knobs: options of other knobs are refused */
    const char *program, *summary;
    const char *help_note;      /* last paragraph of --help (may be NULL) */
    OptNarrow narrow;           /* flag NULL: no option narrowed */
    const OwnOptions *own;      /* the program's own options (NULL: none), listed (--help, the
                                   printed configuration, the CSV) before opt[own_at] */
    int own_at;
} OptTable;

/* "program: --flag<msg>" on stderr, exit 2. */
void opt_die(const char *program, const char *msg, const char *flag)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;
/* In the functions below `base` is the struct of the table's options and `own` that of the
 * program's own (OptTable.own; NULL where there are none). */
/* The option of this flag, the table's or the program's own; NULL: neither has it. */
const Option *opt_find(const OptTable *t, const char *flag);
int opt_applies(const OptTable *t, const Option *o);
/* Sets one option from its text (limits checked; exit 2 on a bad value). */
void opt_set(const OptTable *t, void *base, void *own, const Option *o, const char *text);
/* Every argument in order: --help prints the table and exits 0; an unknown flag, a flag of
 * another program's knob, a missing or bad value: one line, exit 2. */
void opt_parse(const OptTable *t, void *base, void *own, int argc, char **argv);
/* o's value as text; `base`: the struct o's offset is into (opt_text picks it for a table). */
void opt_value_text(const Option *o, const void *base, char *out, int len);
void opt_text(const OptTable *t, const void *base, const void *own, const Option *o, char *out, int len);
/* The CSV columns in table order: fn(ctx, column, value); "-" where the knob does not apply. */
void opt_columns(const OptTable *t, const void *base, const void *own,
                 void (*fn)(void *ctx, const char *col, const char *value), void *ctx);
/* The same split in two: knobbed = 0, the columns of the options every program of the table has
 * (knob 0); knobbed = 1, those of the options with a knob bit that this program has (the others
 * are skipped, not "-"; the program's own options count as knob options). The MD programs' row
 * writes the first as columns and the second as name=value pairs in one column, so a knob of one
 * program changes no other program's header. */
void opt_columns_split(const OptTable *t, const void *base, const void *own, int knobbed,
                       void (*fn)(void *ctx, const char *col, const char *value), void *ctx);
/* "# flag = value" lines (the resolved configuration). */
void opt_print(const OptTable *t, const void *base, const void *own);
/* "flag=value" lines for scripts, except the option `skip` (NULL: none). */
void opt_print_plain(const OptTable *t, const void *base, const void *own, const char *skip);

#ifdef __cplusplus
}
#endif
#endif
