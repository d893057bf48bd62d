/* input.c - charge systems: readers, generators, writer (see input.h). */
#include "input.h"
#include "fail.h"
#include "rng.h"

#include <ctype.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/wait.h>

const char *const format_names[] = {"auto", "pqr", "xyzq", NULL};
static const double PI = 3.14159265358979323846;

static void sys_alloc(ChargeSystem *s, long n)
{
    size_t bytes = (size_t)(n > 0 ? n : 1) * sizeof(double);
    s->n = n;
    s->x = nbr_alloc(bytes, "positions");
    s->y = nbr_alloc(bytes, "positions");
    s->z = nbr_alloc(bytes, "positions");
    s->q = nbr_alloc(bytes, "charges");
}

void input_free(ChargeSystem *s)
{
    free(s->x); free(s->y); free(s->z); free(s->q);
    s->x = s->y = s->z = s->q = NULL;
    s->n = 0;
}

/* A whole token as a finite decimal number ([sign] digits [. digits] [e [sign] digits]), else
 * 0: strtod alone would also take hex (0x10 = 16), inf and nan. */
static int number(const char *tok, double *v)
{
    const char *c = tok + (*tok == '-' || *tok == '+');
    int digits = 0;
    while (isdigit((unsigned char)*c)) c++, digits++;
    if (*c == '.')
        for (c++; isdigit((unsigned char)*c); c++) digits++;
    if (!digits) return 0;
    if (*c == 'e' || *c == 'E') {
        c += c[1] == '-' || c[1] == '+' ? 2 : 1;
        if (!isdigit((unsigned char)*c)) return 0;
        while (isdigit((unsigned char)*c)) c++;
    }
    if (*c) return 0;
    char *end;
    errno = 0;
    *v = strtod(tok, &end);
    return tok[0] && *end == '\0' && errno != ERANGE && isfinite(*v);
}

/* What strtod would have read as a number, said where a token is refused. */
static const char *decimal_hint(const char *tok)
{
    char *end;
    strtod(tok, &end);
    return tok[0] && *end == '\0' ? " (decimal numbers only: no hex, inf or nan)" : "";
}

/* A residue number: an integer, perhaps with an insertion code letter. */
static int res_seq(const char *tok)
{
    const char *c = tok + (*tok == '-');
    if (!isdigit((unsigned char)*c)) return 0;
    while (isdigit((unsigned char)*c)) c++;
    if (isalpha((unsigned char)*c)) c++;
    return *c == '\0';
}

enum { MAX_TOKENS = 16 };
static int split(char *line, char **tok)
{
    int n = 0;
    for (char *c = strtok(line, " \t\r\n"); c; c = strtok(NULL, " \t\r\n"))
        if (n < MAX_TOKENS) tok[n++] = c; else return MAX_TOKENS + 1;
    return n;
}

static const char *basename_of(const char *path)
{
    const char *b = strrchr(path, '/');
    return b ? b + 1 : path;
}

static int ends_with(const char *s, size_t len, const char *suffix)
{
    size_t k = strlen(suffix);
    return len >= k && strncasecmp(s + len - k, suffix, k) == 0;
}

/* A compressed input (.gz, .xz) is read through its decompressor: the command that writes it
 * to stdout, or NULL for a plain file. */
static const char *decompressor(const char *path)
{
    size_t len = strlen(path);
    if (ends_with(path, len, ".gz")) return "gzip -dc";
    if (ends_with(path, len, ".xz")) return "xz -dc";
    return NULL;
}

/* popen of "DECOMP -- 'path' 2>/dev/null" (the path single-quoted for the shell; the
 * decompressor's own complaint is replaced by ours, so the failure is one line). */
static FILE *open_decompressed(const char *decomp, const char *path)
{
    size_t len = strlen(path), cap = strlen(decomp) + 4 * len + 32;
    char *cmd = nbr_alloc(cap, "the decompressor's command line"), *c = cmd;
    c += sprintf(c, "%s -- '", decomp);
    for (const char *p = path; *p; p++) {
        if (*p == '\'') { memcpy(c, "'\\''", 4); c += 4; }
        else *c++ = *p;
    }
    strcpy(c, "' 2>/dev/null");
    FILE *f = popen(cmd, "r");
    free(cmd);
    if (!f) nbr_fail(EXIT_INPUT, "cannot read --input %s: cannot start %s: %s", path, decomp, strerror(errno));
    return f;
}

