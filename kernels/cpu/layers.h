/* layers.h - the layer assignment of Rapaport's program and the cell order it implies,
 * host code shared by cpu-layer and the GPU variants' host paths (--layers host,
 * --reorder-at host).
 *   l_i = k_{c_i}++ over the atoms in index order; N_l = max k_c (the paper's loop, the one
 *   step its GPU program leaves on the host). H(c,l) = H[c * cap + l] holds atom l of cell c.
 *   Cell order: the atoms of H read cell by cell, layer by layer. */
#ifndef NBR_LAYERS_H
#define NBR_LAYERS_H

#ifdef __cplusplus
extern "C" {
#endif

/* Fills count[ncells] with the occupancies k_c and layer_of[n] with l_i; returns N_l. */
int layers_assign(const int *cell_of, int n, int ncells, int *count, int *layer_of);

/* order[k] = the k-th atom in cell order (cells by index, then layers l < count[c]);
 * returns how many atoms H holds (n when it describes the current atoms). */
int layers_cell_order(const int *H, const int *count, int ncells, long cap, int *order);

#ifdef __cplusplus
}
#endif
#endif
