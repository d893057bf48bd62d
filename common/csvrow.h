/* csvrow.h - one CSV row and the rules for appending it, shared by every program's report
 * (report.c for the MD loop, the Coulomb programs' own schema): a header is the row's column
 * names in order; a file with another header is refused, and so is a file under a results/
 * directory from a build of an uncommitted or unknown revision (unless allow_dirty), before
 * any computing (csv_open_check) and again when the row is written. */
#ifndef NBR_CSVROW_H
#define NBR_CSVROW_H

#include <stdarg.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

enum { CSV_MAX_COLS = 100, CSV_COL_LEN = 1024 }   /* 1024: the MD row's knobs column holds ~30 pairs */;
typedef struct {
    int n;
    const char *name[CSV_MAX_COLS];
    char value[CSV_MAX_COLS][CSV_COL_LEN];
} CsvRow;

/* Appends a column; separators, quotes and newlines in the value become ';'. */
void csv_vcol(CsvRow *row, const char *name, const char *fmt, va_list ap);
void csv_col(CsvRow *row, const char *name, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 3, 4)))
#endif
    ;
void csv_header(const CsvRow *row, char *out, size_t len);
/* The CPU's model name (/proc/cpuinfo), for the device column of CPU runs. */
void csv_cpu_model(char *out, size_t len);
/* The provenance columns every schema starts with: timestamp, git_rev, host, device (the
 * given name, or the CPU's model where NULL) and compiler (the host compiler, " + " the device
 * compiler where one is given). */
void csv_provenance(CsvRow *row, const char *device, const char *device_compiler);
/* Refuses now (one line naming `who`, exit 2) what csv_append would refuse. */
void csv_open_check(const char *who, int allow_dirty, const char *path, const char *flag, const char *header);
/* Do the two paths name one file (existing or not)? */
int csv_same_file(const char *a, const char *b);
/* Writes the header to a new file, then the row. */
void csv_append(const char *who, int allow_dirty, const char *path, const char *flag, const CsvRow *row);

#ifdef __cplusplus
}
#endif
#endif
