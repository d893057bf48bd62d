/* dd_comm.cu - gpu-dd's communication: MPI around the run (start, host collectives at
 * rebuilds and sample points, stopping every rank when one fails) and the exchange
 * backends of the coordinate halo (--comm):
 *   mpi   the CPU-driven schedule of the paper: pack kernel, the host waits, copies to pinned
 *         memory, MPI_Sendrecv (Open MPI here is not CUDA-aware), copies back; per pulse
 *   nccl  ncclSend / ncclRecv of the packed buffer straight into the receiver's ghost slots,
 *         enqueued on the stream (no host wait). libnccl is opened at run time (dlopen), so
 *         the program builds where only nccl.h exists and runs where the library does
 *   p2p   peer pointers (CUDA IPC): the pack kernel writes straight into the neighbour's
 *         position array over NVLink, each block then raises a counter in the neighbour's
 *         memory; the receiver's stream waits on the counter (one-thread kernel, with a
 *         timeout), the GPU-initiated pattern of the paper without NVSHMEM
 *   nvshmem  the paper's: fused pack + put-with-signal, the receiver waits on the signal
 *         (dd_nvshmem.cu, where NVSHMEM is found)
 * Migration and the ghost lists (at rebuilds only) go host-staged through MPI for mpi, p2p and
 * nvshmem, through NCCL for nccl.
 *
 * Failures: dd_fail names the rank and stops every rank (MPI_Abort); any other exit before
 * MPI_Finalize (nbr_fail in the shared code, a CUDA error) goes through an exit hook that does
 * the same, so no rank is left waiting on one that died. A p2p wait that times out (a peer
 * stopped) is reported the same way. */
#include "dd.cuh"

#include <mpi.h>
#ifdef NBR_NCCL
#include <dlfcn.h>
#include <nccl.h>
#endif

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

