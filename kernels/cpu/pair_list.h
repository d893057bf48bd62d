/* pair_list.h - the paper's unordered pair list on the host, as one component: every pair
 * (t'_m, t''_m) with r < r_n once, built from linked-list cells of width >= r_n (the cell and 13
 * of its neighbours, kernels/cpu/cpu_lists.h's half_shell_pairs), an atom's pairs together. The
 * periodic image of each pair (27 possibilities) is packed into the 6 high-order bits of the
 * first index (the paper's beta), so a force loop never repeats the boundary tests: it looks
 * the half shift up in a 64-entry table. Indices keep 26 bits: N <= 2^26. Capacity: --max-pairs
 * (a spare slot takes the pairs past it while the build counts what it needs). */
#ifndef NBR_PAIR_LIST_H
#define NBR_PAIR_LIST_H

#include "cpu_lists.h"

#include <stdint.h>

enum { PAIR_CODE_SHIFT = 26 };
#define PAIR_INDEX_MASK ((UINT32_C(1) << PAIR_CODE_SHIFT) - 1)

typedef struct {
    uint32_t a;   /* t'_m | beta << 26 */
    uint32_t b;   /* t''_m */
} Pair;

typedef struct {
    LinkedCells lc;
    Pair *pairs;
    size_t np;         /* N_p: pairs found (stored while np < cap) */
    Capacity cap;      /* pairs, --max-pairs */
    vec3 half[64];     /* b_beta / 2 for every code */
} PairList;

/* max_pairs: the capacity in pairs (cpu-pairlist's --max-pairs; 0 = automatic, grows) */
void pair_list_init(PairList *pl, Sim *s, long max_pairs);
void pair_list_free(PairList *pl);
/* Cells, then the pairs, grown and built again until they fit; sets stats.nbr_entries. */
void pair_list_build(PairList *pl, Sim *s);
double pair_list_bytes(const PairList *pl, int n);

#endif
