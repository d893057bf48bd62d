/* dd_halo.cuh - gpu-dd's halo communication behind one interface, one implementation per
 * backend (--comm), each in its own file:
 *   dd_halo_mpi.cu      the CPU-driven schedule: pack, the host waits, MPI_Sendrecv through pinned memory
 *   dd_halo_nccl.cu     ncclSend / ncclRecv on the stream (libnccl opened at run time)
 *   dd_halo_p2p.cu      CUDA IPC peer pointers: the pack writes into the neighbour, a counter signals
 *   dd_halo_nvshmem.cu  fused pack + put-with-signal into symmetric inboxes (Doijade et al. 2025)
 * A backend whose library the Makefile did not find is compiled as its stub instead
 * (dd_halo_<comm>_absent.cu): the same traits, and a setup that refuses --comm <comm> in one line.
 * dd_halo.cu holds what every backend shares: the choice by --comm, the periodic-image pulses
 * (a local copy on every backend), the device wait on a signal (p2p, nvshmem) and its timeout.
 *
 * A pulse is the interface's unit of work: post (pack), exchange and wait (unpack) of one
 * pulse are one call, since that is where the backends differ (nvshmem fuses pack and put, p2p
 * packs straight into the peer, mpi and nccl pack into send_buf and move it); every call only
 * enqueues on d->g->stream except mpi's, which waits on the host (host_steps). The bytes a
 * step moves between ranks are the pulses' payload whatever the backend (dd_halo_bytes, printed
 * at the end of the run). */
#ifndef NBR_DD_HALO_CUH
#define NBR_DD_HALO_CUH

#include "dd.cuh"

struct DdHalo {
    const char *name;       /* --comm's value (comm_names) */
    int compiled;           /* 0: the stub of a backend built without its library (--help lists the others) */
    int host_steps;         /* the host waits inside every pulse: --decide device and --dd-graph refused */
    int force_halo;         /* --dd-newton on's force halo is written for it */
    /* where the ranks of one host outnumber its GPUs: the refusal (NULL: they may share) */
    const char *(*shared_gpu)(int decide);
    void (*setup)(Dd *d);                            /* after the domain's arrays (dd_setup): the backend's state */
    void (*rebuilt)(Dd *d, int first, int count);    /* pulses [first, first + count) have new lists (NULL: nothing) */
    /* the rebuild-time moves (migration, ghost lists, the check's ids) to other ranks: nsend real4
     * from device send to rank to, nrecv from rank from into device recv */
    void (*exchange)(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag);
    void (*pulse)(Dd *d, int k);          /* the coordinate halo of pulse k, send_rank and recv_rank other ranks */
    void (*force_pulse)(Dd *d, int k);    /* --dd-newton on: pulse k's force halo (NULL where force_halo is 0) */
    void (*vote_buffers)(Dd *d);          /* --decide device: vv_local, vv_all elsewhere (NULL: the control block) */
    void (*vote_open)(Dd *d);             /* --decide device, once before the run ahead (NULL: nothing) */
    void (*vote)(Dd *d);                  /* --decide device: vv_local -> vv_all over ranks (NULL: host_steps) */
    void (*free)(Dd *d);                  /* the backend's state (NULL: none) */
};

/* one per backend, in its file (or its stub) */
extern const DdHalo dd_halo_mpi, dd_halo_nccl, dd_halo_p2p, dd_halo_nvshmem;
const DdHalo *dd_halo_for(int comm);   /* --comm's backend (COMM_*) */

/* What the communication keeps for a run: the host-staged exchange's pinned buffers (mpi's,
 * borrowed by p2p and nvshmem for the rebuild-time moves) and the backend's own state. */
struct DdComm {
    void *host_send, *host_recv;
    size_t host_bytes;
    void *impl;
};

/* dd_halo_mpi.cu: host-staged, device -> pinned -> MPI_Sendrecv -> pinned -> device (mpi's
 * exchange; p2p's and nvshmem's at rebuilds) */
void dd_exchange_staged(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag);
/* dd_halo.cu: mpi's and nccl's pulses: pack into send_buf (ret_buf for the forces) and dd_exchange */
void dd_pulse_staged(Dd *d, int k);
void dd_force_pulse_staged(Dd *d, int k);
/* dd_comm.cu: an MPI call's result checked (a failure names the rank and stops every rank) */
void dd_mpi_check(int err, const char *what);

#endif
