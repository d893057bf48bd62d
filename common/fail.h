/* fail.h - the lowest layer: fatal errors and checked allocation. Everything else may call
 * these; they call nothing of nbrlab's, so no module depends back on the loop. */
#ifndef NBR_FAIL_H
#define NBR_FAIL_H

#include <setjmp.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Exit codes: 1 internal or device error (and a failed --check), 2 bad input, 3 capacity or
 * memory, 4 an unstable run (or one that missed its --temp: status wrong-temp), 5 a neighbour
 * structure that lost a pair (--verify-lists), 6 this machine lacks the device the program runs on
 * (no GPU or no driver), found before any output: scripts and tests tell "cannot run here" from a
 * failure by it. */
enum { EXIT_INTERNAL = 1, EXIT_INPUT = 2, EXIT_CAPACITY = 3, EXIT_UNSTABLE = 4, EXIT_VERIFY = 5, EXIT_NO_DEVICE = 6 };

/* Fatal error with a one-line message on stderr. */
void nbr_fail(int code, const char *fmt, ...)
#ifdef __GNUC__
    __attribute__((format(printf, 2, 3), noreturn))
#endif
    ;

/* A trap for one autotuner trial (common/tune.c): while one is set, nbr_fail and nbr_exit
 * print as ever but jump there (longjmp, the exit code as value) instead of ending the
 * process, so that a trial whose knobs cannot run is skipped. NULL clears it. */
void nbr_fail_trap(jmp_buf *env);
/* exit(code), or the jump to the trap while one is set */
void nbr_exit(int code)
#ifdef __GNUC__
    __attribute__((noreturn))
#endif
    ;

/* Host allocation that dies with a message naming the size on failure. */
void *nbr_alloc(size_t bytes, const char *what);

#ifdef __cplusplus
}
#endif
#endif
