/* test_components.cu - device components on their own: each wrapped in a small kernel and
 * compared with its host counterpart on crafted inputs (issue 36, tests/cases_52_components.sh).
 *
 *   test-components [GROUP]   GROUP: rebuild, cells, scan, pair, reduce, list or sync; none: all of them
 *
 * Prints one line per check ("ok" or "FAIL", a failure naming the first atom, pair or block that
 * differs), then "N passed, M failed"; exit 0 when all pass, 1 when one fails, 2 when no GPU can
 * run it (or an unknown group: one line), 3 on a CUDA error (one line).
 *
 *   rebuild  the rebuild rule (kernels/rebuild_rule.h): tests/rebuild_cases.h's steps, a run of 400
 *            steps to its first rebuild, the build hash and the prune test, every value bit for bit
 *            as on the host. The test checks its own power: on the first crafted step the fused
 *            multiply-add that nvcc makes of `disp + sqrt(vv) * dt` must cross the threshold where
 *            the rule does not.
 *   cells    cell_of_position and cell_bin (gpu_sim.cuh) against kernels/cpu/cells.c (tests/comp_cells.cuh)
 *   scan     the counting sort's gated scan of cell counts, both ways (cell_scan.cuh) against the
 *            host's, and nothing written with the gate off (tests/comp_scan.cuh)
 *   pair     pair_force_add (pair_force.cuh) against the reference's pair_u_double (tests/comp_pair.cuh)
 *   reduce   warp_reduce and block_reduce (reduce.cuh) against host sums and maxima (tests/comp_reduce.cuh)
 *   list     build_n2_block (rumd_lists.cuh) and the 16- and 32-bit rows (atom_rows.cuh: n2 and cells)
 *            against an O(N^2) host list (tests/comp_list.cuh, comp_rows.cuh)
 *   sync     the chunk kernels' sync and reduce policies (chunk_sync.cuh): the step's largest value
 *            in every thread, the chunk's totals (tests/comp_sync.cuh)
 *
 * The test builds with a planted fault (-DCOMPONENT_PLANT=K, kernels/component_plant.h) must fail
 * their group (docs/mutants.md). */
#include "../kernels/cuda/atom_rows.cuh"
#include "../kernels/cuda/cell_scan.cuh"
#include "../kernels/cuda/chunk_sync.cuh"
#include "../kernels/cuda/rumd_lists.cuh"
#include "../kernels/rebuild_rule.h"
#include "rebuild_cases.h"

#include <cuda_runtime.h>

#include <algorithm>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

static int passed, failed;

static void expect(int ok, const char *what)
{
    ok ? passed++ : failed++;
    printf("%s  %s\n", ok ? "ok  " : "FAIL", what);
}

/* exit 3, not 1: a planted fault's test must tell a caught fault from a crash */
static void cuda_or_die(cudaError_t e, const char *what)
{
    if (e == cudaSuccess) return;
    fprintf(stderr, "test-components: %s: %s\n", what, cudaGetErrorString(e));
    exit(3);
}

/* device copies of host vectors, and back */
template <class T>
static T *to_device(const std::vector<T> &h)
{
    T *d = nullptr;
    cuda_or_die(cudaMalloc(&d, sizeof(T) * (h.empty() ? 1 : h.size())), "cudaMalloc");
    if (!h.empty()) cuda_or_die(cudaMemcpy(d, h.data(), sizeof(T) * h.size(), cudaMemcpyHostToDevice), "copy in");
    return d;
}

template <class T>
static std::vector<T> from_device(const T *d, size_t n, const char *what)
{
    std::vector<T> h(n);
    cuda_or_die(cudaGetLastError(), what);   /* the launch */
    cuda_or_die(cudaDeviceSynchronize(), what);
    if (n) cuda_or_die(cudaMemcpy(h.data(), d, sizeof(T) * n, cudaMemcpyDeviceToHost), what);
    return h;
}