static void mpi_check(int err, const char *what)
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
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_allreduce_sum_ull(unsigned long long *x, int n)
{
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_UNSIGNED_LONG_LONG, MPI_SUM, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_barrier(void) { mpi_check(MPI_Barrier(MPI_COMM_WORLD), "MPI_Barrier"); }

/* Reduced on rank 0 and broadcast: every rank gets the same bits (the loop's decisions
 * follow these numbers and must agree). */
static void reduce_bcast(double *x, int n, MPI_Op op)
{
    double tmp[16];
    if (n > 16) dd_fail(EXIT_INTERNAL, "internal: reduce of %d values", n);
    mpi_check(MPI_Reduce(x, tmp, n, MPI_DOUBLE, op, 0, MPI_COMM_WORLD), "MPI_Reduce");
    if (g_rank == 0) memcpy(x, tmp, sizeof(double) * n);
    mpi_check(MPI_Bcast(x, n, MPI_DOUBLE, 0, MPI_COMM_WORLD), "MPI_Bcast");
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
    if (op == MPI_OP_NULL) mpi_check(MPI_Op_create(props_op, 1, &op), "MPI_Op_create");
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
    mpi_check(MPI_Allreduce(MPI_IN_PLACE, x, n, MPI_INT, MPI_MAX, MPI_COMM_WORLD), "MPI_Allreduce");
}

void dd_sendrecv_int(const int *send, int n, int to, int *recv, int from)
{
    mpi_check(MPI_Sendrecv(send, n, MPI_INT, to, 7, recv, n, MPI_INT, from, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
}

/* Every rank's bytes, concatenated in rank order, on every rank (malloc'd *all). */
void dd_allgatherv_bytes(const void *send, long long bytes, void **all, long long *total)
{
    long long *sizes = (long long *)nbr_alloc(sizeof(long long) * g_size, "gather sizes");
    mpi_check(MPI_Allgather(&bytes, 1, MPI_LONG_LONG, sizes, 1, MPI_LONG_LONG, MPI_COMM_WORLD), "MPI_Allgather");
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
    mpi_check(MPI_Allgatherv(send, (int)bytes, MPI_BYTE, *all, counts, displs, MPI_BYTE, MPI_COMM_WORLD),
              "MPI_Allgatherv");
    *total = sum;
    free(sizes);
    free(counts);
    free(displs);
}

/* ---- backends ----------------------------------------------------------------------- */

#ifdef NBR_NCCL
/* The NCCL entry points gpu-dd uses, from libnccl opened at run time. */
struct NcclApi {
    decltype(&ncclGetUniqueId) GetUniqueId;
    decltype(&ncclCommInitRank) CommInitRank;
    decltype(&ncclCommDestroy) CommDestroy;
    decltype(&ncclSend) Send;
    decltype(&ncclRecv) Recv;
    decltype(&ncclAllReduce) AllReduce;
    decltype(&ncclGroupStart) GroupStart;
    decltype(&ncclGroupEnd) GroupEnd;
    decltype(&ncclGetErrorString) GetErrorString;
};
#endif

struct DdComm {
    int kind;
    /* mpi staging, grown on demand */
    void *host_send, *host_recv;
    size_t host_bytes;
#ifdef NBR_NCCL
    NcclApi nccl;
    ncclComm_t nccl_comm;
#endif
    /* p2p */
    unsigned long long *signals;          /* this rank's arrival counters, one per pulse (IPC-exported) */
    real4 *exported_r;                    /* the r whose handle the peers hold */
    int r_generation;
    struct IpcCard *card;                 /* this rank's handles for exported_r (cudaIpcGetMemHandle once per r) */
    /* p2p --decide device: [q] the last round whose vote rank q has delivered here, [P + parity * P + q]
     * its vote of a round of that parity (two rows: a peer may be one round ahead, never two: it
     * needs this rank's vote of the round between) */
    unsigned long long *votes;
    unsigned long long **peer_votes_dev;  /* device: every rank's votes as mapped here */
    struct Peer {
        real4 *r, *a;   /* a, u: --dd-newton on, the force halo pulls the ghosts' forces */
        real *u;
        unsigned long long *signals, *votes;
        int r_generation;
    } *peers;
};

#ifdef NBR_NCCL
static void nccl_check(Dd *d, ncclResult_t err, const char *what)
{
    if (err != ncclSuccess) dd_fail(EXIT_INTERNAL, "NCCL error in %s: %s", what, d->comm->nccl.GetErrorString(err));
}

static void nccl_open(Dd *d)
{
    const char *path = getenv("NBR_NCCL_LIB");
    void *lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
#ifdef NBR_NCCL_PATH
    if (!lib && !(path && *path)) lib = dlopen(NBR_NCCL_PATH, RTLD_NOW | RTLD_GLOBAL);   /* found at build time */
#endif
    if (!lib && !(path && *path)) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        dd_fail(EXIT_INTERNAL, "--comm nccl: cannot open the NCCL library (%s): set LD_LIBRARY_PATH or NBR_NCCL_LIB to libnccl.so.2",
                dlerror());
    NcclApi *a = &d->comm->nccl;
#define NBR_NCCL_SYM(f) \
    if (!(*(void **)&a->f = dlsym(lib, "nccl" #f))) dd_fail(EXIT_INTERNAL, "--comm nccl: the NCCL library lacks nccl" #f);
    NBR_NCCL_SYM(GetUniqueId) NBR_NCCL_SYM(CommInitRank) NBR_NCCL_SYM(CommDestroy) NBR_NCCL_SYM(Send)
    NBR_NCCL_SYM(Recv) NBR_NCCL_SYM(AllReduce) NBR_NCCL_SYM(GroupStart) NBR_NCCL_SYM(GroupEnd) NBR_NCCL_SYM(GetErrorString)
#undef NBR_NCCL_SYM
    ncclUniqueId id;
    if (g_rank == 0) nccl_check(d, a->GetUniqueId(&id), "ncclGetUniqueId");
    mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    nccl_check(d, a->CommInitRank(&d->comm->nccl_comm, g_size, id, g_rank), "ncclCommInitRank");
}
#endif

/* The same rank's handles, gathered: what every peer needs to map this rank's memory. */
struct IpcCard {
    cudaIpcMemHandle_t r, a, u, signals, votes;
    int r_generation;
};

static void p2p_open(Dd *d)
{
    DdComm *c = d->comm;
    /* [k]: pulse k's coordinates arrived; [DD_PULSES + k]: its ghosts' forces are ready (--dd-newton on) */
    c->signals = (unsigned long long *)gpu_alloc(d->g, sizeof(unsigned long long) * 2 * DD_PULSES, "p2p signals");
    CUDA_CHECK(cudaMemset(c->signals, 0, sizeof(unsigned long long) * 2 * DD_PULSES));
    const size_t vb = sizeof(unsigned long long) * 3 * g_size;
    c->votes = (unsigned long long *)gpu_alloc(d->g, vb, "p2p vote slots");
    CUDA_CHECK(cudaMemset(c->votes, 0, vb));
    c->peers = (DdComm::Peer *)calloc(g_size, sizeof *c->peers);
    if (!c->peers) dd_fail(EXIT_INTERNAL, "out of host memory");
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Maps what changed since the last call: the peers' r arrays (reallocated when they grow)
 * and, the first time, their signal counters. */
static void p2p_refresh(Dd *d)
{
    DdComm *c = d->comm;
    if (!c->card) c->card = (IpcCard *)nbr_alloc(sizeof(IpcCard), "IPC handles");
    IpcCard *mine = c->card;
    /* the handles again only when r (and with it a, u) moved, not at each of a rebuild's three
     * refreshes (the refresh phase, handles, all-gather and offsets, took 0.25 ms per rebuild
     * at SP 8M on 2 GPUs, NBR_DD_PROFILE at 0c39b75) */
    if (c->exported_r != d->g->r) {
        c->exported_r = d->g->r;
        c->r_generation++;
        memset(mine, 0, sizeof *mine);
        if (g_size > 1) {
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->r, d->g->r));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->a, d->g->a));   /* reallocated with r (ensure_atoms) */
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->u, d->g->u));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->signals, c->signals));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->votes, c->votes));
        }
        mine->r_generation = c->r_generation;
    }
    IpcCard *cards = (IpcCard *)nbr_alloc(sizeof(IpcCard) * g_size, "IPC handles");
    mpi_check(MPI_Allgather(mine, sizeof *mine, MPI_BYTE, cards, sizeof *mine, MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
    /* --decide device: every rank's vote slots, the first time (each rank votes to all) */
    for (int q = 0; d->run_ahead && !c->peer_votes_dev && q < g_size; q++) {
        if (q == d->rank) continue;
        void *ptr = NULL;
        cudaError_t err = cudaIpcOpenMemHandle(&ptr, cards[q].votes, cudaIpcMemLazyEnablePeerAccess);
        if (err != cudaSuccess)
            dd_fail(EXIT_INTERNAL, "--comm p2p --decide device: cannot map rank %d's vote slots (cudaIpcOpenMemHandle: %s)",
                    q, cudaGetErrorString(err));
        c->peers[q].votes = (unsigned long long *)ptr;
    }
    if (d->run_ahead && !c->peer_votes_dev) {
        unsigned long long **host = (unsigned long long **)nbr_alloc(sizeof(void *) * g_size, "vote pointers");
        for (int q = 0; q < g_size; q++) host[q] = q == d->rank ? c->votes : c->peers[q].votes;
        c->peer_votes_dev = (unsigned long long **)gpu_alloc(d->g, sizeof(void *) * g_size, "vote pointers");
        CUDA_CHECK(cudaMemcpy(c->peer_votes_dev, host, sizeof(void *) * g_size, cudaMemcpyHostToDevice));
        free(host);
    }
    /* the ranks this one writes to (send_rank) and, --dd-newton on, signals (recv_rank) */
    for (int k = 0; k < (d->newton ? 2 : 1) * d->npulses; k++) {
        const int q = k < d->npulses ? d->pulse[k].send_rank : d->pulse[k - d->npulses].recv_rank;
        DdComm::Peer *p = &c->peers[q];
        if (q == d->rank) continue;
        if (!p->signals) {
            void *ptr = NULL;
            cudaError_t err = cudaIpcOpenMemHandle(&ptr, cards[q].signals, cudaIpcMemLazyEnablePeerAccess);
            if (err != cudaSuccess)
                dd_fail(EXIT_INTERNAL, "--comm p2p: cannot map rank %d's memory (cudaIpcOpenMemHandle: %s): peer access between "
                           "these GPUs?", q, cudaGetErrorString(err));
            p->signals = (unsigned long long *)ptr;
        }
        if (k < d->npulses && p->r_generation != cards[q].r_generation) {
            if (p->r) CUDA_CHECK(cudaIpcCloseMemHandle(p->r));
            void *ptr = NULL;
            CUDA_CHECK(cudaIpcOpenMemHandle(&ptr, cards[q].r, cudaIpcMemLazyEnablePeerAccess));
            p->r = (real4 *)ptr;
            if (d->newton) {
                if (p->a) CUDA_CHECK(cudaIpcCloseMemHandle(p->a));
                if (p->u) CUDA_CHECK(cudaIpcCloseMemHandle(p->u));
                CUDA_CHECK(cudaIpcOpenMemHandle(&ptr, cards[q].a, cudaIpcMemLazyEnablePeerAccess));
                p->a = (real4 *)ptr;
                CUDA_CHECK(cudaIpcOpenMemHandle(&ptr, cards[q].u, cudaIpcMemLazyEnablePeerAccess));
                p->u = (real *)ptr;
            }
            p->r_generation = cards[q].r_generation;
        }
    }
    free(cards);
}

void dd_comm_init(Dd *d)
{
    d->comm = (DdComm *)calloc(1, sizeof(DdComm));
    if (!d->comm) dd_fail(EXIT_INTERNAL, "out of host memory");
    d->comm->kind = d->comm_kind;
    if (d->comm_kind == COMM_NCCL) {
#ifdef NBR_NCCL
        nccl_open(d);
#else
        dd_fail(EXIT_INTERNAL, "--comm nccl: this gpu-dd was built without nccl.h (the Makefile said so): use --comm mpi or p2p");
#endif
    }
    if (d->comm_kind == COMM_P2P) p2p_open(d);
    if (d->comm_kind == COMM_NVSHMEM) {
#ifdef NBR_NVSHMEM
        dd_nvshmem_init(d);
#else
        dd_fail(EXIT_INPUT, "--comm nvshmem: this gpu-dd was built without NVSHMEM (the Makefile said so; set "
                            "NVSHMEM_HOME): use --comm mpi, nccl or p2p");
#endif
    }
}

void dd_comm_free(Dd *d)
{
    DdComm *c = d->comm;
    if (!c) return;
#ifdef NBR_NCCL
    if (c->kind == COMM_NCCL && c->nccl_comm) c->nccl.CommDestroy(c->nccl_comm);
#endif
#ifdef NBR_NVSHMEM
    if (c->kind == COMM_NVSHMEM) dd_nvshmem_finalize(d);
#endif
    if (c->kind == COMM_P2P) {
        for (int q = 0; q < g_size; q++) {
            if (c->peers[q].r) cudaIpcCloseMemHandle(c->peers[q].r);
            if (c->peers[q].a) cudaIpcCloseMemHandle(c->peers[q].a);
            if (c->peers[q].u) cudaIpcCloseMemHandle(c->peers[q].u);
            if (c->peers[q].signals) cudaIpcCloseMemHandle(c->peers[q].signals);
            if (c->peers[q].votes) cudaIpcCloseMemHandle(c->peers[q].votes);
        }
        free(c->peers);
        cudaFree(c->signals);
        cudaFree(c->votes);
        if (c->peer_votes_dev) cudaFree(c->peer_votes_dev);
    }
    if (c->host_send) cudaFreeHost(c->host_send);
    if (c->host_recv) cudaFreeHost(c->host_recv);
    free(c->card);
    free(c);
    d->comm = NULL;
}

static void ensure_host(DdComm *c, size_t bytes)
{
    if (bytes <= c->host_bytes) return;
    if (c->host_send) CUDA_CHECK(cudaFreeHost(c->host_send));
    if (c->host_recv) CUDA_CHECK(cudaFreeHost(c->host_recv));
    const size_t b = bytes + bytes / 4 + 4096;
    c->host_send = gpu_pinned(b, "halo staging");
    c->host_recv = gpu_pinned(b, "halo staging");
    c->host_bytes = b;
}

/* Host-staged: device -> pinned -> MPI_Sendrecv -> pinned -> device. */
static void exchange_mpi(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag)
{
    DdComm *c = d->comm;
    cudaStream_t st = d->g->stream;
    const size_t sb = sizeof(real4) * (size_t)nsend, rb = sizeof(real4) * (size_t)nrecv;
    if (sb > 0x7fffffffu || rb > 0x7fffffffu) dd_fail(EXIT_INTERNAL, "a halo message of over 2^31 bytes: use more domains");
    ensure_host(c, sb > rb ? sb : rb);
    if (nsend) CUDA_CHECK(cudaMemcpyAsync(c->host_send, send, sb, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));   /* the host waits for the pack (and any earlier copy in) */
    mpi_check(MPI_Sendrecv(c->host_send, (int)sb, MPI_BYTE, to, tag, c->host_recv, (int)rb, MPI_BYTE, from, tag,
                           MPI_COMM_WORLD, MPI_STATUS_IGNORE),
              "MPI_Sendrecv");
    if (nrecv) CUDA_CHECK(cudaMemcpyAsync(recv, c->host_recv, rb, cudaMemcpyHostToDevice, st));
}

void dd_exchange(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag)
{
    cudaStream_t st = d->g->stream;
    if (to == d->rank && from == d->rank) {
        if (nsend != nrecv) dd_fail(EXIT_INTERNAL, "internal: a self exchange of %d atoms into room for %d", nsend, nrecv);
        if (nsend) CUDA_CHECK(cudaMemcpyAsync(recv, send, sizeof(real4) * nsend, cudaMemcpyDeviceToDevice, st));
        return;
    }
#ifdef NBR_NCCL
    if (d->comm_kind == COMM_NCCL) {
        NcclApi *a = &d->comm->nccl;
        nccl_check(d, a->GroupStart(), "ncclGroupStart");
        if (nsend) nccl_check(d, a->Send(send, sizeof(real4) * nsend, ncclChar, to, d->comm->nccl_comm, st), "ncclSend");
        if (nrecv) nccl_check(d, a->Recv(recv, sizeof(real4) * nrecv, ncclChar, from, d->comm->nccl_comm, st), "ncclRecv");
        nccl_check(d, a->GroupEnd(), "ncclGroupEnd");
        return;
    }
#endif
    exchange_mpi(d, send, nsend, to, recv, nrecv, from, tag);
}

/* p2p, nvshmem: waits (on the stream) until the sender's blocks of this step have signalled:
 * the expected count lives on the device and is raised here, so the launch is the same every
 * step (a CUDA graph can hold it). One thread. */
static __global__ void wait_signal_kernel(const volatile unsigned long long *signal, unsigned long long *expected,
                                   unsigned long long inc, long long timeout_ns, int *timed_out, int pulse,
                                   const int *gate)
{
    if (gate && *gate) return;   /* --decide device, the device stopped: the senders are gated too */
    const unsigned long long want = *expected + inc;
    *expected = want;
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    while (*signal < want) {
        asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
        if ((long long)(now - start) > timeout_ns) {
            *(volatile int *)timed_out = pulse + 1;
            return;
        }
        __nanosleep(200);
    }
    __threadfence_system();
}

void dd_comm_rebuilt(Dd *d, int first, int count)
{
#ifdef NBR_NVSHMEM
    if (d->comm_kind == COMM_NVSHMEM) dd_nvshmem_rebuilt(d);
#endif
    if (d->comm_kind != COMM_P2P) return;
    /* where each sender writes: the receiver's recv_off, sent back to it */
    for (int k = first; k < first + count; k++) {
        DdPulse *pl = &d->pulse[k];
        dd_sendrecv_int(&pl->recv_off, 1, pl->recv_rank, &pl->remote_off, pl->send_rank);
    }
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    p2p_refresh(d);
}

void dd_pulse_exchange(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    GpuSim *g = d->g;
    if (pl->send_rank == d->rank && pl->recv_rank == d->rank) {   /* periodic image of this domain */
        dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, g->r + pl->recv_off, NULL);
        return;
    }
#ifdef NBR_NVSHMEM
    if (d->comm_kind == COMM_NVSHMEM) {
        dd_nvshmem_pulse(d, k);
        return;
    }
#endif
    if (d->comm_kind == COMM_P2P) {
        DdComm::Peer *p = &d->comm->peers[pl->send_rank];
        dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, p->r + pl->remote_off, p->signals + k);
        /* the sender launches at least one block of 256, so every pulse signals */
        dd_launch_wait(d, d->comm->signals + k, k, pl->nrecv > 0 ? (unsigned long long)blocks_for(pl->nrecv, 256) : 1ull);
        return;
    }
    dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, pl->send_buf, NULL);
    dd_exchange(d, pl->send_buf, pl->nsend, pl->send_rank, g->r + pl->recv_off, pl->nrecv, pl->recv_rank, k);
}

