/* dd_halo_p2p.cu - --comm p2p: peer pointers (CUDA IPC). The pack kernel writes straight into
 * the neighbour's position array over NVLink, each block then raises a counter in the
 * neighbour's memory; the receiver's stream waits on the counter (one-thread kernel, with a
 * timeout), the GPU-initiated pattern of the paper without NVSHMEM. --dd-newton on: a signal to
 * recv_rank that this rank's ghosts' forces are final, a wait for send_rank's, and a pull from
 * its a and u. --decide device: each rank's largest v^2 written into every peer's vote slots.
 * The rebuild-time moves go host-staged through MPI (dd_halo_mpi.cu). */
#include "dd_halo.cuh"

#include <mpi.h>

#include <stdlib.h>
#include <string.h>

/* The same rank's handles, gathered: what every peer needs to map this rank's memory. */
struct IpcCard {
    cudaIpcMemHandle_t r, a, u, signals, votes;
    int r_generation;
};

struct P2p {
    unsigned long long *signals;          /* this rank's arrival counters, one per pulse (IPC-exported) */
    real4 *exported_r;                    /* the r whose handle the peers hold */
    int r_generation;
    IpcCard *card;                        /* this rank's handles for exported_r (cudaIpcGetMemHandle once per r) */
    /* --decide device: [q] the last round whose vote rank q has delivered here, [P + parity * P + q]
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

static P2p *p2p_of(Dd *d) { return (P2p *)d->comm->impl; }

static void p2p_setup(Dd *d)
{
    P2p *c = (P2p *)calloc(1, sizeof(P2p));
    if (!c) dd_fail(EXIT_INTERNAL, "out of host memory");
    d->comm->impl = c;
    /* [k]: pulse k's coordinates arrived; [DD_PULSES + k]: its ghosts' forces are ready (--dd-newton on) */
    c->signals = (unsigned long long *)gpu_alloc(d->g, sizeof(unsigned long long) * 2 * DD_PULSES, "p2p signals");
    CUDA_CHECK(cudaMemset(c->signals, 0, sizeof(unsigned long long) * 2 * DD_PULSES));
    const size_t vb = sizeof(unsigned long long) * 3 * d->size;
    c->votes = (unsigned long long *)gpu_alloc(d->g, vb, "p2p vote slots");
    CUDA_CHECK(cudaMemset(c->votes, 0, vb));
    c->peers = (P2p::Peer *)calloc(d->size, sizeof *c->peers);
    if (!c->peers) dd_fail(EXIT_INTERNAL, "out of host memory");
    CUDA_CHECK(cudaDeviceSynchronize());
}

/* Maps what changed since the last call: the peers' r arrays (reallocated when they grow)
 * and, the first time, their signal counters. */
