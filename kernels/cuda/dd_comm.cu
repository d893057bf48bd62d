/* dd_comm.cu - MPI around gpu-dd's run: start, host collectives at rebuilds and sample points,
 * stopping every rank when one fails. The halo exchange itself is behind dd_halo.cuh's
 * interface, one file per backend (dd_halo_mpi.cu, dd_halo_nccl.cu, dd_halo_p2p.cu,
 * dd_halo_nvshmem.cu).
 *
 * Failures: dd_fail names the rank and stops every rank (MPI_Abort); any other exit before
 * MPI_Finalize (nbr_fail in the shared code, a CUDA error) goes through an exit hook that does
 * the same, so no rank is left waiting on one that died. A p2p wait that times out (a peer
 * stopped) is reported the same way. */
#include "dd_halo.cuh"

#include <mpi.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static int g_rank = 0, g_size = 1, g_finalized = 0;

/* ---- start and stop ----------------------------------------------------------------- */

static void exit_hook(int status, void *)
{
    int up = 0, down = 0;
    MPI_Initialized(&up);
    MPI_Finalized(&down);
    if (!up || down || g_finalized || status == 0) return;   /* --help and the like: every rank alike */
    if (g_size > 1) {
        fprintf(stderr, "gpu-dd: rank %d of %d stopped with exit code %d before the end of the run: stopping every "
                        "rank\n", g_rank, g_size, status);
        fflush(stderr);
        MPI_Abort(MPI_COMM_WORLD, status ? status : 1);
    }
}

void dd_mpi_init(int *argc, char ***argv, int *rank, int *size)
{
    if (MPI_Init(argc, argv) != MPI_SUCCESS) {
        fprintf(stderr, "gpu-dd: MPI_Init failed\n");
        exit(EXIT_INTERNAL);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    on_exit(exit_hook, NULL);
    *rank = g_rank;
    *size = g_size;
}

void dd_mpi_finalize(void)
{
    g_finalized = 1;
    MPI_Finalize();
}

void dd_abort_all(int code)
{
    if (g_size > 1) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

void dd_fail(int code, const char *fmt, ...)
{
    va_list ap;
    char line[1024];
    fflush(stdout);
    const int at = snprintf(line, sizeof line, "gpu-dd: rank %d: ", g_rank);
    va_start(ap, fmt);
    vsnprintf(line + at, sizeof line - at, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);   /* one write: the ranks' lines do not interleave */
    fflush(stderr);
    g_finalized = 1;   /* the hook would say it again */
    dd_abort_all(code);
    exit(code);
}

/* ---- host collectives --------------------------------------------------------------- */

void dd_mpi_check(int err, const char *what)
{
    if (err != MPI_SUCCESS) {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        MPI_Error_string(err, msg, &len);
        dd_fail(EXIT_INTERNAL, "MPI error in %s: %s", what, msg);
    }
}

void dd_allreduce_sum_ll(long long *x, int n)
{
    dd_mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_allreduce_sum_ull(unsigned long long *x, int n)
{
    dd_mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_barrier(void) { dd_mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

/* Reduced on rank 0 and broadcast: every rank gets the same bits (the loop's decisions
 * follow these numbers and must agree). */
static void reduce_bcast(double *x, int n, MPI_Op op)
{
    double tmp[16];
    if (n > 16) dd_fail(EXIT_INTERNAL, "internal: reduce of %d values", n);
    dd_mpi_check(MPI_Reduce(x, tmp, n, MPI_DOUBLE, op, 0, MPI_COMM_WORLD), "MPI_Reduce");
    if (g_rank == 0) memcpy(x, tmp, sizeof(double) * n);
    dd_mpi_check(MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
}

void dd_allreduce_sum_d(double *x, int n) { reduce_bcast(x, n, MPI_SUM); }

/* The loop's properties in one reduction: x[0..2] summed, x[3] the maximum. */
static void props_op(void *in, void *inout, int *len, MPI_Datatype *)
{
    const double *a = (const double *)in;
    double *b = (double *)inout;
    for (int k = 0; k + 3 < *len; k += 4) {
        b[k] += a[k]; b[k + 1] += a[k + 1]; b[k + 2] += a[k + 2];
        b[k + 3] = a[k + 3] > b[k + 3] ? a[k + 3] : b[k + 3];
    }
}

void dd_reduce_props(Props *all, double upot, double ukin, double virial, double vv_max)
{
    static MPI_Op op = MPI_OP_NULL;
    if (op == MPI_OP_NULL) dd_mpi_check(MPI_Op_create(props_op, 1, &op), "MPI_Op_create");
    double x[4] = {upot, ukin, virial, vv_max};
    reduce_bcast(x, 4, op);
    all->upot_sum = x[0];
    all->ukin_sum = x[1];
    all->virial_sum = x[2];
    all->vv_max = x[3];
}
void dd_allreduce_max_d(double *x, int n) { reduce_bcast(x, n, MPI_MAX); }

void dd_allreduce_max_i(int *x, int n)
{
    dd_mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_sendrecv_int(const int *send, int n, int to, int *recv, int from)
{
    dd_mpi_check(MPI_Sendrecv(send, n, MPI_INT, to, 7, recv, n, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
}

/* Every rank's bytes, concatenated in rank order, on every rank (malloc'd *all). */
void dd_allgatherv_bytes(const void *send, long long bytes, void **all, long long *total)
{
    long long *sizes = (long long *)nbr_alloc(sizeof(long long) * g_size, "gather sizes");
    dd_mpi_check(MPI_Allgather(&bytes, 1, MPI_LONG_LONG, sizes, 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
    long long sum = 0;
    for (int k = 0; k < g_size; k++) sum += sizes[k];
    if (sum > 0x7fffffffLL)
        dd_fail(EXIT_INTERNAL, "gather of %lld bytes over the MPI limit of 2^31 (the --check gather): lower --ne", sum);
    int *counts = (int *)nbr_alloc(sizeof(int) * g_size, "gather sizes"), *displs = (int *)nbr_alloc(sizeof(int) * g_size, "gather sizes");
    int at = 0;
    for (int k = 0; k < g_size; k++) {
        counts[k] = (int)sizes[k];
        displs[k] = at;
        at += counts[k];
    }
    *all = nbr_alloc((size_t)sum + 1, "gathered atoms");
    dd_mpi_check(MPI_Allgatherv(send, (int)bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgatherv");
    *total = sum;
    free(sizes);
    free(counts);
    free(displs);
}

int dd_local_rank(int *local_size)
{
    MPI_Comm local;
    int r = 0, size = 1;
    dd_mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type");
    MPI_Comm_rank(local, &r);
    MPI_Comm_size(local, &size);
    MPI_Comm_free(&local);
    if (local_size) *local_size = size;
    return r;
}
