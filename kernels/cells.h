/* cells.h - the cell grid: G = floor(L / w_min) cells per axis, w = L / G >= w_min.
 *
 * With G >= 3 the 27 cells around a cell are distinct, so each neighbour pair is found
 * exactly once per direction; G < 3 is refused (cells_init says which limit and what to
 * change). Offsets are listed so that the first 14 are the "half" set used with Newton's
 * third law: the cell itself plus 13 of the 26 neighbours, no two of which are opposite. */
#ifndef NBR_CELLS_H
#define NBR_CELLS_H

#include "../common/real.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int G;          /* cells per axis */
    int ncells;     /* G^3 */
    real w;         /* cell edge */
    real inv_w;     /* 1 / w */
    real L;
} CellGrid;

/* Index of offset k (0..26) in each axis; k < 14 is the half set. */
extern const int cell_offsets[27][3];
enum { HALF_OFFSETS = 14, FULL_OFFSETS = 27 };

/* Sets up the grid for cells at least min_width wide; exits with a message if G < 3.
 * Cells are made wider than min_width where more than 8 N + 27 cells would be needed (a
 * dilute system): storage stays bounded by the number of atoms. `who` names the program. */
CellGrid cells_init(real L, double min_width, long natoms, const char *who);

/* Cell coordinate of x in [-L/2, L/2): clamped so rounding at x -> L/2 stays inside. */
NBR_HD int cell_coord(real x, real L, real inv_w, int G)
{
    int c = (int)((x + (real)0.5 * L) * inv_w);
    return c < 0 ? 0 : (c >= G ? G - 1 : c);
}

NBR_HD int cell_index(int cx, int cy, int cz, int G) { return (cz * G + cy) * G + cx; }

/* Neighbour cell of (cx,cy,cz) at offset (dx,dy,dz), wrapped; *shift receives the
 * coordinate correction (0 or +-L per axis) to add to the neighbour's position. */
NBR_HD int cell_neighbor(int cx, int cy, int cz, int dx, int dy, int dz, int G, real L,
                         vec3 *shift)
{
    int nx = cx + dx, ny = cy + dy, nz = cz + dz;
    shift->x = shift->y = shift->z = 0;
    if (nx < 0) { nx += G; shift->x = -L; } else if (nx >= G) { nx -= G; shift->x = L; }
    if (ny < 0) { ny += G; shift->y = -L; } else if (ny >= G) { ny -= G; shift->y = L; }
    if (nz < 0) { nz += G; shift->z = -L; } else if (nz >= G) { nz -= G; shift->z = L; }
    return cell_index(nx, ny, nz, G);
}

/* Linked-list cells (the paper's q_j): head[c] is the first atom of cell c, next[i] the
 * following one, -1 ends a list. Used by the CPU list builds. */
void cells_link(const CellGrid *g, const vec3 *r, int n, int *head, int *next);

/* Cell of every atom (the paper's c_i). */
void cells_assign(const CellGrid *g, const vec3 *r, int n, int *cell_of);

#ifdef __cplusplus
}
#endif
#endif