static void p2p_refresh(Dd *d)
{
    P2p *c = p2p_of(d);
    const int size = d->size;
    if (!c->card) c->card = (IpcCard *)nbr_alloc(sizeof(IpcCard), "IPC handles");
    IpcCard *mine = c->card;
    /* the handles again only when r (and with it a, u) moved, not at each of a rebuild's three
     * refreshes (the refresh phase, handles, all-gather and offsets, took 0.25 ms per rebuild
     * at SP 8M on 2 GPUs, NBR_DD_PROFILE at 0c39b75) */
    if (c->exported_r != d->g->r) {
        c->exported_r = d->g->r;
        c->r_generation++;
        memset(mine, 0, sizeof *mine);
        if (size > 1) {
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->r, d->g->r));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->a, d->g->a));   /* reallocated with r (ensure_atoms) */
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->u, d->g->u));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->signals, c->signals));
            CUDA_CHECK(cudaIpcGetMemHandle(&mine->votes, c->votes));
        }
        mine->r_generation = c->r_generation;
    }
    IpcCard *cards = (IpcCard *)nbr_alloc(sizeof(IpcCard) * size, "IPC handles");
    dd_mpi_check(MPI_Allgather(mine, sizeof *mine, MPI_BYTE, cards, sizeof *mine, MPI_BYTE, MPI_COMM_WORLD), "MPI_Allgather");
    /* --decide device: every rank's vote slots, the first time (each rank votes to all) */
    for (int q = 0; d->run_ahead && !c->peer_votes_dev && q < size; q++) {
        if (q == d->rank) continue;
        void *ptr = NULL;
        cudaError_t err = cudaIpcOpenMemHandle(&ptr, cards[q].votes, cudaIpcMemLazyEnablePeerAccess);
        if (err != cudaSuccess)
            dd_fail(EXIT_INTERNAL, "--comm p2p --decide device: cannot map rank %d's vote slots (cudaIpcOpenMemHandle: %s)",
                    q, cudaGetErrorString(err));
        c->peers[q].votes = (unsigned long long *)ptr;
    }
    if (d->run_ahead && !c->peer_votes_dev) {
        unsigned long long **host = (unsigned long long **)nbr_alloc(sizeof(void *) * size, "vote pointers");
        for (int q = 0; q < size; q++) host[q] = q == d->rank ? c->votes : c->peers[q].votes;
        c->peer_votes_dev = (unsigned long long **)gpu_alloc(d->g, sizeof(void *) * size, "vote pointers");
        CUDA_CHECK(cudaMemcpy(c->peer_votes_dev, host, sizeof(void *) * size, cudaMemcpyHostToDevice));
        free(host);
    }
    /* the ranks this one writes to (send_rank) and, --dd-newton on, signals (recv_rank) */
    for (int k = 0; k < (d->newton ? 2 : 1) * d->npulses; k++) {
        const int q = k < d->npulses ? d->pulse[k].send_rank : d->pulse[k - d->npulses].recv_rank;
        P2p::Peer *p = &c->peers[q];
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

/* where each sender writes: the receiver's recv_off, sent back to it; then the peers' memory */
static void p2p_rebuilt(Dd *d, int first, int count)
{
    for (int k = first; k < first + count; k++) {
        DdPulse *pl = &d->pulse[k];
        dd_sendrecv_int(&pl->recv_off, 1, pl->recv_rank, &pl->remote_off, pl->send_rank);
    }
    CUDA_CHECK(cudaStreamSynchronize(d->g->stream));
    p2p_refresh(d);
}

static void p2p_pulse(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    P2p *c = p2p_of(d);
    P2p::Peer *p = &c->peers[pl->send_rank];
    dd_launch_pack(d, pl->send_idx, pl->nsend, pl->axis, pl->shift, p->r + pl->remote_off, p->signals + k);
    /* the sender launches at least one block of 256, so every pulse signals */
    dd_launch_wait(d, c->signals + k, k, pl->nrecv > 0 ? (unsigned long long)blocks_for(pl->nrecv, 256) : 1ull);
}

static void p2p_force_pulse(Dd *d, int k)
{
    DdPulse *pl = &d->pulse[k];
    P2p *c = p2p_of(d);
    /* this rank's ghosts of pulse k are final (the later pulses' forces are in them): recv_rank
     * may pull them; then pull what send_rank holds of the atoms this rank sent it */
    dd_launch_signal(d, c->peers[pl->recv_rank].signals + DD_PULSES + k);
    dd_launch_wait(d, c->signals + DD_PULSES + k, DD_PULSES + k, 1ull);
    const P2p::Peer *p = &c->peers[pl->send_rank];
    dd_launch_force_add(d, pl->send_idx, pl->nsend, p->a + pl->remote_off, p->u + pl->remote_off);
}

/* --decide device: this rank's largest v^2 into every peer's slot of this round, then its
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

static void p2p_vote(Dd *d)
{
    p2p_vote_kernel<<<1, 1, 0, d->g->stream>>>(d->ctrl, d->vv_local, d->vv_all, p2p_of(d)->peer_votes_dev, d->rank,
                                               d->size, (long long)(d->timeout_s * 1e9), d->timed_out_dev);
    LAUNCH_CHECK("p2p_vote_kernel");
}

static void p2p_free(Dd *d)
{
    P2p *c = p2p_of(d);
    if (!c) return;
    for (int q = 0; q < d->size; q++) {
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
    free(c->card);
    free(c);
    d->comm->impl = NULL;
}

const DdHalo dd_halo_p2p = {
    .name = "p2p",
    .compiled = 1,
    .host_steps = 0,
    .force_halo = 1,
    .shared_gpu = NULL,
    .setup = p2p_setup,
    .rebuilt = p2p_rebuilt,
    .exchange = dd_exchange_staged,
    .pulse = p2p_pulse,
    .force_pulse = p2p_force_pulse,
    .vote_buffers = NULL,
    .vote_open = p2p_refresh,
    .vote = p2p_vote,
    .free = p2p_free,
};
