/* cluster_list.h - the cluster-pair list on the CPU (cpu-cluster): GROMACS's 4xM scheme.
 *
 * At every build the atoms are sorted into G x G columns along x and y (edge close to that of a
 * cube holding C atoms), by z inside a column, and r, v, q follow (reorder_atoms); a column's
 * atoms are cut into j-clusters of C = M atoms (M the SIMD width: one j-cluster is one vector
 * load) and each j-cluster into i-units of 4. Each i-unit has a row of entries
 * (kernels/cluster.h): j-clusters whose bounding box, moved by a periodic image, lies within r_n
 * of one of the unit's atoms; the own cluster first, those through an image last. Newton 3: a
 * cluster pair (A, B) is listed once, from A when B > A (or B = A with a shift code above 13);
 * the own cluster (code 13) with the mask j > i.
 * Coverage: a pair within r_n of each other is within r_n box to box, so its cluster pair is
 * tested with the pair's one image (L > 2 r_n) and kept from exactly one side. */
#ifndef NBR_CPU_CLUSTER_LIST_H
#define NBR_CPU_CLUSTER_LIST_H

#include "../cluster.h"
#include "stages.h"

/* The test builds' planted faults (Makefile: test-cpu-cluster-plant-K), each one --check must
 * catch: 1 the search drops the cluster just above the own one in its column (a cluster pair
 * skipped), 2 a column image's shift along x with the wrong sign, 3 the self mask drops
 * (i, i + 1) as well, 4 a j-cluster's padding lanes counted as atoms; --prune's: 5 the inner
 * rows cut at r_c (no buffer), 6 no prune between rebuilds. 0 in every other build. */
#ifndef CLUSTER_PLANT
#define CLUSTER_PLANT 0
#endif

enum { CLUSTER_I = 4, CLUSTER_SLACK = 16 };

typedef struct {
    int C;                   /* atoms per j-cluster (M); i-units of CLUSTER_I */
    int G, ncols;            /* columns per axis, G^2 */
    real L, w, rn;
    int ncl, nunits;         /* clusters, i-units (C / 4 per cluster) of the last build */
    int *col_cl;             /* ncols + 1: the clusters of column c are col_cl[c] .. col_cl[c+1] - 1 */
    int *cl_first, *cl_count;      /* per cluster */
    real *lo, *hi;                 /* per cluster, 3 each: bounding box */
    int *unit_first, *unit_count;  /* per i-unit (unit u of cluster u / (C/4)) */
    int *row_start;                /* nunits + 1 */
    unsigned *ent;                 /* the rows' entries: the own cluster, the unshifted, those
                                      through an image */
    size_t ent_cap;
    unsigned *shifted;             /* a row's entries through an image, while it is searched */
    size_t shifted_cap;
    int *order, *key;              /* sort scratch */
    double slots;                  /* pair slots the force loop evaluates (masks applied) */
    int cap_clusters;
} CpuClusterList;

void cpu_cluster_init(CpuClusterList *cl, Sim *s, int C);
void cpu_cluster_free(CpuClusterList *cl);
/* Sorts the atoms (r, v, a, q permuted) and builds the rows. */
void cpu_cluster_build(CpuClusterList *cl, Sim *s);
double cpu_cluster_bytes(const CpuClusterList *cl);
/* The covered pairs within r_n of the rows (row_start, ent: the list's own, or --prune's inner
 * ones; fn may be NULL); returns the slots, *within those within r_c. */
double cpu_cluster_pairs(const CpuClusterList *cl, const Sim *s, const int *row_start, const unsigned *ent, PairFn fn,
                         void *arg, double *within);

#endif