void dd_force_pulse(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    GpuSim *g = d->g;
    if (pl->send_rank == d->rank && pl->recv_rank == d->rank) {   /* periodic image of this domain */
        dd_launch_force_add(d, pl->send_idx, pl->nsend, g->a + pl->recv_off, g->u + pl->recv_off);
        return;
    }
    if (d->comm_kind == COMM_P2P) {
        /* this rank's ghosts of pulse k are final (the later pulses' forces are in them): recv_rank
         * may pull them; then pull what send_rank holds of the atoms this rank sent it */
        dd_launch_signal(d, d->comm->peers[pl->recv_rank].signals + DD_PULSES + k);
        dd_launch_wait(d, d->comm->signals + DD_PULSES + k, DD_PULSES + k, 1ull);
        const DdComm::Peer *p = &d->comm->peers[pl->send_rank];
        dd_launch_force_add(d, pl->send_idx, pl->nsend, p->a + pl->remote_off, p->u + pl->remote_off);
        return;
    }
    if (d->comm_kind != COMM_MPI && d->comm_kind != COMM_NCCL)
        dd_fail(EXIT_INTERNAL, "internal: the force halo with --comm %s", comm_names[d->comm_kind]);
    /* mpi, nccl: the ghosts' forces packed and sent back from ret_buf; what returns lands after
     * them (send_buf keeps the positions: a stopped device's gated packs resend it as it is) */
    real4 *back = pl->ret_buf + pl->nrecv;
    dd_launch_force_pack(d, pl->recv_off, pl->nrecv, pl->ret_buf);
    dd_exchange(d, pl->ret_buf, pl->nrecv, pl->recv_rank, back, pl->nsend, pl->send_rank, 300 + k);
    dd_launch_force_add(d, pl->send_idx, pl->nsend, back, NULL);
}

