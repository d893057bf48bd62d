/* cluster.h - the conventions of a cluster-pair list (Páll and Hess 2013; MD-Bench's cluster
 * pairs), in plain C for the CPU program (kernels/cpu/cluster_list.h) and the CUDA one.
 *
 * Atoms are sorted into columns along x and y, by z inside a column, and cut into clusters of
 * C consecutive atoms (the last cluster of a column may hold fewer: its empty slots are
 * padding). A row per i-cluster (or i-unit) lists entries, each a j-unit of consecutive atoms
 * of one cluster with one periodic image S:
 *   entry = first atom << 8 | (real atoms - 1) << 5 | shift code
 *   code  = (sx + 1) + 3 (sy + 1) + 9 (sz + 1), S = (sx, sy, sz) L, 13 = no shift
 * so no pair needs a minimum image; padding is masked by the entry's atom count, and the pair
 * (i, i) (full lists) or every j <= i (half lists, Newton 3) by the self mask of code 13. */
#ifndef NBR_CLUSTER_H
#define NBR_CLUSTER_H

#include "../common/real.h"

enum { ENTRY_FIRST = 8, ENTRY_ATOMS = 5, ENTRY_CODE_MASK = 31, SHIFT_NONE = 13, CLUSTER_MAX_ATOMS = 1 << 24 };

NBR_HD unsigned cluster_entry(int first, int atoms, int code)
{
    return (unsigned)first << ENTRY_FIRST | (unsigned)(atoms - 1) << ENTRY_ATOMS | (unsigned)code;
}
NBR_HD int entry_first(unsigned e) { return (int)(e >> ENTRY_FIRST); }
NBR_HD int entry_atoms(unsigned e) { return (int)(e >> ENTRY_ATOMS & 7) + 1; }
NBR_HD int entry_code(unsigned e) { return (int)(e & ENTRY_CODE_MASK); }
NBR_HD int shift_code(int sx, int sy, int sz) { return (sx + 1) + 3 * (sy + 1) + 9 * (sz + 1); }
/* S of a code, in units of L, per axis */
NBR_HD int shift_sx(int code) { return code % 3 - 1; }
NBR_HD int shift_sy(int code) { return code / 3 % 3 - 1; }
NBR_HD int shift_sz(int code) { return code / 9 - 1; }

/* Whether the slot (i, j) of an entry with this code is evaluated: not the atom with itself,
 * and with Newton 3 (half) only j > i inside the own cluster */
NBR_HD int cluster_slot_on(int i, int j, int code, int half)
{
    return code != SHIFT_NONE || (half ? j > i : j != i);
}

/* The covered slots of one row entry for the i atoms [i0, i0 + ni): every slot counted (the
 * return), those within rc2 (*within), and fn(i, j) for those within rn2 through the entry's
 * own image (the --check and --verify-lists view). Positions: x of atom a at xyz[a * stride],
 * y and z after it (vec3: stride 3, real4: 4). */
typedef void (*ClusterPairFn)(int i, int j, void *arg);
NBR_HD double cluster_entry_cover(const real *xyz, int stride, int i0, int ni, unsigned e, int half, double L,
                                  double rn2, double rc2, ClusterPairFn fn, void *arg, double *within)
{
    const int a0 = entry_first(e), atoms = entry_atoms(e), code = entry_code(e);
    const double S[3] = {shift_sx(code) * L, shift_sy(code) * L, shift_sz(code) * L};
    double slots = 0;
    for (int i = i0; i < i0 + ni; i++)
        for (int j = a0; j < a0 + atoms; j++) {
            if (!cluster_slot_on(i, j, code, half)) continue;
            const real *ri = xyz + (long)i * stride, *rj = xyz + (long)j * stride;
            const double dx = (double)ri[0] - ((double)rj[0] + S[0]), dy = (double)ri[1] - ((double)rj[1] + S[1]),
                         dz = (double)ri[2] - ((double)rj[2] + S[2]);
            const double d2 = dx * dx + dy * dy + dz * dz;
            slots++;
            if (d2 < rc2) *within += 1;
            if (fn && d2 < rn2) fn(i, j, arg);
        }
    return slots;
}

#endif
