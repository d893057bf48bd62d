/* layer_matrix.h - Rapaport's cell-layer matrix H(c,l) on the host, as one component: the cell
 * of each atom c_i, its layer l_i (the occupancy counter k_c when it was counted: the paper's
 * host loop, layers.c), H cell-major (H[c * cap + l] = the l-th atom of cell c, -1 = empty, so
 * a cell's scan stops at its first empty layer) and N_l, the largest occupancy, under the one
 * capacity policy (kernels/capacity.h, --max-layers); and the neighbour matrix W built from it. */
#ifndef NBR_LAYER_MATRIX_H
#define NBR_LAYER_MATRIX_H

#include "cpu_lists.h"

typedef struct {
    CellGrid g;      /* cells of edge >= r_n */
    int *cell_of;    /* c_i */
    int *layer_of;   /* l_i */
    int *count;      /* k_c */
    int *H;          /* H[c * cap.cap + l] */
    int nl;          /* N_l at the last build */
    Capacity cap;    /* layers per cell, --max-layers */
} LayerMatrix;

/* Cells of edge >= r_n (refuses G < 3), the arrays, and the capacity's first estimate. */
void layer_matrix_init(LayerMatrix *lm, Sim *s);
void layer_matrix_free(LayerMatrix *lm);
/* c_i, l_i, N_l (into stats.layers), H; grows H where N_l exceeds it (or stops at a hard limit). */
void layer_matrix_build(LayerMatrix *lm, Sim *s);
double layer_matrix_bytes(const LayerMatrix *lm, int n);
/* Reorders the atoms in H's cell order (cells by index, then layers), as the paper does from
 * the most recent H; returns 0 (nothing done) before the first build. */
int layer_matrix_reorder(const LayerMatrix *lm, Sim *s);

/* The neighbour matrix built from H, one atom at a time as one GPU thread does: W(m,i) =
 * W[m * n + i], the m-th neighbour of atom i within r_n (row order: the m-th neighbours of
 * consecutive atoms adjacent), count[i] = m_i; every atom scans the 27 cells around its own
 * and lists every neighbour (no Newton 3). Capacity: --max-nbr (one spare row takes the
 * entries past it while the build counts what it needs). */
typedef struct {
    int *W;
    int *count;      /* m_i */
    Capacity cap;    /* rows of W */
} NeighbourMatrix;

void neighbour_matrix_init(NeighbourMatrix *nm, Sim *s);
void neighbour_matrix_free(NeighbourMatrix *nm);
/* W from the current H (built for the current positions); sets stats.nbr_entries. */
void neighbour_matrix_build(NeighbourMatrix *nm, const LayerMatrix *lm, Sim *s);
double neighbour_matrix_bytes(const NeighbourMatrix *nm, int n);

#endif