void dd_launch_wait(Dd *d, const unsigned long long *signal, int k, unsigned long long inc)
{
    wait_signal_kernel<<<1, 1, 0, d->g->stream>>>(signal, d->expected_dev + k, inc, (long long)(d->timeout_s * 1e9),
                                                  d->timed_out_dev, k, d->gate);
    LAUNCH_CHECK("wait_signal_kernel");
}

void dd_comm_poll(Dd *d)
{
    const int out = *(volatile int *)d->timed_out;
    if (!out) return;
    if (out > 2 * DD_PULSES)
        dd_fail(EXIT_INTERNAL, "--comm %s --decide device: waited over %g s for the other ranks' rebuild votes (did one "
                               "stop?)", comm_names[d->comm_kind], d->timeout_s);
    if (out > DD_PULSES) {
        const int k = out - 1 - DD_PULSES;
        dd_fail(EXIT_INTERNAL, "--comm %s: waited over %g s for the force halo of pulse %d from rank %d (did it stop?)",
                comm_names[d->comm_kind], d->timeout_s, k, d->pulse[k].send_rank);
    }
    const int k = out - 1;
    dd_fail(EXIT_INTERNAL, "--comm %s: waited over %g s for the halo of pulse %d from rank %d (did it stop?)",
            comm_names[d->comm_kind], d->timeout_s, k, d->pulse[k].recv_rank);
}

