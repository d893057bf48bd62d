/* dd_halo_nvshmem.cu - gpu-dd's --comm nvshmem: the paper's GPU-initiated halo exchange (Doijade
 * et al. 2025). One fused kernel per pulse packs the atoms a neighbour needs and puts them
 * into its symmetric inbox with put-with-signal (each block: pack its chunk, then
 * nvshmemx_putmem_signal_nbi_block, the signal added once the chunk has landed); the
 * receiver's stream waits until its signal counts every block of the step (a one-thread
 * kernel with a timeout, so a stopped peer is reported, not waited for), then copies the
 * inbox to its ghost slots. No host synchronisation inside the exchange.
 *
 * Symmetric memory is allocated collectively with the same size on every PE: an inbox and a
 * packing buffer per pulse, sized to the largest ghost count of any rank and pulse (agreed
 * at each rebuild, grown collectively there). Start: NVSHMEM's unique-id bootstrap, the id
 * broadcast over MPI (not PMIx). The rebuild-time moves go host-staged through MPI
 * (dd_halo_mpi.cu); --dd-newton on's force halo is not written for it. Compiled only where the
 * Makefile finds NVSHMEM (else dd_halo_nvshmem_absent.cu), with relocatable device code
 * (-rdc=true) and the device library linked. */
#include "dd_halo.cuh"

#include <mpi.h>
#include <nvshmem.h>
#include <nvshmemx.h>

#include <stdlib.h>

struct DdNvshmem {
    real4 *inbox[DD_PULSES], *outbox[DD_PULSES];   /* symmetric, `cap` atoms each */
    uint64_t *signals;                             /* symmetric, one per pulse */
    unsigned long long *votes;                     /* symmetric: --decide device's v^2 here, over all */
    int cap;
};

static DdNvshmem g_nv;

static void nvshmem_setup(Dd *d)
{
    nvshmemx_uniqueid_t id = NVSHMEMX_UNIQUEID_INITIALIZER;
    if (d->rank == 0 && nvshmemx_get_uniqueid(&id) != 0)
        dd_fail(EXIT_INTERNAL, "--comm nvshmem: nvshmemx_get_uniqueid failed (NVSHMEM cannot start)");
    if (MPI_Bcast(&id, sizeof id, MPI_BYTE, 0, MPI_COMM_WORLD) != MPI_SUCCESS)
        dd_fail(EXIT_INTERNAL, "--comm nvshmem: MPI_Bcast of the unique id failed");
    nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
    if (nvshmemx_set_attr_uniqueid_args(d->rank, d->size, &id, &attr) != 0)
        dd_fail(EXIT_INTERNAL, "--comm nvshmem: nvshmemx_set_attr_uniqueid_args failed");
    /* exits on failure; the exit hook then stops every rank with this rank's number */
    nvshmemx_init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr);
    if (nvshmem_my_pe() != d->rank || nvshmem_n_pes() != d->size)
        dd_fail(EXIT_INTERNAL, "--comm nvshmem: PE %d of %d, expected %d of %d", nvshmem_my_pe(), nvshmem_n_pes(),
                d->rank, d->size);
    g_nv.signals = (uint64_t *)nvshmem_calloc(DD_PULSES, sizeof(uint64_t));
    if (!g_nv.signals) dd_fail(EXIT_CAPACITY, "--comm nvshmem: cannot allocate the symmetric signals");
    g_nv.votes = (unsigned long long *)nvshmem_calloc(2, sizeof(unsigned long long));
    if (!g_nv.votes) dd_fail(EXIT_CAPACITY, "--comm nvshmem: cannot allocate the symmetric vote words");
}

/* --decide device: the vote words live in the symmetric heap */
static void nvshmem_vote_buffers(Dd *d)
{
    d->vv_local = g_nv.votes;
    d->vv_all = g_nv.votes + 1;
}

/* --decide device: the largest v^2 over all PEs, on the stream. The words hold the bits of
 * non-negative doubles, so the double maximum is the maximum of the values. Every PE, every
 * step (a collective). */
static void nvshmem_vote(Dd *d)
{
    nvshmemx_double_max_reduce_on_stream(NVSHMEM_TEAM_WORLD, (double *)d->vv_all, (const double *)d->vv_local, 1,
                                         d->g->stream);
}

/* At each rebuild (every rank, same order): room in the symmetric buffers for the largest
 * ghost count of any rank and pulse. */