typedef struct { FILE *f; const char *decomp, *path; } InputStream;

/* Ends the read of a compressed input: the decompressor's exit status, and the one-line
 * failure when it failed. */
static void close_decompressed(InputStream *in, int read_error)
{
    int status = pclose(in->f);
    if (read_error || status != 0)
        nbr_fail(EXIT_INPUT, "cannot read --input %s: %s failed (%s)", in->path, in->decomp,
                 status == -1 ? strerror(errno)
                 : WIFEXITED(status) && WEXITSTATUS(status) == 127 ? "no such command"
                 : "a corrupt or truncated file");
}

/* A malformed line. In a compressed input it may be the torn end of a truncated archive: the
 * rest is drained and a failed decompressor is named instead, as the cause. */
static void line_fail(InputStream *in, const char *fmt, ...)
    __attribute__((format(printf, 2, 3), noreturn));
static void line_fail(InputStream *in, const char *fmt, ...)
{
    char msg[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (in->decomp) {
        char buf[4096];
        while (fread(buf, 1, sizeof buf, in->f) > 0) {}
        close_decompressed(in, ferror(in->f));
    }
    nbr_fail(EXIT_INPUT, "%s", msg);
}

/* Two atoms at one place make 1/r infinite (E = -inf or nan). Found with a hash table of the
 * positions, O(N): with the decimal checks under 0.1 s of CPU per million atoms, against 1.5 s
 * to read them. A pairwise test would be the energy's own N^2 / 2 on the host, which device
 * runs given --e-ref never pay. */
static uint64_t position_hash(const double *p)
{
    uint64_t h = 0x9e3779b97f4a7c15u;
    for (int d = 0; d < 3; d++) {
        const double x = p[d] == 0 ? 0.0 : p[d];   /* -0 and +0 are one place */
        uint64_t bits;
        memcpy(&bits, &x, sizeof bits);
        h = (h ^ bits) * 0xff51afd7ed558ccdu;
        h ^= h >> 32;
    }
    return h;
}

static void refuse_coincident(const char *path, const double *v, const long *at_line, long n)
{
    size_t size = 2;
    while (size < 2 * (size_t)n) size *= 2;
    long *slot = nbr_alloc(size * sizeof(long), "a table of the atoms' positions");
    for (size_t k = 0; k < size; k++) slot[k] = -1;
    for (long i = 0; i < n; i++) {
        const double *p = v + 4 * i;
        for (size_t k = position_hash(p) & (size - 1);; k = (k + 1) & (size - 1)) {
            const long j = slot[k];
            if (j < 0) { slot[k] = i; break; }
            const double *q = v + 4 * j;
            if (p[0] == q[0] && p[1] == q[1] && p[2] == q[2])
                nbr_fail(EXIT_INPUT, "%s:%ld: atom %ld is at the same place as atom %ld (line %ld), x y z = %.17g %.17g "
                                     "%.17g: their 1/r is infinite; remove one of them",
                         path, at_line[i], i + 1, j + 1, at_line[j], p[0], p[1], p[2]);
        }
    }
    free(slot);
}

void input_read(ChargeSystem *s, const char *path, int format)
{
    const char *decomp = decompressor(path);
    if (format == FORMAT_AUTO) {
        /* the name without its compression suffix: .pqr is PQR */
        size_t len = strlen(path) - (decomp ? 3 : 0);
        format = ends_with(path, len, ".pqr") ? FORMAT_PQR : FORMAT_XYZQ;
    }
    FILE *f = fopen(path, "r");
    if (!f) nbr_fail(EXIT_INPUT, "cannot read --input %s: %s", path, strerror(errno));
    if (decomp) {
        fclose(f);
        f = open_decompressed(decomp, path);
    }
    InputStream in = {f, decomp, path};
    long cap = 1024, n = 0, lineno = 0;
    double *v = nbr_alloc((size_t)cap * 4 * sizeof(double), "input atoms");
    long *at_line = nbr_alloc((size_t)cap * sizeof(long), "input line numbers");
    char *line = NULL;
    size_t linecap = 0;
    ssize_t got;
    while ((got = getline(&line, &linecap, f)) > 0) {
        lineno++;
        /* a line without its newline is the file's last: perhaps cut (a copy or download
         * stopped), its last field shortened, so an atom line there is refused below */
        const int cut = line[got - 1] != '\n';
        char copy[64], *tok[MAX_TOKENS];
        snprintf(copy, sizeof copy, "%s", line);
        copy[strcspn(copy, "\r\n")] = '\0';
        int nt = split(line, tok);
        double a[4], radius;
        if (nt == 0) continue;
        if (format == FORMAT_PQR) {
            if (strcmp(tok[0], "ATOM") != 0 && strcmp(tok[0], "HETATM") != 0) continue;  /* REMARK, TER, END, ... */
            if (nt != 10 && nt != 11)
                line_fail(&in, "%s:%ld: a PQR atom line needs 10 or 11 whitespace-separated fields (record "
                                     "serial name resName [chain] resSeq x y z charge radius), this one has %d: '%.40s'",
                         path, lineno, nt > MAX_TOKENS ? MAX_TOKENS + 1 : nt, copy);
            if (!res_seq(tok[nt - 6]))
                line_fail(&in, "%s:%ld: PQR field %d (resSeq) is not a residue number: '%s' (a field missing "
                                     "or extra?)", path, lineno, nt - 5, tok[nt - 6]);
            for (int k = 0; k < 4; k++)
                if (!number(tok[nt - 5 + k], &a[k]))
                    line_fail(&in, "%s:%ld: PQR field %d (%s) is not a number: '%s'%s", path, lineno,
                             nt - 4 + k, (const char *[]){"x", "y", "z", "charge"}[k], tok[nt - 5 + k],
                             decimal_hint(tok[nt - 5 + k]));
            if (!number(tok[nt - 1], &radius) || radius < 0)
                line_fail(&in, "%s:%ld: PQR field %d (radius) is not a non-negative number: '%s'%s", path, lineno,
                         nt, tok[nt - 1], decimal_hint(tok[nt - 1]));
        } else {
            if (tok[0][0] == '#') continue;
            if (nt != 4)
                line_fail(&in, "%s:%ld: an x y z q line needs 4 numbers, this one has %d fields: '%.40s'", path,
                         lineno, nt > MAX_TOKENS ? MAX_TOKENS + 1 : nt, copy);
            for (int k = 0; k < 4; k++)
                if (!number(tok[k], &a[k]))
                    line_fail(&in, "%s:%ld: field %d (%c) is not a number: '%s'%s", path, lineno, k + 1, "xyzq"[k],
                             tok[k], decimal_hint(tok[k]));
        }
        if (cut)
            line_fail(&in, "%s:%ld: the last line has no end (no newline): the file may be cut, its last field "
                           "shortened: '%.40s'", path, lineno, copy);
        if (n == cap) {
            cap *= 2;
            double *w = realloc(v, (size_t)cap * 4 * sizeof(double));
            long *l = realloc(at_line, (size_t)cap * sizeof(long));
            if (!w || !l) nbr_fail(EXIT_CAPACITY, "cannot allocate %.3g MB for the atoms of %s", cap * 40 / 1e6, path);
            v = w;
            at_line = l;
        }
        at_line[n] = lineno;
        memcpy(v + 4 * n++, a, sizeof a);
    }
    free(line);
    int bad = ferror(f);
    if (decomp) {
        /* a corrupt or truncated archive: the decompressor exits non-zero (what it wrote before
         * is dropped with the rest: nothing half-read) */
        close_decompressed(&in, bad);
    } else {
        fclose(f);
        if (bad) nbr_fail(EXIT_INPUT, "cannot read --input %s: read error", path);
    }
    if (n == 0)
        nbr_fail(EXIT_INPUT, "%s: no atoms (%s format%s)", path, format_names[format],
                 format == FORMAT_PQR ? ": no ATOM or HETATM lines" : "");
    refuse_coincident(path, v, at_line, n);
    sys_alloc(s, n);
    for (long i = 0; i < n; i++) {
        s->x[i] = v[4 * i]; s->y[i] = v[4 * i + 1]; s->z[i] = v[4 * i + 2]; s->q[i] = v[4 * i + 3];
    }
    free(v);
    free(at_line);
    snprintf(s->name, sizeof s->name, "%s", basename_of(path));
}

/* A uniformly random rotation (Shoemake's quaternion from three uniforms). */
static void random_rotation(Rng *g, double R[3][3])
{
    double u1 = rng_uniform(g), u2 = 2 * PI * rng_uniform(g), u3 = 2 * PI * rng_uniform(g);
    double a = sqrt(1 - u1), b = sqrt(u1);
    double w = a * sin(u2), x = a * cos(u2), y = b * sin(u3), z = b * cos(u3);
    R[0][0] = 1 - 2 * (y * y + z * z); R[0][1] = 2 * (x * y - z * w);     R[0][2] = 2 * (x * z + y * w);
    R[1][0] = 2 * (x * y + z * w);     R[1][1] = 1 - 2 * (x * x + z * z); R[1][2] = 2 * (y * z - x * w);
    R[2][0] = 2 * (x * z - y * w);     R[2][1] = 2 * (y * z + x * w);     R[2][2] = 1 - 2 * (x * x + y * y);
}

void input_water(ChargeSystem *s, long n, uint64_t seed)
{
    if (n % 3) nbr_fail(EXIT_INPUT, "--water %ld: the number of atoms must be a multiple of 3 (3 per molecule)", n);
    long m = n / 3, side = (long)ceil(cbrt((double)m));
    while (side * side * side < m) side++;
    while ((side - 1) * (side - 1) * (side - 1) >= m) side--;
    double a = cbrt(1.0 / WATER_DENSITY), half = 0.5 * WATER_HOH_DEG * PI / 180;
    double body[3][3] = {{0, 0, 0},
                         {WATER_OH * sin(half), WATER_OH * cos(half), 0},
                         {-WATER_OH * sin(half), WATER_OH * cos(half), 0}};
    const double q[3] = {WATER_Q_O, WATER_Q_H, WATER_Q_H};
    Rng g;
    rng_seed(&g, seed);
    sys_alloc(s, n);
    for (long k = 0; k < m; k++) {
        double site[3] = {a * (k % side), a * (k / side % side), a * (k / (side * side))}, R[3][3];
        random_rotation(&g, R);
        for (int atom = 0; atom < 3; atom++) {
            double r[3];
            for (int d = 0; d < 3; d++)
                r[d] = site[d] + R[d][0] * body[atom][0] + R[d][1] * body[atom][1] + R[d][2] * body[atom][2];
            long i = 3 * k + atom;
            s->x[i] = r[0]; s->y[i] = r[1]; s->z[i] = r[2]; s->q[i] = q[atom];
        }
    }
    snprintf(s->name, sizeof s->name, "water-%ld", n);
}

void input_random(ChargeSystem *s, long n, uint64_t seed)
{
    Rng g;
    rng_seed(&g, seed);
    sys_alloc(s, n);
    double L = cbrt(n / 0.1), sum = 0;
    for (long i = 0; i < n; i++) {
        s->x[i] = L * rng_uniform(&g); s->y[i] = L * rng_uniform(&g); s->z[i] = L * rng_uniform(&g);
        s->q[i] = 2 * rng_uniform(&g) - 1;
        sum += s->q[i];
    }
    for (long i = 0; i < n; i++) s->q[i] -= sum / n;
    snprintf(s->name, sizeof s->name, "random-%ld", n);
}

void input_write_xyzq(const ChargeSystem *s, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) nbr_fail(EXIT_INPUT, "cannot write --write %s: %s", path, strerror(errno));
    fprintf(f, "# %s: %ld atoms, x y z (Angstrom) q (e)\n", s->name, s->n);
    for (long i = 0; i < s->n; i++) fprintf(f, "%.17g %.17g %.17g %.17g\n", s->x[i], s->y[i], s->z[i], s->q[i]);
    if (fclose(f) != 0) nbr_fail(EXIT_INPUT, "cannot write --write %s: %s", path, strerror(errno));
}
