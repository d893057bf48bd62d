/* csvrow.c - CSV rows, headers and the refusal rules (see csvrow.h). */
#define _XOPEN_SOURCE 700   /* realpath, sigaction, fcntl locks */
#include "csvrow.h"
#include "core.h"
#include "fail.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>
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

/* `path` with its directory resolved (links, . and ..), for comparing names of files that may
 * not exist yet; the path as given where the directory does not resolve. */
static void canonical(const char *path, char *out, size_t len)
{
    char dir[PATH_MAX], abs[PATH_MAX];
    snprintf(dir, sizeof dir, "%s", path);
    char *slash = strrchr(dir, '/');
    const char *base = slash ? slash + 1 : path;
    if (slash) slash[slash == dir ? 1 : 0] = '\0'; else snprintf(dir, sizeof dir, ".");
    if (realpath(dir, abs)) snprintf(out, len, "%s/%s", abs, base);
    else snprintf(out, len, "%s", path);
}

int csv_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) == 0 && stat(b, &sb) == 0) return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
    char ca[PATH_MAX + 8], cb[PATH_MAX + 8];
    canonical(a, ca, sizeof ca);
    canonical(b, cb, sizeof cb);
    return strcmp(ca, cb) == 0;
}

/* Signals during a write: SIGINT, SIGTERM and SIGHUP are held (recorded, not acted on) while a
 * row is written or a file made for a check exists, then raised again: a second Ctrl-C, or a
 * program without a handler of its own, dies after the row, not in the middle of it. */
static const int held_signals[] = {SIGINT, SIGTERM, SIGHUP};
enum { NHELD = sizeof held_signals / sizeof held_signals[0] };
static volatile sig_atomic_t held;
static void hold_one(int sig) { held = sig; }

static void signals_hold(struct sigaction old[NHELD])
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = hold_one;
    sigemptyset(&sa.sa_mask);
    held = 0;
    for (int k = 0; k < NHELD; k++) {
        sigaction(held_signals[k], NULL, &old[k]);
        if (old[k].sa_handler != SIG_IGN) sigaction(held_signals[k], &sa, NULL);   /* an ignored one stays so */
    }
}

static void signals_release(const struct sigaction old[NHELD])
{
    for (int k = 0; k < NHELD; k++) sigaction(held_signals[k], &old[k], NULL);
    if (held) raise(held);   /* to the program's own handler, or its default: death */
}

/* The columns of a header line, split in place at the commas. */
static int split_header(char *line, char **col)
{
    int n = 0;
    for (char *c = line; n < 4 * CSV_MAX_COLS;) {
        col[n++] = c;
        c = strchr(c, ',');
        if (!c) break;
        *c++ = '\0';
    }
    return n;
}

static int has_col(char *const *col, int n, const char *name)
{
    for (int k = 0; k < n; k++)
        if (strcmp(col[k], name) == 0) return 1;
    return 0;
}

/* The existing file `f` (read past its header line `theirs`) has another header than `ours`:
 * refused with the reason. A header that shares most of its columns with ours (each side at
 * least half of its own) is this kind of row from another version of the schema; one that
 * shares few is another program's file (the MD loop's run rows, its block rows and the
 * Coulomb programs' rows share only their provenance columns), named by the program its
 * first row came from. */
