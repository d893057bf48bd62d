/* cells.c - cell grid set-up and the host cell assignments. */
#include "../cells.h"
#include "../../common/fail.h"

#include <math.h>

/* The half set: the cell itself, then 13 offsets whose opposites are all in the other half. */
const int cell_offsets[27][3] = {
    {0, 0, 0},   {1, 0, 0},   {1, 1, 0},  {0, 1, 0},  {-1, 1, 0}, {0, 0, 1},   {1, 0, 1},
    {1, 1, 1},   {0, 1, 1},   {-1, 1, 1}, {-1, 0, 1}, {-1, -1, 1}, {0, -1, 1}, {1, -1, 1},
    /* the opposite of offset k (1..13) is offset k + 13 */
    {-1, 0, 0},  {-1, -1, 0}, {0, -1, 0}, {1, -1, 0}, {0, 0, -1}, {-1, 0, -1}, {-1, -1, -1},
    {0, -1, -1}, {1, -1, -1}, {1, 0, -1}, {1, 1, -1}, {0, 1, -1}, {-1, 1, -1}};

CellGrid cells_init(real L, double min_width, long natoms, const char *who)
{
    CellGrid g;
    g.L = L;
    g.G = (int)floor((double)L / min_width);
    const double most = 8.0 * natoms + 27;   /* cells beyond this would be nearly all empty */
    if (g.G >= 3 && (double)g.G * g.G * g.G > most) {
        g.G = (int)floor(cbrt(most));
        if (g.G < 3) g.G = 3;
    }
    if (g.G < 3)
        nbr_fail(2, "%s: box edge L = %.4g holds only %d cell(s) of width >= %.4g per axis; "
                    "cells need at least 3 per axis (L >= %.4g): raise --ne, lower --rho or --delta",
                 who, (double)L, g.G, min_width, 3 * min_width);
    if ((double)g.G * g.G * g.G > 2e9)
        nbr_fail(2, "%s: %d^3 cells exceed the 2e9-cell limit of 32-bit cell indices", who, g.G);
    g.ncells = g.G * g.G * g.G;
    g.w = L / (real)g.G;
    g.inv_w = (real)g.G / L;
    return g;
}

void cells_assign(const CellGrid *g, const vec3 *r, int n, int *cell_of)
{
    for (int i = 0; i < n; i++)
        cell_of[i] = cell_index(cell_coord(r[i].x, g->L, g->inv_w, g->G),
                                cell_coord(r[i].y, g->L, g->inv_w, g->G),
                                cell_coord(r[i].z, g->L, g->inv_w, g->G), g->G);
}

void cells_link(const CellGrid *g, const vec3 *r, int n, int *head, int *next)
{
    for (int c = 0; c < g->ncells; c++) head[c] = -1;
    /* Insert in reverse so each cell lists its atoms in increasing index order. */
    for (int i = n - 1; i >= 0; i--) {
        int c = cell_index(cell_coord(r[i].x, g->L, g->inv_w, g->G),
                           cell_coord(r[i].y, g->L, g->inv_w, g->G),
                           cell_coord(r[i].z, g->L, g->inv_w, g->G), g->G);
        next[i] = head[c];
        head[c] = i;
    }
}
