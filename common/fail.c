/* fail.c - fatal errors and checked allocation (see fail.h). */
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static jmp_buf *trap;

void nbr_fail_trap(jmp_buf *env) { trap = env; }

void nbr_exit(int code)
{
    fflush(stdout);
    if (trap) {
        jmp_buf *env = trap;
        trap = NULL;   /* a failure while unwinding the trial (freeing its state) ends the process */
        longjmp(*env, code);
    }
    exit(code);
}

void nbr_fail(int code, const char *fmt, ...)
{
    va_list ap;
    fflush(stdout);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    nbr_exit(code);
}

void *nbr_alloc(size_t bytes, const char *what)
{
    void *ptr = bytes ? malloc(bytes) : NULL;
    if (bytes && !ptr) nbr_fail(EXIT_CAPACITY, "cannot allocate %.3g MB for %s: not enough host memory", bytes / 1e6, what);
    return ptr;
}
