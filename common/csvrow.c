/* csvrow.c - CSV rows, headers and the refusal rules (see csvrow.h). */
#define _XOPEN_SOURCE 700   /* realpath */
#include "csvrow.h"
#include "core.h"
#include "fail.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

void csv_vcol(CsvRow *row, const char *name, const char *fmt, va_list ap)
{
    if (row->n >= CSV_MAX_COLS) nbr_fail(EXIT_INTERNAL, "internal: more than %d CSV columns", CSV_MAX_COLS);
    vsnprintf(row->value[row->n], CSV_COL_LEN, fmt, ap);
    /* CSV safety: values never contain the separator or quotes */
    for (char *c = row->value[row->n]; *c; c++)
        if (*c == ',' || *c == '"' || *c == '\n') *c = ';';
    row->name[row->n++] = name;
}

void csv_provenance(CsvRow *row, const char *device, const char *device_compiler)
{
    char when[64], host[128] = "unknown", cpu[CSV_COL_LEN];
    const time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    gethostname(host, sizeof host - 1);
    if (!device) {
        csv_cpu_model(cpu, sizeof cpu);
        device = cpu;
    }
    csv_col(row, "timestamp", "%s", when);
    csv_col(row, "git_rev", "%s", nbr_git_rev());
    csv_col(row, "host", "%s", host);
    csv_col(row, "device", "%s", device);
    csv_col(row, "compiler", "%s%s%s", nbr_host_compiler(), device_compiler ? " + " : "",
            device_compiler ? device_compiler : "");
}

void csv_col(CsvRow *row, const char *name, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    csv_vcol(row, name, fmt, ap);
    va_end(ap);
}

void csv_cpu_model(char *out, size_t len)
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

void csv_header(const CsvRow *row, char *out, size_t len)
{
    out[0] = '\0';
    for (int k = 0; k < row->n; k++) {
        strncat(out, k ? "," : "", len - strlen(out) - 1);
        strncat(out, row->name[k], len - strlen(out) - 1);
    }
}

/* Is `path` inside a directory named results (a committed results tree)? */
static int under_results(const char *path)
{
    char dir[PATH_MAX], abs[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0'; else snprintf(dir, sizeof dir, ".");
    if (!realpath(dir, abs)) return 0;
    for (char *c = abs; (c = strstr(c, "/results")); c += 8)
        if (c[8] == '/' || c[8] == '\0') return 1;
    return 0;
}

void csv_open_check(const char *who, int allow_dirty, const char *path, const char *flag, const char *header)
{
    if (under_results(path) && !nbr_rev_committed() && !allow_dirty)
        nbr_fail(EXIT_INPUT, "%s: refusing to add rows to %s (under results/) from a build of revision %s, which is "
                             "not a committed revision: commit and rebuild, or pass --allow-dirty",
                 who, path, nbr_git_rev());
    /* opened now so that a bad path fails before the run; a file made only for this check is
     * removed again, so a run that stops before its first row leaves no empty CSV behind (an
     * empty file has no header, and the drivers would refuse to append to it) */
    const int existed = access(path, F_OK) == 0;
    FILE *f = fopen(path, "a+");
    if (!f) nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
    rewind(f);
    static char first[CSV_MAX_COLS * 32];
    first[0] = '\0';
    if (fgets(first, sizeof first, f)) {
        first[strcspn(first, "\n")] = '\0';
        if (strcmp(first, header) != 0)
            nbr_fail(EXIT_INPUT, "%s: --%s %s has another header (CSV schema changed): write to a new file", who,
                     flag, path);
    }
    fclose(f);
    if (!existed) remove(path);
}

void csv_append(const char *who, int allow_dirty, const char *path, const char *flag, const CsvRow *row)
{
    static char header[CSV_MAX_COLS * 32];
    csv_header(row, header, sizeof header);
    csv_open_check(who, allow_dirty, path, flag, header);
    FILE *f = fopen(path, "a");
    if (!f) nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
    if (ftell(f) == 0) fprintf(f, "%s\n", header);
    for (int k = 0; k < row->n; k++) fprintf(f, "%s%s", k ? "," : "", row->value[k]);
    fputc('\n', f);
    fclose(f);
}
