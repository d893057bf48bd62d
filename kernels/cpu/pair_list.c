/* pair_list.c - see pair_list.h. */
#include "pair_list.h"

#include <stdlib.h>

static void alloc_pairs(PairList *pl)
{
    free(pl->pairs);
    pl->pairs = nbr_alloc(sizeof(Pair) * (pl->cap.cap + 1), "pair list"); /* + spare slot */
}

void pair_list_init(PairList *pl, Sim *s, long max_pairs)
{
    lcells_init(&pl->lc, s, s->rn);
    pl->pairs = NULL;
    pl->np = 0;
    capacity_init(&pl->cap, s->variant->name, "pair list", "pairs", "max-pairs", max_pairs,
                  nbr_start_estimate(s, 0.5 * neighbours_within(s, s->rn)) * s->n, 1);
    alloc_pairs(pl);
    image_half_shift_table(s->L, pl->half);
}

void pair_list_free(PairList *pl)
{
    lcells_free(&pl->lc);
    free(pl->pairs);
}

/* Stores every candidate (past the capacity into the spare slot) and advances only for a
 * neighbour: no branch to mispredict. Counting goes on past the capacity, so a build that
 * overflows learns exactly how much it needs. */
static void store_pair(void *arg, int i, int j, real dx, real dy, real dz, real r2, int code, int within)
{
    PairList *pl = arg;
    pl->pairs[pl->np < pl->cap.cap ? pl->np : pl->cap.cap] =
        (Pair){(uint32_t)i | (uint32_t)code << PAIR_CODE_SHIFT, (uint32_t)j};
    pl->np += within;
}

void pair_list_build(PairList *pl, Sim *s)
{
    lcells_assign(&pl->lc, s);
    for (;;) {
        pl->np = 0;
        half_shell_pairs(&pl->lc, s->r, s->rn * s->rn, store_pair, pl);
        if (!capacity_short(s, &pl->cap, pl->np)) break;
        alloc_pairs(pl); /* grown: build again */
    }
    s->stats.nbr_entries = 2.0 * (double)pl->np;
}

double pair_list_bytes(const PairList *pl, int n) { return lcells_bytes(&pl->lc, n) + sizeof(Pair) * (pl->cap.cap + 1.0); }