static void nvshmem_rebuilt(Dd *d, int, int)
{
    int need = 0;
    for (int k = 0; k < DD_PULSES; k++) {
        if (d->pulse[k].nrecv > need) need = d->pulse[k].nrecv;
        if (d->pulse[k].nsend > need) need = d->pulse[k].nsend;
    }
    dd_allreduce_max_i(&need, 1);
    if (need <= g_nv.cap) return;
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    nvshmem_barrier_all();
    const int cap = need + need / 4 + 256;
    for (int k = 0; k < DD_PULSES; k++) {
        if (g_nv.inbox[k]) nvshmem_free(g_nv.inbox[k]);
        if (g_nv.outbox[k]) nvshmem_free(g_nv.outbox[k]);
        g_nv.inbox[k] = (real4 *)nvshmem_malloc(sizeof(real4) * cap);
        g_nv.outbox[k] = (real4 *)nvshmem_malloc(sizeof(real4) * cap);
        if (!g_nv.inbox[k] || !g_nv.outbox[k])
            dd_fail(EXIT_CAPACITY, "--comm nvshmem: cannot allocate %.3g MB of symmetric memory for the halo (raise "
                                   "NVSHMEM_SYMMETRIC_SIZE)", 2.0 * DD_PULSES * sizeof(real4) * cap / 1e6);
    }
    g_nv.cap = cap;
}

/* One block per chunk of the pulse's atoms (at least one block, so every pulse signals). */
static __global__ void nvshmem_pack_put_kernel(const real4 *r, const int *idx, int n, int axis, real shift, real4 *outbox,
                                        real4 *inbox, uint64_t *signal, int pe, const int *gate)
{
    if (gate && *gate) return;   /* --decide device, the device stopped: the receiver's wait is gated too */
    const int k0 = blockIdx.x * blockDim.x, k = k0 + threadIdx.x;
    if (k < n) outbox[k] = dd_halo_atom(r, idx, k, axis, shift);
    __syncthreads();
    const int count = n - k0 < (int)blockDim.x ? (n - k0 > 0 ? n - k0 : 0) : (int)blockDim.x;
    if (count > 0)
        nvshmemx_putmem_signal_nbi_block(inbox + k0, outbox + k0, sizeof(real4) * count, signal, 1, NVSHMEM_SIGNAL_ADD,
                                         pe);
    else if (threadIdx.x == 0)
        nvshmemx_signal_op(signal, 1, NVSHMEM_SIGNAL_ADD, pe);
}

static void nvshmem_pulse(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    cudaStream_t st = d->g->stream;
    const int T = 256, nb = pl->nsend > 0 ? blocks_for(pl->nsend, T) : 1;
    nvshmem_pack_put_kernel<<<nb, T, 0, st>>>(d->g->r, pl->send_idx, pl->nsend, pl->axis, pl->shift, g_nv.outbox[k],
                                              g_nv.inbox[k], g_nv.signals + k, pl->send_rank, d->gate);
    LAUNCH_CHECK("nvshmem_pack_put_kernel");
    /* the signal is a 64-bit counter like p2p's: the same wait (dd_halo.cu) */
    dd_launch_wait(d, (const unsigned long long *)(g_nv.signals + k), k,
                   pl->nrecv > 0 ? (unsigned long long)blocks_for(pl->nrecv, T) : 1ull);
    if (pl->nrecv)
        CUDA_CHECK(cudaMemcpyAsync(d->g->r + pl->recv_off, g_nv.inbox[k], sizeof(real4) * pl->nrecv,
                                   cudaMemcpyDeviceToDevice, st));
}

static void nvshmem_free(Dd *d)
{
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    nvshmem_barrier_all();
    for (int k = 0; k < DD_PULSES; k++) {
        if (g_nv.inbox[k]) nvshmem_free(g_nv.inbox[k]);
        if (g_nv.outbox[k]) nvshmem_free(g_nv.outbox[k]);
    }
    nvshmem_free(g_nv.signals);
    nvshmem_free(g_nv.votes);
    nvshmem_finalize();
}

static const char *nvshmem_shared_gpu(int decide)
{
    return decide == DECIDE_DEVICE ? "--comm nvshmem --decide device needs one rank per GPU (NVSHMEM's on-stream "
                                     "max-reduce is not supported with several processes per GPU)"
                                   : NULL;
}

const DdHalo dd_halo_nvshmem = {
    .name = "nvshmem",
    .compiled = 1,
    .host_steps = 0,
    .force_halo = 0,
    .shared_gpu = nvshmem_shared_gpu,
    .setup = nvshmem_setup,
    .rebuilt = nvshmem_rebuilt,
    .exchange = dd_exchange_staged,
    .pulse = nvshmem_pulse,
    .force_pulse = NULL,
    .vote_buffers = nvshmem_vote_buffers,
    .vote_open = NULL,
    .vote = nvshmem_vote,
    .free = nvshmem_free,
};
