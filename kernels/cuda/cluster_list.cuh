/* cluster_list.cuh - the cluster-pair list on the GPU (Páll and Hess 2013's scheme, MD-Bench's
 * "cluster pair" variant): one list entry and one periodic shift serve a whole i-cluster, and the
 * force kernel loads each listed j once for every atom of the cluster (gpu-cluster).
 *
 * Geometry. The box is cut into G x G columns along x and y, of edge w = L / G close to the edge
 * of a cube holding C atoms, a = (C / rho)^(1/3); each column into Gz bins along z of height
 * hz ~ a / 2. The atoms are sorted by (column, bin) with the counting sort every GPU program
 * uses (cellsort.cuh: gated, so the device can decide the rebuild), then by z inside each bin
 * (a few atoms: a thread per bin), and r, v follow. A column's atoms are then in z order, and
 * are cut into i-clusters of C consecutive atoms; the last cluster of a column may hold fewer
 * (its empty slots are padding: no atom, never written). Every cluster has a bounding box.
 *
 * The list. For each i-cluster I a row of entries, the own cluster first. An entry is a j-unit:
 * Cj consecutive atoms of one cluster (Cj = 1: an atom, the "cluster x atom" list; Cj = C: a
 * whole cluster, GROMACS's cluster pair; Cj = C / 2: a half, its 8x4), listed when the distance
 * between I's box and the unit's box, moved by one periodic image S, is under r_n (an atom also
 * within r_n of one of I's atoms):
 *   entry = first atom << 8 | (real atoms - 1) << 5 | shift code
 *   code  = (sx + 1) + 3 (sy + 1) + 9 (sz + 1), S = (sx, sy, sz) L, 13 = no shift
 * so no pair needs a minimum image, and padding is masked by the unit's atom count (a unit
 * never reaches into the next cluster). The own cluster's entries (code 13) come first, so
 * the force kernel masks the pair i = j in its first batch only. Rows have a fixed stride
 * (cap entries; the harness's capacity policy: grown and rebuilt, or one line at --max-nbr).
 *
 * Coverage: an atom pair (i, j) within r_n has |r_i - (r_j + S)| < r_n for its image S, so
 * the distance between I's box and j's unit moved by S is under r_n too: the entry is there.
 * No unit is listed twice with one shift (each column image and bin segment is visited
 * once), and with r_c < L/2 at most one image of j is within r_c of i, so each pair counts
 * once. What a list covers is enumerated on the host (cluster_list_pairs) for --check and
 * --verify-lists: the covered atom pairs within r_n against brute force. */
#ifndef NBR_CLUSTER_LIST_CUH
#define NBR_CLUSTER_LIST_CUH

#include "pair_force.cuh"

/* The test builds' planted faults (Makefile: test-cluster-plant-K; tests/cases_57_cluster.sh),
 * each one the check must catch: 1 the search drops the atom after the cluster's last in its
 * column (a neighbour: the next cluster's first, just above it in z), 2 a shift along x
 * with the wrong sign, 3 the force kernel's mask drops the pair (i, i + 1) as well as (i, i),
 * 4 a j-unit's padding slot read as an atom; --prune's: 5 the inner rows cut at r_c (no buffer),
 * 6 no prune between rebuilds (integrate.cu's decision too), 7 a batch's last kept entry not
 * copied. 0 in every other build: the tests fold away. */
#ifndef CLUSTER_PLANT
#define CLUSTER_PLANT 0
#endif

/* entry = first << ENTRY_FIRST | (atoms - 1) << ENTRY_ATOMS | code: first atoms < 2^24 */
enum { ENTRY_FIRST = 8, ENTRY_ATOMS = 5, ENTRY_CODE_MASK = 31, SHIFT_NONE = 13, CLUSTER_MAX_ATOMS = 1 << 24 };

struct ClusterGeom {
    int C, Cj;          /* atoms per i-cluster, per j-unit */
    int G, Gz;          /* columns per axis, bins per column */
    int ncols, nbins;   /* G^2, G^2 Gz */
    int max_clusters;   /* n / C + G^2 bounds every sum of ceil(column atoms / C) */
    int units;          /* j-units per cluster, C / Cj */
    real L, w, inv_w, hz, inv_hz, rn;
};

/* The column-major bin of a position: (cy G + cx) Gz + bz, so a column's bins are consecutive
 * in the sorted order (a functor for cellsort_count). */
struct ColumnBins {
    ClusterGeom geo;
    __device__ __forceinline__ int operator()(const real4 &r) const
    {
        const int cx = cell_coord(r.x, geo.L, geo.inv_w, geo.G), cy = cell_coord(r.y, geo.L, geo.inv_w, geo.G);
        const int bz = cell_coord(r.z, geo.L, geo.inv_hz, geo.Gz);
        return (cy * geo.G + cx) * geo.Gz + bz;
    }
};

