/* chunk_control.cuh - a chunk kernel's side of the device loop (device_loop.cu): the state it
 * steps, the snapshot the sample point's replay restores, each atom's end of a step, and the
 * control block and sums it leaves for the sample point in mapped memory (one event, no copy).
 * Every thread of a chunk keeps the rebuild count in registers and takes the same decisions
 * (decide.cuh): the step's largest v^2 is exchanged first (chunk_sync.cuh's step_max). */
#ifndef NBR_CHUNK_CONTROL_CUH
#define NBR_CHUNK_CONTROL_CUH

#include "chunk_sync.cuh"
#include "decide.cuh"
#include "leapfrog.cuh"
#include "pair_force.cuh"

/* The device loop's arrays and constants for `nsteps` steps between two sample points. */
struct ChunkState {
    real4 *r, *v, *a;
    real *u;
    real4 *snap_r, *snap_v, *snap_a;
    DeviceControl *ctrl, *ctrl_snap, *ctrl_host;   /* ctrl_host: GpuSim's, mapped (the device's address) */
    double *props;                                 /* the sample point's sums (PART_*: GpuSim's props, mapped) */
    ChunkScratch *scratch;                         /* the grid's cross-block reductions */
    PairPotential pot;
    int n, nsteps, equil;
    PbcBox box;
    real dt, half_dt;
    double ddt, threshold;
};

inline ChunkState chunk_state(Sim *s, int nsteps, DeviceControl *ctrl_host_dev, ChunkScratch *scratch)
{
    const GpuSim *g = gpu_of(s);
    ChunkState c;
    c.r = g->r; c.v = g->v; c.a = g->a; c.u = g->u;
    c.snap_r = g->snap_r; c.snap_v = g->snap_v; c.snap_a = g->snap_a;
    c.ctrl = g->ctrl; c.ctrl_snap = g->ctrl_snap; c.ctrl_host = ctrl_host_dev; c.props = g->props_dev;
    c.scratch = scratch;
    c.pot = s->pot;
    c.n = s->n; c.nsteps = nsteps; c.equil = s->p.equil;
    c.box = pbc_box(s->L);
    c.dt = (real)s->p.dt; c.half_dt = (real)(0.5 * s->p.dt);
    c.ddt = s->p.dt; c.threshold = s->p.rebuild_frac * s->p.delta;
    return c;
}

__device__ __forceinline__ RebuildCount chunk_count(const DeviceControl *ctrl)
{
    RebuildCount c;
    rebuild_count_copy(c, *ctrl);
    return c;
}

/* Atom i at the chunk's start: where `own`, its state at the sample point into the snapshot;
 * then the first half-kick and drift (ri, vi returned). */
__device__ __forceinline__ void chunk_first_drift(const ChunkState &A, int i, bool own, real4 &ri, real4 &vi)
{
    ri = A.r[i];
    vi = A.v[i];
    const real4 ai = A.a[i];
    if (own) { A.snap_r[i] = ri; A.snap_v[i] = vi; A.snap_a[i] = ai; }
    half_kick(vi, ai, A.half_dt);
    drift(ri, vi, A.dt);
}

/* Atom i's end of a step after its forces f: the second half-kick (its v^2 into vv_t), then the
 * next step's half-kick and drift into r_next (returns 1), or at the chunk's last step the sample
 * point: where `store`, the state after the kick into A's arrays and its sums into S (returns 0).
 * ri, vi: the atom's position and velocity, loaded by the caller (in the grid before the forces,
 * so that their L2 latency hides behind the pair loop's), vi kicked in place. */
__device__ __forceinline__ int chunk_atom_end(int i, const ForceSum &f, const real4 &ri, real4 &vi, bool last,
                                              bool store, const ChunkState &A, double &vv_t, ChunkSums &S,
                                              real4 &r_next)
{
    const real4 ai = make_real4(f.fx, f.fy, f.fz, 0);
    r_next = ri;
    const double vv = leapfrog_end(vi, ai, A.half_dt, A.dt, !last, &r_next);
    vv_t = fmax(vv_t, vv);
    if (!last) return 1;
    if (store) {
        A.r[i] = ri;
        A.a[i] = ai;
        A.u[i] = (real)0.5 * f.u;
        A.v[i] = vi;
        S.ukin += vv;
        S.upot += (real)0.5 * f.u;
        S.vir += (real)0.5 * f.w;
    }
    return 0;
}

/* The sample point from the chunk's totals T over every thread (c: the rebuild count each kept;
 * built: whether the chunk built, so T.nb_last is the last build's; vv_last: the last step's
 * largest v^2), by one thread. */
__device__ __forceinline__ void chunk_done(const RebuildCount &c, const ChunkSums &T, int built, double vv_last,
                                           const ChunkState &A)
{
    DeviceControl d = *A.ctrl;
    rebuild_count_copy(d, c);
    d.nbr_max_seen = max(d.nbr_max_seen, T.nb_max);
    d.cell_max_seen = max(d.cell_max_seen, T.cell_max);
    if (built) d.nbr_last = (unsigned long long)T.nb_last;
    d.nbr_sum_prod += T.nb_prod;
    *A.ctrl = d;
    *A.ctrl_host = d;
    A.props[PART_UKIN] = T.ukin; A.props[PART_UPOT] = T.upot;
    A.props[PART_VIRIAL] = T.vir; A.props[PART_VVMAX] = vv_last;
}

#endif