/* p2p --decide device: this rank's largest v^2 into every peer's slot of this round, then its
 * round number beside it; once every peer's round number here has reached this round, the
 * largest of all. One thread, gated; a wait that gives up leaves 2 DD_PULSES + 1 in *timed_out. */
static __global__ void p2p_vote_kernel(DdCtrl *c, const unsigned long long *vv_local, unsigned long long *vv_all,
                                       unsigned long long *const *votes, int rank, int size, long long timeout_ns,
                                       int *timed_out)
{
    if (c->halted) return;
    const unsigned long long round = (unsigned long long)++c->votes;
    const int row = size + (int)(round & 1) * size;
    const unsigned long long mine = *vv_local;
    for (int q = 0; q < size; q++)
        if (q != rank) *(volatile unsigned long long *)&votes[q][row + rank] = mine;
    __threadfence_system();   /* the values land before the round numbers that announce them */
    for (int q = 0; q < size; q++)
        if (q != rank) atomicExch_system(&votes[q][rank], round);
    const volatile unsigned long long *arrived = votes[rank];
    unsigned long long start, now;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(start));
    for (int q = 0; q < size; q++)
        while (q != rank && arrived[q] < round) {
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
            if ((long long)(now - start) > timeout_ns) {
                *(volatile int *)timed_out = 2 * DD_PULSES + 1;
                *vv_all = mine;
                return;
            }
            __nanosleep(100);
        }
    __threadfence_system();
    unsigned long long most = mine;
    for (int q = 0; q < size; q++)
        if (q != rank && arrived[row + q] > most) most = arrived[row + q];
    *vv_all = most;
}