struct ClusterList {
    ClusterGeom geo;
    CellSort sort;                 /* key, slot, perm per atom; count, start, end per bin */
    int *col_ncl, *col_cl, *col_cl_end;   /* per column: clusters, first cluster, one past its last */
    int *cl_first, *cl_count;      /* per cluster: first atom, real atoms (0: no such cluster) */
    real4 *bb_lo, *bb_hi;          /* per j-unit (cluster c, unit k: c * units + k); I's box: its units' union */
    int *row_count;                /* per cluster: entries in its row (all found, stored or not) */
    int *status_units;             /* device: the clusters of the last build (col_cl_end of the last column) */
};

/* The geometry for n atoms in a box of edge L at density n / L^3, i-clusters of C atoms and
 * j-units of Cj (Cj divides C); the arrays held in g (device memory counted). */
void cluster_list_init(ClusterList *cl, GpuSim *g, int n, real L, real rn, int C, int Cj, const char *who);
void cluster_list_free(ClusterList *cl, GpuSim *g);

/* A build: sort (r, v permuted to the cluster order), the cluster table and boxes, then the rows
 * into out.W (stride out.nbr_cap; row_count; out.status: nbr_max = the longest row, nbr_total =
 * the pair slots of real atoms, i x j). sort_and_table: the first part; search: the rows, again
 * after a capacity growth. Every kernel returns at once unless *gate (NULL: always). */
void cluster_list_sort_and_table(ClusterList *cl, real4 *r, real4 *r_alt, real4 *v, real4 *v_alt, int n,
                                 const int *gate, int threads, cudaStream_t stream);
void cluster_list_search(ClusterList *cl, const real4 *r, int n, int *W, int cap, BuildStatus *status,
                         const int *gate, cudaStream_t stream);

/* The covered pairs (i, j), i != j, within r_n of each other through the entry's own shift,
 * from host copies of the table and rows (for_each_pair); returns the rows' slots of real
 * atoms (i x j) and, in *within_rc, how many of them lie within rc. */
double cluster_list_pairs(const ClusterList *cl, GpuSim *g, int n, int cap, real rc, PairFn fn, void *arg,
                          double *within_rc);
/* The same over other rows of the same stride and table (--prune's inner rows) */
double cluster_rows_pairs(const ClusterList *cl, GpuSim *g, const unsigned *W_dev, const int *rows_dev, int n, int cap,
                          real rc, PairFn fn, void *arg, double *within_rc);

/* Bytes a build moves at least: the counting sort (keys, slots, bins, perm, r and v there and
 * back), the table and boxes, and the search (the positions of its candidates read once per
 * cluster row from L2 are not counted: r once, the rows written). */
double cluster_list_bytes(const ClusterGeom &geo, double n, double entries);

/* ---- the force kernel (cluster_force.cu) ----------------------------------------------- */

/* The forces on every real atom from its cluster's row: a warp per i-cluster in blocks of
 * CLUSTER_FORCE_THREADS (the harness's --threads sizes the per-atom launches), f_i written, and
 * where energy u_i and the block sums of u and the virial into the partials as
 * pair_force_kernel leaves them (A.group force blocks per partial). A.W, A.nbr_cap: the rows;
 * A.pos: r. */
enum { CLUSTER_FORCE_THREADS = 128 };
static inline int cluster_force_blocks(const ClusterGeom &geo)
{
    return (geo.max_clusters + CLUSTER_FORCE_THREADS / 32 - 1) / (CLUSTER_FORCE_THREADS / 32);
}
/* --prune (GROMACS's dynamic pruning): a second row per i-cluster (W, the rows' stride; count)
 * keeps the entries with a slot within sqrt(rin2) = r_c + buffer of a cluster atom. The force
 * kernel that prunes evaluates the rows and rewrites the inner rows; the others read the inner
 * rows. mode: PRUNE_OFF (the rows only), PRUNE_NOW or PRUNE_INNER (the host's decision), or
 * PRUNE_DEVICE (*flag: the device loop's prune_now, decide_step's rule). */
enum { PRUNE_OFF, PRUNE_NOW, PRUNE_INNER, PRUNE_DEVICE };
struct ClusterPruneSpec {
    unsigned *W;
    int *count;
    const int *flag;
    int mode;
    double rin2;
};
/* The host's decision, decide_step's rule: prune at a rebuild, or once the summed largest
 * displacement since the last prune reaches the threshold (--rebuild-frac x the buffer). */
int cluster_prune_due(int rebuilt, double disp, double disp_pruned, double threshold);
void cluster_force_launch(const PairForceArgs &A, const ClusterList &cl, const ClusterPruneSpec &prune, int potential,
                          int energy, cudaStream_t stream);
/* r of the clusters' atoms once, the rows, each listed unit's atoms once per row (from L2 /
 * L1), a written */
double cluster_force_bytes(const ClusterGeom &geo, double n, double entries);

#endif
