/* dd_halo_mpi.cu - --comm mpi: the CPU-driven schedule of the paper. Per pulse the pack kernel,
 * the host waits, copies to pinned memory, MPI_Sendrecv (Open MPI here is not CUDA-aware),
 * copies back. Its host-staged exchange also carries p2p's and nvshmem's rebuild-time moves. */
#include "dd_halo.cuh"

#include <mpi.h>

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
void dd_exchange_staged(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag)
{
    DdComm *c = d->comm;
    cudaStream_t st = d->g->stream;
    const size_t sb = sizeof(real4) * (size_t)nsend, rb = sizeof(real4) * (size_t)nrecv;
    if (sb > 0x7fffffffu || rb > 0x7fffffffu) dd_fail(EXIT_INTERNAL, "a halo message of over 2^31 bytes: use more domains");
    ensure_host(c, sb > rb ? sb : rb);
    if (nsend) CUDA_CHECK(cudaMemcpyAsync(c->host_send, send, sb, cudaMemcpyDeviceToHost, st));
    CUDA_CHECK(cudaStreamSynchronize(st));   /* the host waits for the pack (and any earlier copy in) */
    dd_mpi_check(MPI_Sendrecv(c->host_send, (int)sb, MPI_BYTE, to, tag, c->host_recv, (int)rb, MPI_BYTE, from, tag,
                              MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                 "MPI_Sendrecv");
    if (nrecv) CUDA_CHECK(cudaMemcpyAsync(recv, c->host_recv, rb, cudaMemcpyHostToDevice, st));
}

static void mpi_setup(Dd *) {}   /* MPI is up for the whole run (dd_comm.cu); staging grows on demand */

const DdHalo dd_halo_mpi = {
    .name = "mpi",
    .compiled = 1,
    .host_steps = 1,
    .force_halo = 1,
    .shared_gpu = NULL,
    .setup = mpi_setup,
    .rebuilt = NULL,
    .exchange = dd_exchange_staged,
    .pulse = dd_pulse_staged,
    .force_pulse = dd_force_pulse_staged,
    .vote_buffers = NULL,
    .vote_open = NULL,
    .vote = NULL,
    .free = NULL,
};
