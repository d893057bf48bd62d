/* cpu_lists.c - linked cells, the grouped list build and capacities shared by the CPU list
 * variants (see cpu_lists.h for why they are shared). */
#include "cpu_lists.h"

#include <math.h>
#include <stdlib.h>

/* ---- capacities ------------------------------------------------------------------------ */

void require_host_reorder(const Sim *s)
{
    if (s->p.reorder_at != WHERE_HOST)
        nbr_fail(2, "%s: --reorder-at %s needs a GPU variant; a CPU program reorders on the host",
                 s->variant->name, where_names[s->p.reorder_at]);
}

double atoms_per_cell(const Sim *s, const CellGrid *g) { return (double)s->n / g->ncells; }

double state_bytes(const Sim *s) { return (double)s->n * (3 * sizeof(vec3) + sizeof(real)); }

void image_half_shift_table(real L, vec3 table[64])
{
    const real b[4] = {0, (real)0.5 * L, (real)-0.5 * L, 0}; /* code 3 never occurs */
    for (int code = 0; code < 64; code++)
        table[code] = (vec3){b[code & 3], b[(code >> 2) & 3], b[(code >> 4) & 3]};
}

/* ---- linked-list cells ----------------------------------------------------------------- */

void lcells_init(LinkedCells *lc, Sim *s, double min_width)
{
    lc->g = cells_init(s->L, min_width, s->n, s->variant->name);
    lc->head = nbr_alloc(sizeof(int) * lc->g.ncells, "cell heads");
    lc->next = nbr_alloc(sizeof(int) * s->n, "cell links");
    s->stats.cells_per_axis = lc->g.G;
}

void lcells_free(LinkedCells *lc)
{
    free(lc->head);
    free(lc->next);
}

double lcells_bytes(const LinkedCells *lc, int n) { return sizeof(int) * ((double)lc->g.ncells + n); }

void lcells_assign(LinkedCells *lc, Sim *s)
{
    cells_link(&lc->g, s->r, s->n, lc->head, lc->next);
    int most = 0;
    for (int c = 0; c < lc->g.ncells; c++) {
        int k = 0;
        for (int i = lc->head[c]; i >= 0; i = lc->next[i]) k++;
        if (k > most) most = k;
    }
    s->stats.layers = most;
}

int lcells_reorder(LinkedCells *lc, Sim *s)
{
    cells_link(&lc->g, s->r, s->n, lc->head, lc->next);
    int *order = nbr_alloc(sizeof(int) * s->n, "reorder permutation");
    int k = 0;
    for (int c = 0; c < lc->g.ncells; c++)
        for (int i = lc->head[c]; i >= 0; i = lc->next[i]) order[k++] = i;
    reorder_atoms(s, order);
    free(order);
    /* the links now name old indices; the build that follows relinks */
    return 1;
}

/* ---- neighbours grouped by atom --------------------------------------------------------- */

static void grouped_alloc(GroupedList *gl, int n)
{
    free(gl->t);
    gl->t = nbr_alloc(sizeof(int) * (gl->cap.cap * n + 1), "neighbour list"); /* + spare slot */
}

void grouped_init(GroupedList *gl, Sim *s, int newton)
{
    const double full = neighbours_within(s, s->rn);
    capacity_init(&gl->cap, s->variant->name, "neighbour list", "neighbours per atom (mean)",
                  "max-nbr", s->p.max_nbr, nbr_start_estimate(s, newton ? full / 2 : full), 1);
    gl->newton = newton;
    gl->p = nbr_alloc(sizeof(int) * (s->n + 1), "neighbour list offsets");
    gl->t = NULL;
    grouped_alloc(gl, s->n);
}

void grouped_free(GroupedList *gl)
{
    free(gl->p);
    free(gl->t);
}

double grouped_bytes(const GroupedList *gl, int n)
{
    return sizeof(int) * ((double)n + 1 + (double)gl->cap.cap * n + 1);
}