static void refuse_header(const char *who, const char *path, const char *flag, char *theirs, const char *ours,
                          FILE *f)
{
    static char mine[CSV_MAX_COLS * 32];
    static char *tc[4 * CSV_MAX_COLS], *oc[CSV_MAX_COLS];
    char start[48];   /* the start of their header, for the message */
    snprintf(start, sizeof start, "%.40s%s", theirs, strlen(theirs) > 40 ? "..." : "");
    snprintf(mine, sizeof mine, "%s", ours);
    const int nt = split_header(theirs, tc), no = split_header(mine, oc);
    int shared = 0;
    for (int k = 0; k < no; k++) shared += has_col(tc, nt, oc[k]);
    if (2 * shared >= nt && 2 * shared >= no) {
        char added[200] = "", dropped[200] = "";
        int nadd = 0, ndrop = 0;
        for (int k = 0; k < no; k++)
            if (!has_col(tc, nt, oc[k]) && nadd++ < 4)
                snprintf(added + strlen(added), sizeof added - strlen(added), "%s%s", nadd > 1 ? " " : "", oc[k]);
        for (int k = 0; k < nt; k++)
            if (!has_col(oc, no, tc[k]) && ndrop++ < 4)
                snprintf(dropped + strlen(dropped), sizeof dropped - strlen(dropped), "%s%s", ndrop > 1 ? " " : "",
                         tc[k]);
        nbr_fail(EXIT_INPUT, "%s: --%s %s has another header: the CSV schema changed (this build adds %d column%s%s%s%s, "
                             "drops %d%s%s%s%s): write to a new file, or migrate it (runs/migrate_csv.py)",
                 who, flag, path, nadd, nadd == 1 ? "" : "s", nadd ? ": " : "", added, nadd > 4 ? " ..." : "", ndrop,
                 ndrop ? ": " : "", dropped, ndrop > 4 ? " ..." : "",
                 nadd || ndrop ? "" : "; the same columns in another order");
    }
    /* whose rows: the value of its variant or program column in its first row */
    char owner[CSV_COL_LEN] = "";
    int id = -1;
    for (int k = 0; k < nt && id < 0; k++)
        if (strcmp(tc[k], "variant") == 0 || strcmp(tc[k], "program") == 0) id = k;
    char *line = NULL;
    size_t cap = 0;
    if (id >= 0 && getline(&line, &cap, f) > 0) {
        char *c = line;
        for (int k = 0; k < id && c; k++) if ((c = strchr(c, ','))) c++;
        if (c) snprintf(owner, sizeof owner, "%.*s", (int)strcspn(c, ",\r\n"), c);
    }
    free(line);
    char whose[CSV_COL_LEN + 64];
    if (!owner[0]) snprintf(whose, sizeof whose, "%s", id < 0 ? "a file without a variant or program column"
                                                              : "a file of another program, without rows");
    else if (strcmp(owner, who) == 0) snprintf(whose, sizeof whose, "%s's rows, but of another kind than --%s's", owner, flag);
    else snprintf(whose, sizeof whose, "rows of %s", owner);
    nbr_fail(EXIT_INPUT, "%s: --%s %s has another header: it is another program's file (%s; %d of its %d columns "
                         "are among the %d this one writes; its header: %s): write to a file of its own",
             who, flag, path, whose, shared, nt, no, start);
}

/* The first line of the open file `f` (NUL bytes end it), without its line end: it must be
 * `header`, or the file is refused (refuse_header names why). */
static void check_first_line(const char *who, const char *path, const char *flag, const char *header, FILE *f,
                             const struct sigaction *old)
{
    static char first[CSV_MAX_COLS * 32];
    first[0] = '\0';
    rewind(f);
    if (!fgets(first, sizeof first, f)) return;   /* an empty file: the row's header goes first */
    first[strcspn(first, "\r\n")] = '\0';
    if (strcmp(first, header) != 0) {
        if (old) signals_release(old);
        refuse_header(who, path, flag, first, header, f);
    }
}

/* Rows go to regular files only: a device (/dev/full, /dev/null), a directory or a FIFO
 * cannot hold a header to check, nor be cut back after a failed write. */
static void refuse_not_regular(const char *who, const char *path, const char *flag, const struct stat *st)
{
    if (S_ISREG(st->st_mode)) return;
    nbr_fail(EXIT_INPUT, "%s: --%s %s is not a regular file (%s): rows are appended to a file and read back",
             who, flag, path, S_ISDIR(st->st_mode) ? "a directory" : S_ISCHR(st->st_mode) ? "a character device"
                                                  : S_ISFIFO(st->st_mode) ? "a FIFO" : "not a file");
}

void csv_open_check(const char *who, int allow_dirty, const char *path, const char *flag, const char *header)
{
    if (under_results(path) && !nbr_rev_committed() && !allow_dirty)
        nbr_fail(EXIT_INPUT, "%s: refusing to add rows to %s (under results/) from a build of revision %s, which is "
                             "not a committed revision: commit and rebuild, or pass --allow-dirty",
                 who, path, nbr_git_rev());
    /* checked now so that a bad path fails before the run, and without creating the file: a
     * file made here and removed again would take with it the rows that another run appended
     * in between (20 runs appending to one new CSV lost rows so, issue 38) */
    struct stat st;
    if (stat(path, &st) != 0) {
        if (errno != ENOENT)
            nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
        char dir[PATH_MAX];
        snprintf(dir, sizeof dir, "%s", path);
        char *slash = strrchr(dir, '/');
        if (slash) slash[slash == dir ? 1 : 0] = '\0'; else snprintf(dir, sizeof dir, ".");
        if (access(dir, W_OK | X_OK) != 0)
            nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
        return;
    }
    refuse_not_regular(who, path, flag, &st);
    if (access(path, W_OK) != 0)
        nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
    FILE *f = fopen(path, "r");
    if (!f) nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(errno));
    check_first_line(who, path, flag, header, f, NULL);
    fclose(f);
}

