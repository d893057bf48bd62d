/* dd_halo.cu - what gpu-dd's halo backends share (dd_halo.cuh): the choice by --comm, the
 * pulses of an axis with one domain (a local copy on every backend), mpi's and nccl's packed
 * pulses, the device wait on a signal (p2p, nvshmem) and the host's look at its timeout. */
#include "dd_halo.cuh"

const char *const comm_names[] = {"mpi", "nccl", "p2p", "nvshmem", NULL};

#include <stdlib.h>

const DdHalo *dd_halo_for(int comm)
{
    static const DdHalo *const by_comm[NCOMMS] = {&dd_halo_mpi, &dd_halo_nccl, &dd_halo_p2p, &dd_halo_nvshmem};
    if (comm < 0 || comm >= NCOMMS) dd_fail(EXIT_INTERNAL, "internal: --comm %d", comm);
    return by_comm[comm];
}

void dd_comm_init(Dd *d)
{
    d->comm = (DdComm *)calloc(1, sizeof(DdComm));
    if (!d->comm) dd_fail(EXIT_INTERNAL, "out of host memory");
    d->halo->setup(d);
}

void dd_comm_free(Dd *d)
{
    DdComm *c = d->comm;
    if (!c) return;
    if (d->halo->free) d->halo->free(d);
    if (c->host_send) cudaFreeHost(c->host_send);
    if (c->host_recv) cudaFreeHost(c->host_recv);
    free(c);
    d->comm = NULL;
}

void dd_exchange(Dd *d, const real4 *send, int nsend, int to, real4 *recv, int nrecv, int from, int tag)
{
    cudaStream_t st = d->g->stream;
    if (to == d->rank && from == d->rank) {
        if (nsend != nrecv) dd_fail(EXIT_INTERNAL, "internal: a self exchange of %d atoms into room for %d", nsend, nrecv);
        if (nsend) CUDA_CHECK(cudaMemcpyAsync(recv, send, sizeof(real4) * nsend, cudaMemcpyDeviceToDevice, st));
        return;
    }
    d->halo->exchange(d, send, nsend, to, recv, nrecv, from, tag);
}

void dd_comm_rebuilt(Dd *d, int first, int count)
{
    if (d->halo->rebuilt) d->halo->rebuilt(d, first, count);
}

void dd_pulse_exchange(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    if (pl->send_rank == d->rank && pl->recv_rank == d->rank) {   /* periodic image of this domain */
        dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, d->g->r + pl->recv_off, NULL);
        return;
    }
    d->halo->pulse(d, k);
}

void dd_pulse_staged(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, pl->send_buf, NULL);
    dd_exchange(d, pl->send_buf, pl->nsend, pl->send_rank, d->g->r + pl->recv_off, pl->nrecv, pl->recv_rank, k);
}

void dd_force_pulse(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    GpuSim *g = d->g;
    if (pl->send_rank == d->rank && pl->recv_rank == d->rank) {   /* periodic image of this domain */
        dd_launch_force_add(d, pl->send_idx, pl->nsend, g->a + pl->recv_off, g->u + pl->recv_off);
        return;
    }
    if (!d->halo->force_pulse) dd_fail(EXIT_INTERNAL, "internal: the force halo with --comm %s", comm_names[d->comm_kind]);
    d->halo->force_pulse(d, k);
}

/* mpi, nccl: the ghosts' forces packed and sent back from ret_buf; what returns lands after
 * them (send_buf keeps the positions: a stopped device's gated packs resend it as it is) */
void dd_force_pulse_staged(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    real4 *back = pl->ret_buf + pl->nrecv;
    dd_launch_force_pack(d, pl->recv_off, pl->nrecv, pl->ret_buf);
    dd_exchange(d, pl->ret_buf, pl->nrecv, pl->recv_rank, back, pl->nsend, pl->send_rank, 300 + k);
    dd_launch_force_add(d, pl->send_idx, pl->nsend, back, NULL);
}

/* Bytes this rank's halo sends to other ranks per step with the lists of the last rebuild:
 * each remote pulse's positions (real4), and with --dd-newton on its ghosts' forces and
 * energies back (real4 each). The periodic images of an axis with one domain stay on the device. */
long long dd_halo_bytes(const Dd *d)
{
    long long b = 0;
    for (int k = 0; k < d->npulses; k++) {
        const DdPulse *pl = &d->pulse[k];
        if (pl->send_rank == d->rank && pl->recv_rank == d->rank) continue;
        b += (long long)sizeof(real4) * (pl->nsend + (d->newton ? pl->nrecv : 0));
    }
    return b;
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

void dd_comm_vote_open(Dd *d)
{
    if (d->halo->vote_open) d->halo->vote_open(d);
}

void dd_comm_vote(Dd *d)
{
    if (!d->halo->vote) dd_fail(EXIT_INTERNAL, "internal: --decide device with --comm %s", comm_names[d->comm_kind]);
    d->halo->vote(d);
}
