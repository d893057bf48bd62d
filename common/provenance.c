/* provenance.c - what every result row says about where it came from. Compiled with the
 * revision of the tree (the Makefile recompiles this file whenever the revision changes). */
#include "core.h"

#include <string.h>

#ifndef NBR_GIT_REV
#define NBR_GIT_REV "unknown"
#endif
#ifndef NBR_COMPILER
#define NBR_COMPILER "unknown"
#endif

const char *nbr_git_rev(void) { return NBR_GIT_REV; }
const char *nbr_host_compiler(void) { return NBR_COMPILER; }

int nbr_rev_committed(void)
{
    const char *rev = NBR_GIT_REV;
    size_t n = strlen(rev);
    return n > 0 && strcmp(rev, "unknown") != 0 && !(n >= 6 && strcmp(rev + n - 6, "-dirty") == 0);
}