/* Writes all of `len` bytes; 0, or the errno of the write that failed. */
static int write_all(int fd, const char *p, size_t len)
{
    while (len > 0) {
        const ssize_t k = write(fd, p, len);
        if (k < 0 && errno == EINTR) continue;
        if (k < 0) return errno;
        if (k == 0) return EIO;
        p += k;
        len -= (size_t)k;
    }
    return 0;
}

/* Opens `path` for appending and locks it: one writer at a time, so that the length before is
 * this row's start (programs run in parallel on one CSV). A file removed or replaced by the
 * time the lock is granted (a failed first row removes its new file) is opened again. Where
 * locks are not supported (some NFS) the append goes on. Returns the fd, or -1 with errno. */
static int open_locked(const char *path)
{
    for (;;) {
        const int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC, 0666);
        if (fd < 0) return -1;
        struct flock lock = {.l_type = F_WRLCK, .l_whence = SEEK_SET};
        while (fcntl(fd, F_SETLKW, &lock) != 0 && errno == EINTR) {}
        struct stat mine, now;
        if (fstat(fd, &mine) != 0 || !S_ISREG(mine.st_mode) ||
            (stat(path, &now) == 0 && now.st_dev == mine.st_dev && now.st_ino == mine.st_ino))
            return fd;
        close(fd);
    }
}

/* The row is appended whole or not at all: the line (with the header where the file is new or
 * empty; with a line end first where the file's last line lacks one, so that the row is a line
 * of its own) is built in memory and written under a lock, after the header is checked under
 * that lock; a failed write or close (a full disk, a quota) cuts the file back to its length
 * before, or removes the file where it was empty. No fsync: local file systems report a full
 * disk at write(2) and NFS at close(2), both checked, and block rows are written between timed
 * blocks, where a sync would cost milliseconds. */
void csv_append(const char *who, int allow_dirty, const char *path, const char *flag, const CsvRow *row)
{
    static char header[CSV_MAX_COLS * 32];
    static char text[sizeof header + CSV_MAX_COLS * CSV_COL_LEN + 3];
    csv_header(row, header, sizeof header);
    csv_open_check(who, allow_dirty, path, flag, header);
    struct sigaction old[NHELD];
    signals_hold(old);
    const int fd = open_locked(path);
    if (fd < 0) {
        const int e = errno;
        signals_release(old);
        nbr_fail(EXIT_INPUT, "%s: cannot open --%s %s for appending: %s", who, flag, path, strerror(e));
    }
    struct stat st;
    const off_t before = fstat(fd, &st) == 0 ? st.st_size : -1;
    if (before >= 0 && !S_ISREG(st.st_mode)) {
        close(fd);
        signals_release(old);
        refuse_not_regular(who, path, flag, &st);
    }
    size_t len = 0;
    /* closed only once the row is written: closing any descriptor of a file drops this process's
     * lock on it (POSIX record locks), and a writer that read the header so wrote unlocked (a blank
     * line between two of 20 concurrent rows) */
    FILE *head = NULL;
    if (before > 0) {   /* the header again, now under the lock, and the last byte */
        head = fdopen(dup(fd), "r");
        if (head) check_first_line(who, path, flag, header, head, old);
        char last = '\n';
        if (pread(fd, &last, 1, before - 1) == 1 && last != '\n') text[len++] = '\n';
    }
    if (before == 0) len = (size_t)snprintf(text, sizeof text, "%s\n", header);
    for (int k = 0; k < row->n; k++)
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%s", k ? "," : "", row->value[k]);
    text[len++] = '\n';
    int err = before < 0 ? errno : write_all(fd, text, len), cut_err = 0;
    if (err && before >= 0 && ftruncate(fd, before) != 0) cut_err = errno;
    if (err && before == 0 && !cut_err) unlink(path);   /* nothing of this row, no empty file; under the lock */
    if (head) fclose(head);
    if (close(fd) != 0 && !err) {
        err = errno;   /* a write-back error reported at the close: cut by name */
        if (before == 0 ? unlink(path) != 0 : truncate(path, before) != 0) cut_err = errno;
    }
    signals_release(old);
    if (err && cut_err)
        nbr_fail(EXIT_CAPACITY, "%s: cannot append a row to --%s %s: %s; cutting it back to its %lld bytes failed too "
                                "(%s): its last line is incomplete",
                 who, flag, path, strerror(err), (long long)before, strerror(cut_err));
    if (err)
        nbr_fail(EXIT_CAPACITY, "%s: cannot append a row to --%s %s: %s (%s)", who, flag, path, strerror(err),
                 before > 0 ? "the file is left as it was" : "no file is left");
}
