/* dd_halo_nccl.cu - --comm nccl: ncclSend / ncclRecv of the packed buffer straight into the
 * receiver's ghost slots, enqueued on the stream (no host wait); the rebuild-time moves go the
 * same way, and --decide device's vote is an all-reduce on the stream. libnccl is opened at run
 * time (dlopen), so the program builds where only nccl.h exists and runs where the library
 * does. Compiled where the Makefile finds nccl.h; else dd_halo_nccl_absent.cu. */
#include "dd_halo.cuh"

#include <dlfcn.h>
#include <mpi.h>
#include <nccl.h>

#include <stdlib.h>

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

struct Nccl {
    NcclApi api;
    ncclComm_t comm;
};

static Nccl *nccl_of(Dd *d) { return (Nccl *)d->comm->impl; }

static void nccl_check(Dd *d, ncclResult_t err, const char *what)
{
    if (err != ncclSuccess) dd_fail(EXIT_INTERNAL, "NCCL error in %s: %s", what, nccl_of(d)->api.GetErrorString(err));
}

static void nccl_setup(Dd *d)
{
    Nccl *n = (Nccl *)calloc(1, sizeof(Nccl));
    if (!n) dd_fail(EXIT_INTERNAL, "out of host memory");
    d->comm->impl = n;
    const char *path = getenv("NBR_NCCL_LIB");
    void *lib = path && *path ? dlopen(path, RTLD_NOW | RTLD_GLOBAL) : NULL;
#ifdef NBR_NCCL_PATH
    if (!lib && !(path && *path)) lib = dlopen(NBR_NCCL_PATH, RTLD_NOW | RTLD_GLOBAL);   /* found at build time */
#endif
    if (!lib && !(path && *path)) lib = dlopen("libnccl.so.2", RTLD_NOW | RTLD_GLOBAL);
    if (!lib)
        dd_fail(EXIT_INTERNAL, "--comm nccl: cannot open the NCCL library (%s): set LD_LIBRARY_PATH or NBR_NCCL_LIB to libnccl.so.2",
                dlerror());
    NcclApi *a = &n->api;
#define NBR_NCCL_SYM(f) \
    if (!(*(void **)&a->f = dlsym(lib, "nccl" #f))) dd_fail(EXIT_INTERNAL, "--comm nccl: the NCCL library lacks nccl" #f);
    NBR_NCCL_SYM(GetUniqueId) NBR_NCCL_SYM(CommInitRank) NBR_NCCL_SYM(CommDestroy) NBR_NCCL_SYM(Send)
    NBR_NCCL_SYM(Recv) NBR_NCCL_SYM(AllReduce) NBR_NCCL_SYM(GroupStart) NBR_NCCL_SYM(GroupEnd) NBR_NCCL_SYM(GetErrorString)
#undef NBR_NCCL_SYM
    ncclUniqueId id;
    if (d->rank == 0) nccl_check(d, a->GetUniqueId(&id), "ncclGetUniqueId");
    dd_mpi_check(MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD), "MPI_Bcast");
    nccl_check(d, a->CommInitRank(&n->comm, d->size, id, d->rank), "ncclCommInitRank");
}

static void nccl_exchange(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int)
{
    cudaStream_t st = d->g->stream;
    Nccl *n = nccl_of(d);
    NcclApi *a = &n->api;
    nccl_check(d, a->GroupStart(), "ncclGroupStart");
    if (nsend) nccl_check(d, a->Send(send, sizeof(real4) * nsend, ncclChar, to, n->comm, st), "ncclSend");
    if (nrecv) nccl_check(d, a->Recv(recv, sizeof(real4) * nrecv, ncclChar, from, n->comm, st), "ncclRecv");
    nccl_check(d, a->GroupEnd(), "ncclGroupEnd");
}

static void nccl_vote(Dd *d)
{
    Nccl *n = nccl_of(d);
    nccl_check(d, n->api.AllReduce(d->vv_local, d->vv_all, 1, ncclUint64, ncclMax, n->comm, d->g->stream), "ncclAllReduce");
}

static void nccl_free(Dd *d)
{
    Nccl *n = nccl_of(d);
    if (!n) return;
    if (n->comm) n->api.CommDestroy(n->comm);
    free(n);
    d->comm->impl = NULL;
}

/* NCCL refuses two ranks of a communicator on one GPU (ncclCommInitRank: "invalid usage") */
static const char *nccl_shared_gpu(int)
{
    return "--comm nccl needs one rank per GPU (NCCL does not allow two ranks of a communicator on one GPU)";
}

const DdHalo dd_halo_nccl = {
    .name = "nccl",
    .compiled = 1,
    .host_steps = 0,
    .force_halo = 1,
    .shared_gpu = nccl_shared_gpu,
    .setup = nccl_setup,
    .rebuilt = NULL,
    .exchange = nccl_exchange,
    .pulse = dd_pulse_staged,
    .force_pulse = dd_force_pulse_staged,
    .vote_buffers = NULL,
    .vote_open = NULL,
    .vote = nccl_vote,
    .free = nccl_free,
};
