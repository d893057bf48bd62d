/* layers.c - see layers.h. */
#include "layers.h"

#include <string.h>

int layers_assign(const int *cell_of, int n, int ncells, int *count, int *layer_of)
{
    memset(count, 0, sizeof(int) * ncells);
    int most = 0;
    for (int i = 0; i < n; i++) {
        const int l = count[cell_of[i]]++;
        layer_of[i] = l;
        if (l + 1 > most) most = l + 1;
    }
    return most;
}

int layers_cell_order(const int *H, const int *count, int ncells, long cap, int *order)
{
    int k = 0;
    for (int c = 0; c < ncells; c++)
        for (int l = 0; l < count[c]; l++) order[k++] = H[(long)c * cap + l];
    return k;
}