/* a fixed stream of pseudo-random numbers (splitmix64): the same inputs every run */
struct Rng {
    uint64_t s;
    uint64_t next()
    {
        uint64_t z = (s += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return (double)(next() >> 11) * 0x1.0p-53; }   /* [0, 1) */
    int below(int n) { return (int)(next() % (uint64_t)n); }
};

/* n positions uniform in the box [-L/2, L/2)^3 (in `real`, wrapped after rounding), charges q */
static std::vector<real4> random_positions(Rng &g, int n, real L, real q)
{
    std::vector<real4> r(n);
    for (int i = 0; i < n; i++) {
        real x[3];
        for (int k = 0; k < 3; k++) x[k] = pbc_wrap((real)((g.uniform() - 0.5) * (double)L), L);
        r[i] = make_real4(x[0], x[1], x[2], q);
    }
    return r;
}

/* ---- the rebuild rule -------------------------------------------------------------------- */

struct RuleIn {
    RebuildCase cases[REBUILD_NCASES];
    double run_vv[REBUILD_RUN_STEPS];   /* made on the host: the device must not round them again */
    long long hash_steps[3];
};

struct RuleOut {
    int due[REBUILD_NCASES], fused_due[REBUILD_NCASES];
    double disp[REBUILD_NCASES];
    unsigned long long hash;
    int prune[3];
    int run_step;
    double run_disp;
};

/* the rule's answers for every crafted input, in one thread: the same code on both sides */
__host__ __device__ static void rule_answers(const RuleIn *in, RuleOut *o)
{
    for (int k = 0; k < REBUILD_NCASES; k++) {
        const RebuildCase c = in->cases[k];
        double disp = c.disp;
        o->due[k] = rebuild_after_step(&disp, c.vv, c.dt, c.threshold);
        o->disp[k] = disp;
        o->fused_due[k] = fma(sqrt(c.vv), c.dt, c.disp) >= c.threshold;
    }
    unsigned long long h = 0;
    for (int k = 0; k < 3; k++) h = rebuild_hash_add(h, in->hash_steps[k]);
    o->hash = h;
    o->prune[0] = prune_due(1, 0, 0, 1);
    o->prune[1] = prune_due(0, 0.75, 0.25, 0.5);
    o->prune[2] = prune_due(0, 0.75, 0.25, 0x1.0000000000001p-1);
    double disp = 0;
    o->run_step = -1;
    for (int k = 0; k < REBUILD_RUN_STEPS; k++)
        if (rebuild_after_step(&disp, in->run_vv[k], 0.005, 0.15)) { o->run_step = k; break; }
    o->run_disp = disp;
}

__global__ void rule_kernel(const RuleIn *in, RuleOut *o) { rule_answers(in, o); }

static void test_rebuild_rule(void)
{
    RuleIn in;
    memcpy(in.cases, rebuild_cases, sizeof in.cases);
    for (int k = 0; k < REBUILD_RUN_STEPS; k++) in.run_vv[k] = rebuild_run_vv(k);
    memcpy(in.hash_steps, rebuild_hash_steps, sizeof in.hash_steps);
    RuleOut host, dev;
    rule_answers(&in, &host);
    RuleIn *d_in;
    RuleOut *d_out;
    cuda_or_die(cudaMalloc(&d_in, sizeof in), "cudaMalloc");
    cuda_or_die(cudaMalloc(&d_out, sizeof dev), "cudaMalloc");
    cuda_or_die(cudaMemcpy(d_in, &in, sizeof in, cudaMemcpyHostToDevice), "copy in");
    rule_kernel<<<1, 1>>>(d_in, d_out);
    cuda_or_die(cudaGetLastError(), "rule_kernel launch");
    cuda_or_die(cudaMemcpy(&dev, d_out, sizeof dev, cudaMemcpyDeviceToHost), "rule_kernel");
    cudaFree(d_in);
    cudaFree(d_out);

    char what[200];
    for (int k = 0; k < REBUILD_NCASES; k++) {
        snprintf(what, sizeof what, "rebuild rule on the device: %s (due %d, want %d; sum %a, host %a)",
                 rebuild_cases[k].what, dev.due[k], rebuild_cases[k].due, dev.disp[k], host.disp[k]);
        expect(dev.due[k] == rebuild_cases[k].due && host.due[k] == rebuild_cases[k].due &&
                   memcmp(&dev.disp[k], &host.disp[k], sizeof(double)) == 0,
               what);
    }
    expect(dev.fused_due[0] == 1 && rebuild_cases[0].due == 0,
           "the test's power: a fused multiply-add crosses the first case's threshold on this device");
    snprintf(what, sizeof what, "rebuild hash on the device: %llu (host %llu)", dev.hash, host.hash);
    expect(dev.hash == host.hash && host.hash == REBUILD_HASH_WANT, what);
    snprintf(what, sizeof what, "prune test on the device: %d %d %d (want 1 1 0)", dev.prune[0], dev.prune[1],
             dev.prune[2]);
    expect(dev.prune[0] == 1 && dev.prune[1] == 1 && dev.prune[2] == 0, what);
    snprintf(what, sizeof what, "a %d-step run rebuilds after step %d on the device, %d on the host (sum %a, %a)",
             REBUILD_RUN_STEPS, dev.run_step, host.run_step, dev.run_disp, host.run_disp);
    expect(dev.run_step == host.run_step && host.run_step > 0 &&
               memcmp(&dev.run_disp, &host.run_disp, sizeof(double)) == 0,
           what);
}

#include "comp_cells.cuh"
#include "comp_list.cuh"
#include "comp_pair.cuh"
#include "comp_reduce.cuh"
#include "comp_scan.cuh"
#include "comp_sync.cuh"

int main(int argc, char **argv)
{
    static const struct { const char *name; void (*run)(void); } groups[] = {
        {"rebuild", test_rebuild_rule}, {"cells", test_cells}, {"scan", test_scan}, {"pair", test_pair},
        {"reduce", test_reduce},        {"list", test_list},   {"sync", test_sync},
    };
    const int ngroups = (int)(sizeof groups / sizeof groups[0]);
    const char *want = argc > 1 ? argv[1] : NULL;
    int found = want == NULL;
    for (int k = 0; k < ngroups; k++) found |= want && strcmp(want, groups[k].name) == 0;
    if (argc > 2 || !found) {
        fprintf(stderr, "test-components: usage: test-components [GROUP], GROUP one of");
        for (int k = 0; k < ngroups; k++) fprintf(stderr, "%s %s", k ? "," : "", groups[k].name);
        fprintf(stderr, " (none: all)\n");
        return 2;
    }
    int ngpu = 0;
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        fprintf(stderr, "test-components: no GPU found\n");
        return 2;
    }
    if (COMPONENT_PLANT) printf("planted fault %d compiled in (kernels/component_plant.h)\n", COMPONENT_PLANT);
    for (int k = 0; k < ngroups; k++)
        if (!want || strcmp(want, groups[k].name) == 0) groups[k].run();
    printf("%d passed, %d failed\n", passed, failed);
    return failed != 0;
}
