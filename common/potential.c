/* potential.c - the table of pair potentials (see potential.h). */
#include "potential.h"

#include <stddef.h>

const char *const potential_names[] = {"lj", "lj-coulsf", NULL};

PairPotential potential_make(int kind, double rc, double shift)
{
    PairPotential p;
    p.kind = kind;
    p.rc2 = (real)(rc * rc);
    p.shift = (real)shift;
    p.rc = (real)rc;
    p.rc_inv = (real)(1 / rc);
    p.rc_inv2 = (real)(1 / (rc * rc));
    return p;
}
