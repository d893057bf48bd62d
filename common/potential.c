/* potential.c - the table of pair potentials (see potential.h), generated from the registry,
 * common/potentials/all.h. */
#include "potential.h"

#include "fail.h"

#include <stddef.h>
#include <string.h>

#define NAME_(A, K, name, id) name,
const char *const potential_names[] = {NBR_POTENTIALS(NAME_, ~) NULL};

void potential_bad(int kind)
{
    nbr_fail(EXIT_INTERNAL, "potential kind %d: not one of the %d in common/potentials/all.h", kind, POT_COUNT);
}

#define MAKE_(A, K, name, id) p.id = pot_##id##_make(rc, shift);
PairPotential potential_make(int kind, double rc, double shift)
{
    PairPotential p;
    memset(&p, 0, sizeof p);
    p.kind = kind;
    p.rc2 = (real)(rc * rc);
    if ((unsigned)kind >= (unsigned)POT_COUNT) potential_bad(kind);
    NBR_POTENTIALS(MAKE_, ~)
    return p;
}