/* One pass over the atoms; counts past the capacity without storing, so the caller learns
 * the exact need. Returns the number of entries found. */
static size_t grouped_pass(Sim *s, const LinkedCells *lc, GroupedList *gl)
{
    const CellGrid *g = &lc->g;
    const vec3 *restrict r = s->r;
    const int *restrict head = lc->head, *restrict next = lc->next;
    int *restrict t = gl->t, *restrict p = gl->p;
    const size_t room = gl->cap.cap * (size_t)s->n;
    const real rn2 = s->rn * s->rn;
    const int noffsets = gl->newton ? HALF_OFFSETS : FULL_OFFSETS;
    size_t m = 0;
    for (int i = 0; i < s->n; i++) {
        p[i] = (int)(m < room ? m : room);
        const int cx = cell_coord(r[i].x, g->L, g->inv_w, g->G),
                  cy = cell_coord(r[i].y, g->L, g->inv_w, g->G),
                  cz = cell_coord(r[i].z, g->L, g->inv_w, g->G);
        for (int k = 0; k < noffsets; k++) {
            const CellImage im = cell_image(g, cx, cy, cz, k);
            const real xi = r[i].x - im.shift.x, yi = r[i].y - im.shift.y, zi = r[i].z - im.shift.z;
            /* in i's own cell: Newton 3 keeps the atoms after i (list order is index order),
             * the full list every atom but i */
            for (int j = k == 0 && gl->newton ? next[i] : head[im.cell]; j >= 0; j = next[j]) {
                const real dx = xi - r[j].x, dy = yi - r[j].y, dz = zi - r[j].z;
                /* store always (past the capacity into the spare slot), advance if a
                 * neighbour: no branch to mispredict */
                t[m < room ? m : room] = j;
                m += (dx * dx + dy * dy + dz * dz < rn2) & (j != i);
            }
        }
    }
    p[s->n] = (int)(m < room ? m : room);
    return m;
}

void grouped_build(Sim *s, const LinkedCells *lc, GroupedList *gl)
{
    size_t m;
    for (;;) {
        m = grouped_pass(s, lc, gl);
        if (!capacity_short(s, &gl->cap, (m + s->n - 1) / s->n)) break;
        grouped_alloc(gl, s->n); /* grown: build again */
    }
    if (m > (size_t)0x7fffffff) nbr_fail(3, "%s: %zu list entries exceed 32-bit offsets", s->variant->name, m);
    s->stats.nbr_entries = (gl->newton ? 2.0 : 1.0) * (double)m;
}

int grouped_stage_init(Sim *s, int newton)
{
    require_host_reorder(s);
    GroupedCtx *c = calloc(1, sizeof *c);
    if (!c) return 1;
    s->ctx = c;
    lcells_init(&c->lc, s, s->rn);
    grouped_init(&c->list, s, newton);
    return 0;
}

void grouped_stage_finish(Sim *s)
{
    GroupedCtx *c = s->ctx;
    lcells_free(&c->lc);
    grouped_free(&c->list);
    free(c);
}

int grouped_stage_reorder(Sim *s) { return lcells_reorder(&((GroupedCtx *)s->ctx)->lc, s); }

void grouped_stage_build(Sim *s)
{
    GroupedCtx *c = s->ctx;
    lcells_assign(&c->lc, s);
    grouped_build(s, &c->lc, &c->list);
    s->stats.bytes = state_bytes(s) + lcells_bytes(&c->lc, s->n) + grouped_bytes(&c->list, s->n);
}

void grouped_stage_pairs(Sim *s, PairFn fn, void *arg)
{
    const GroupedList *gl = &((GroupedCtx *)s->ctx)->list;
    for (int i = 0; i < s->n; i++)
        for (int m = gl->p[i]; m < gl->p[i + 1]; m++) fn(i, gl->t[m], arg);
}
