/* layer_matrix.c - see layer_matrix.h. */
#include "layer_matrix.h"
#include "layers.h"

#include <stdlib.h>

static void alloc_H(LayerMatrix *lm)
{
    free(lm->H);
    lm->H = nbr_alloc(sizeof(int) * lm->cap.cap * lm->g.ncells, "layer matrix");
}

void layer_matrix_init(LayerMatrix *lm, Sim *s)
{
    lm->g = cells_init(s->L, s->rn, s->n, s->variant->name);
    s->stats.cells_per_axis = lm->g.G;
    lm->cell_of = nbr_alloc(sizeof(int) * s->n, "atom cells");
    lm->layer_of = nbr_alloc(sizeof(int) * s->n, "atom layers");
    lm->count = nbr_alloc(sizeof(int) * lm->g.ncells, "cell occupancies");
    lm->H = NULL;
    lm->nl = 0;
    capacity_init(&lm->cap, s->variant->name, "layer matrix", "layers", "max-layers", s->p.max_layers,
                  poisson_max(atoms_per_cell(s, &lm->g)), 1);
    alloc_H(lm);
}

void layer_matrix_free(LayerMatrix *lm)
{
    free(lm->cell_of);
    free(lm->layer_of);
    free(lm->count);
    free(lm->H);
}

void layer_matrix_build(LayerMatrix *lm, Sim *s)
{
    cells_assign(&lm->g, s->r, s->n, lm->cell_of);
    lm->nl = layers_assign(lm->cell_of, s->n, lm->g.ncells, lm->count, lm->layer_of);
    s->stats.layers = lm->nl;
    if (capacity_short(s, &lm->cap, (size_t)lm->nl)) alloc_H(lm);
    const size_t cap = lm->cap.cap;
    for (size_t k = 0; k < cap * lm->g.ncells; k++) lm->H[k] = -1;
    for (int i = 0; i < s->n; i++) lm->H[lm->cell_of[i] * cap + lm->layer_of[i]] = i;
}

double layer_matrix_bytes(const LayerMatrix *lm, int n)
{
    return sizeof(int) * (2.0 * n + lm->g.ncells + (double)lm->cap.cap * lm->g.ncells);
}

int layer_matrix_reorder(const LayerMatrix *lm, Sim *s)
{
    int *order = nbr_alloc(sizeof(int) * s->n, "reorder permutation");
    const int k = layers_cell_order(lm->H, lm->count, lm->g.ncells, (long)lm->cap.cap, order);
    if (k == s->n) reorder_atoms(s, order);
    free(order);
    return k == s->n;   /* H describes the atoms only after a build */
}

static void alloc_W(NeighbourMatrix *nm, int n)
{
    free(nm->W);
    nm->W = nbr_alloc(sizeof(int) * (nm->cap.cap + 1) * n, "neighbour matrix"); /* + spare row */
}

void neighbour_matrix_init(NeighbourMatrix *nm, Sim *s)
{
    nm->count = nbr_alloc(sizeof(int) * s->n, "neighbour counts");
    nm->W = NULL;
    capacity_init(&nm->cap, s->variant->name, "neighbour matrix", "neighbours per atom", "max-nbr", s->p.max_nbr,
                  nbr_start_estimate(s, poisson_max(neighbours_within(s, s->rn))), 1);
    alloc_W(nm, s->n);
}

void neighbour_matrix_free(NeighbourMatrix *nm)
{
    free(nm->W);
    free(nm->count);
}

/* Fills W from H: each atom scans the 27 cells around its own; counts past the capacity
 * without storing. Returns the largest m_i. */
static int fill(NeighbourMatrix *nm, const LayerMatrix *lm, const Sim *s)
{
    const CellGrid *g = &lm->g;
    const vec3 *restrict r = s->r;
    const int *restrict H = lm->H;
    int *restrict W = nm->W, *restrict nnbr = nm->count;
    const size_t n = s->n, lcap = lm->cap.cap;
    const int rows = (int)nm->cap.cap, nl = lm->nl;
    const real rn2 = s->rn * s->rn;
    int most = 0;
    for (int i = 0; i < s->n; i++) {
        const int ci = lm->cell_of[i];
        const int cx = ci % g->G, cy = ci / g->G % g->G, cz = ci / (g->G * g->G);
        const vec3 ri = r[i];
        int m = 0;
        for (int k = 0; k < FULL_OFFSETS; k++) {
            const CellImage im = cell_image(g, cx, cy, cz, k);
            const int *h = H + im.cell * lcap;
            for (int l = 0; l < nl && h[l] >= 0; l++) {
                const int j = h[l];
                const real dx = ri.x - r[j].x - im.shift.x, dy = ri.y - r[j].y - im.shift.y,
                           dz = ri.z - r[j].z - im.shift.z;
                /* store always (past the capacity into the spare row), advance if a
                 * neighbour: no branch to mispredict */
                W[(m < rows ? m : rows) * n + i] = j;
                m += (dx * dx + dy * dy + dz * dz < rn2) & (j != i);
            }
        }
        nnbr[i] = m;
        if (m > most) most = m;
    }
    return most;
}

void neighbour_matrix_build(NeighbourMatrix *nm, const LayerMatrix *lm, Sim *s)
{
    while (capacity_short(s, &nm->cap, (size_t)fill(nm, lm, s))) alloc_W(nm, s->n);
    double entries = 0;
    for (int i = 0; i < s->n; i++) entries += nm->count[i];
    s->stats.nbr_entries = entries;
}

double neighbour_matrix_bytes(const NeighbourMatrix *nm, int n) { return sizeof(int) * (n + (nm->cap.cap + 1.0) * n); }