void dd_comm_vote_open(Dd *d)
{
    if (d->comm_kind == COMM_P2P) p2p_refresh(d);
}

void dd_comm_vote(Dd *d)
{
    cudaStream_t st = d->g->stream;
#ifdef NBR_NCCL
    if (d->comm_kind == COMM_NCCL) {
        nccl_check(d, d->comm->nccl.AllReduce(d->vv_local, d->vv_all, 1, ncclUint64, ncclMax, d->comm->nccl_comm, st),
                   "ncclAllReduce");
        return;
    }
#endif
#ifdef NBR_NVSHMEM
    if (d->comm_kind == COMM_NVSHMEM) {
        dd_nvshmem_vote(d);
        return;
    }
#endif
    if (d->comm_kind != COMM_P2P) dd_fail(EXIT_INTERNAL, "internal: --decide device with --comm %s", comm_names[d->comm_kind]);
    p2p_vote_kernel<<<1, 1, 0, st>>>(d->ctrl, d->vv_local, d->vv_all, d->comm->peer_votes_dev, d->rank, d->size,
                                     (long long)(d->timeout_s * 1e9), d->timed_out_dev);
    LAUNCH_CHECK("p2p_vote_kernel");
}

int dd_local_rank(int *local_size)
{
    MPI_Comm local;
    int r = 0, size = 1;
    mpi_check(MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, g_rank, MPI_INFO_NULL, &local),
              "MPI_Comm_split_type");
    MPI_Comm_rank(local, &r);
    MPI_Comm_size(local, &size);
    MPI_Comm_free(&local);
    if (local_size) *local_size = size;
    return r;
}
