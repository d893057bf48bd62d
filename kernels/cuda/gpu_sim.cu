/* gpu_sim.cu - device state of a GPU variant: allocation (every byte counted for the
 * bytes/atom statistic), texture objects, upload/download of the host mirror, CUDA-event
 * stage timers, pair enumeration for --check, and the Variant table every GPU variant
 * starts from.
 *
 * Capacities follow the one policy of kernels/capacity.h. Estimates when the knobs are 0
 * (automatic): the largest of many Poisson counts (poisson_max) around the mean number of
 * neighbours within r_n, 4/3 pi r_n^3 rho, and around the mean cell occupancy N / G^3 for the
 * layers (quantum 4: rows of H are read as int4). Fluctuations beyond that are met by
 * growing (counted in stats.grows), never by truncating. */
#include "gpu_sim.cuh"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unordered_map>

/* Every live gpu_alloc block of this process, so the autotuner's leak check counts the
 * harness's own bytes: cudaMemGetInfo is device-wide and moves with other processes. */
static std::unordered_map<void *, size_t> g_live;
static double g_live_bytes;

void *gpu_alloc(GpuSim *g, size_t bytes, const char *what)
{
    void *ptr = NULL;
    if (bytes == 0) bytes = 1;
    cudaError_t err = cudaMalloc(&ptr, bytes);
    if (err == cudaErrorMemoryAllocation) {
        cudaGetLastError();
        nbr_fail(EXIT_CAPACITY,
                 "gpu: cannot allocate %.4g MB of device memory for %s (%.4g MB already allocated, "
                 "device has %.4g MB): lower --ne or the capacities",
                 bytes / 1e6, what, g->bytes / 1e6, g->prop.totalGlobalMem / 1e6);
    }
    cuda_check(err, what, __FILE__, __LINE__);
    g->bytes += (double)bytes;
    g_live[ptr] = bytes;
    g_live_bytes += (double)bytes;
    return ptr;
}

void gpu_release(void *ptr)
{
    if (!ptr) return;
    auto it = g_live.find(ptr);
    if (it != g_live.end()) {
        g_live_bytes -= (double)it->second;
        g_live.erase(it);
    }
    CUDA_CHECK(cudaFree(ptr));
}

void gpu_free(GpuSim *g, void *ptr, size_t bytes)
{
    if (!ptr) return;
    gpu_release(ptr);
    g->bytes -= (double)(bytes ? bytes : 1);
}

cudaTextureObject_t gpu_texture(const void *ptr, size_t bytes, cudaChannelFormatDesc desc, const GpuSim *g,
                                const char *what)
{
    size_t elem = (desc.x + desc.y + desc.z + desc.w) / 8;
    int limit = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&limit, cudaDevAttrMaxTexture1DLinearWidth, 0));
    if (bytes / elem > (size_t)limit)
        nbr_fail(EXIT_INPUT,
                 "gpu: --read texture: %s needs %zu texture elements, over this device's 1D limit of %d: "
                 "use --read ldg",
                 what, bytes / elem, limit);
    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeLinear;
    res.res.linear.devPtr = (void *)ptr;
    res.res.linear.desc = desc;
    res.res.linear.sizeInBytes = bytes;
    cudaTextureDesc tex;
    memset(&tex, 0, sizeof tex);
    tex.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CUDA_CHECK(cudaCreateTextureObject(&t, &res, &tex, NULL));
    return t;
}

/* (Re)creates the textures that follow reallocated arrays. */
static void make_textures(GpuSim *g, const Sim *s)
{
    if (s->p.read != READ_TEXTURE) return;
    const size_t rbytes = sizeof(real4) * (size_t)s->n;
    if (!g->tex_r) {
        g->tex_r = gpu_texture(g->r, rbytes, cudaCreateChannelDesc<int4>(), g, "positions");
        g->tex_r_alt = gpu_texture(g->r_alt, rbytes, cudaCreateChannelDesc<int4>(), g, "positions");
        if (g->H) g->tex_count = gpu_texture(g->cell_count, sizeof(int) * (size_t)g->grid.ncells,
                                             cudaCreateChannelDesc<int>(), g, "cell occupancies");
    }
    if (!g->H) return;   /* no cell grid (gpu_init_opts) */
    if (g->tex_H) CUDA_CHECK(cudaDestroyTextureObject(g->tex_H));
    g->tex_H = gpu_texture(g->H, sizeof(int) * (size_t)g->grid.ncells * g->layer_cap, cudaCreateChannelDesc<int4>(),
                           g, "the cell-layer matrix H");
}

int gpu_fit_layers(Sim *s, GpuSim *g, int needed)
{
    if (!capacity_short(s, &g->layer_capacity, (size_t)needed)) return 0;
    gpu_free(g, g->H, sizeof(int) * (size_t)g->grid.ncells * g->layer_cap);
    g->layer_cap = (int)g->layer_capacity.cap;
    g->H = (int *)gpu_alloc(g, sizeof(int) * (size_t)g->grid.ncells * g->layer_cap, "the cell-layer matrix H");
    make_textures(g, s);
    s->stats.bytes = g->bytes;
    return 1;
}

int gpu_fit_nbr(Sim *s, GpuSim *g, int needed)
{
    if (!capacity_short(s, &g->nbr_capacity, (size_t)needed)) return 0;
    gpu_free(g, g->W, sizeof(int) * (size_t)g->nbr_cap * g->w_rows);
    g->nbr_cap = (int)g->nbr_capacity.cap;
    g->W = (int *)gpu_alloc(g, sizeof(int) * (size_t)g->nbr_cap * g->w_rows, "the neighbour matrix W");
    s->stats.bytes = g->bytes;
    return 1;
}

void *gpu_pinned(size_t bytes, const char *what)
{
    void *ptr = NULL;
    cudaError_t err = cudaMallocHost(&ptr, bytes ? bytes : 1);
    if (err != cudaSuccess) {
        cudaGetLastError();
        nbr_fail(EXIT_CAPACITY, "gpu: cannot allocate %.4g MB of pinned host memory for %s: lower --ne", bytes / 1e6,
                 what);
    }
    return ptr;
}

void gpu_ensure_stage(GpuSim *g, int n)
{
    if (g->stage_r) return;
    g->stage_r = (real4 *)gpu_pinned(sizeof(real4) * n, "host staging");
    g->stage_v = (real4 *)gpu_pinned(sizeof(real4) * n, "host staging");
    g->stage_a = (real4 *)gpu_pinned(sizeof(real4) * n, "host staging");
    g->stage_u = (real *)gpu_pinned(sizeof(real) * n, "host staging");
}

int gpu_init(Sim *s) { return gpu_init_opts(s, 1); }

void gpu_preflight(const Sim *s) { cuda_require_device(s->variant->name); }

int gpu_init_opts(Sim *s, int cell_grid)
{
    GpuSim *g = new GpuSim();
    s->ctx = g;
    const int n = s->n;
    int ndev = 0;
    cuda_require_device(s->variant->name);   /* nbr_main's preflight said so already */
    CUDA_CHECK(cudaGetDeviceCount(&ndev));
    if (s->p.device >= ndev)
        nbr_fail(EXIT_INPUT, "%s: --device %d: this machine has %d CUDA device(s), numbered 0 to %d", s->variant->name,
                 s->p.device, ndev, ndev - 1);
    CUDA_CHECK(cudaSetDevice(s->p.device));
    CUDA_CHECK(cudaGetDeviceProperties(&g->prop, s->p.device));
    if (s->p.decide == DECIDE_DEVICE) {
        /* the host takes part in no step: nothing may need it between sample points */
        if (s->ran.layers != WHERE_DEVICE || (s->ran.reorder > 0 && s->ran.reorder_at != WHERE_DEVICE))
            nbr_fail(EXIT_INPUT, "%s: --decide device needs --layers device and --reorder-at device (the host versions "
                                 "take part in every rebuild)", s->variant->name);
    } else if (s->p.graph) {
        nbr_fail(EXIT_INPUT, "%s: --graph on needs --decide device (with host decisions the host takes part in every "
                             "step)", s->variant->name);
    }
    snprintf(g->device_name, sizeof g->device_name, "%s", g->prop.name);
    CUDA_CHECK(cudaStreamCreateWithFlags(&g->stream, cudaStreamNonBlocking));
    for (int k = 0; k < TIMER_SLOTS; k++) CUDA_CHECK(cudaEventCreate(&g->marks[k]));

    if (cell_grid) g->grid = cells_init(s->L, s->rn, s->n, s->variant->name);
    s->stats.cells_per_axis = g->grid.G;
    g->threads = s->p.threads;
    g->blocks = blocks_for(n, g->threads);
    const size_t nc = (size_t)g->grid.ncells;

    g->r = (real4 *)gpu_alloc(g, sizeof(real4) * n, "positions");
    g->v = (real4 *)gpu_alloc(g, sizeof(real4) * n, "velocities");
    g->a = (real4 *)gpu_alloc(g, sizeof(real4) * n, "accelerations");
    g->r_alt = (real4 *)gpu_alloc(g, sizeof(real4) * n, "reordered positions");
    g->v_alt = (real4 *)gpu_alloc(g, sizeof(real4) * n, "reordered velocities");
    g->u = (real *)gpu_alloc(g, sizeof(real) * n, "per-atom energies");
    g->nbr_count = (int *)gpu_alloc(g, sizeof(int) * n, "neighbour counts");
    if (cell_grid) {
        g->cell_of = (int *)gpu_alloc(g, sizeof(int) * n, "cell of each atom");
        g->layer_of = (int *)gpu_alloc(g, sizeof(int) * n, "layer of each atom");
        g->cell_count = (int *)gpu_alloc(g, sizeof(int) * nc, "cell occupancies");
        cellsort_reserve(&g->sort, g, 0, (int)nc, CELLSORT_START, 0, g->stream);
        capacity_init(&g->layer_capacity, s->variant->name, "cell-layer matrix H", "layers", "max-layers",
                      s->p.max_layers, poisson_max((double)n / g->grid.ncells), 4);
        g->layer_cap = (int)g->layer_capacity.cap;
        g->H = (int *)gpu_alloc(g, sizeof(int) * nc * g->layer_cap, "the cell-layer matrix H");
        CUDA_CHECK(cudaMemset(g->cell_count, 0, sizeof(int) * nc));
    }
    /* a full list holds at most n - 1 entries per atom (small boxes: the Poisson estimate can exceed n) */
    capacity_init(&g->nbr_capacity, s->variant->name, "neighbour matrix W", "neighbours per atom", "max-nbr",
                  s->p.max_nbr, nbr_start_estimate(s, fmin(poisson_max(neighbours_within(s, s->rn)), (double)n)), 1);
    g->nbr_cap = (int)g->nbr_capacity.cap;
    g->w_rows = n;
    g->W = (int *)gpu_alloc(g, sizeof(int) * (size_t)g->nbr_cap * n, "the neighbour matrix W");
    g->status = (BuildStatus *)gpu_alloc(g, sizeof(BuildStatus), "build status");
    g->parts = (double *)gpu_alloc(g, sizeof(double) * NPARTS * g->blocks, "reduction partials");
    g->status_host = (BuildStatus *)gpu_pinned(sizeof(BuildStatus), "build status");
    g->parts_host = (double *)gpu_pinned(sizeof(double) * NPARTS * g->blocks, "reduction partials");
    CUDA_CHECK(cudaHostAlloc((void **)&g->props_host, sizeof(double) * NPARTS, cudaHostAllocMapped));
    CUDA_CHECK(cudaHostGetDevicePointer((void **)&g->props_dev, (void *)g->props_host, 0));
    /* U and the virial are those of the last force evaluation: zero before the first */
    CUDA_CHECK(cudaMemset(g->parts, 0, sizeof(double) * NPARTS * g->blocks));
    make_textures(g, s);

    gpu_upload(s);
    CUDA_CHECK(cudaMemsetAsync(g->a, 0, sizeof(real4) * n, g->stream));
    CUDA_CHECK(cudaMemsetAsync(g->u, 0, sizeof(real) * n, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    s->stats.bytes = g->bytes;
    return 0;
}

void gpu_finish(Sim *s)
{
    GpuSim *g = gpu_of(s);
    if (!g) return;
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    cudaTextureObject_t texs[] = {g->tex_r, g->tex_r_alt, g->tex_H, g->tex_count};
    for (cudaTextureObject_t t : texs)
        if (t) CUDA_CHECK(cudaDestroyTextureObject(t));
    cellsort_free(&g->sort, g);
    void *dev[] = {g->r, g->v, g->a, g->r_alt, g->v_alt, g->u, g->cell_of, g->layer_of, g->cell_count, g->H, g->W,
                   g->nbr_count, g->status, g->parts, g->force_scratch, g->force_tickets};
    for (void *p : dev) gpu_release(p);
    void *host[] = {g->status_host, g->parts_host, (void *)g->props_host, g->stage_r, g->stage_v, g->stage_r2,
                    g->stage_v2, g->stage_a, g->stage_u, g->host_cells, g->host_layers, g->host_counts, g->host_H};
    for (void *p : host)
        if (p) CUDA_CHECK(cudaFreeHost(p));
    free(g->host_order);
    for (int k = 0; k < TIMER_SLOTS; k++) CUDA_CHECK(cudaEventDestroy(g->marks[k]));
    if (g->device_mode) {
        gpu_release_graphs(g);
        void *dm[] = {g->ctrl, g->ctrl_snap, g->snap_r, g->snap_v, g->snap_a, g->leap_ticket};
        for (void *p : dm) gpu_release(p);
        CUDA_CHECK(cudaFreeHost(g->ctrl_host));
        CUDA_CHECK(cudaEventDestroy(g->sample_done));
    }
    CUDA_CHECK(cudaStreamDestroy(g->stream));
    if (g->body_stream) CUDA_CHECK(cudaStreamDestroy(g->body_stream));
    delete g;
    s->ctx = NULL;
}

void gpu_download(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const int n = s->n;
    gpu_ensure_stage(g, n);
    CUDA_CHECK(cudaMemcpyAsync(g->stage_r, g->r, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->stage_v, g->v, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->stage_a, g->a, sizeof(real4) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->stage_u, g->u, sizeof(real) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    for (int i = 0; i < n; i++) {
        s->r[i] = vec3{g->stage_r[i].x, g->stage_r[i].y, g->stage_r[i].z};
        s->q[i] = g->stage_r[i].w;   /* the charges moved with their atoms if the device reordered */
        s->v[i] = vec3{g->stage_v[i].x, g->stage_v[i].y, g->stage_v[i].z};
        s->a[i] = vec3{g->stage_a[i].x, g->stage_a[i].y, g->stage_a[i].z};
        s->u[i] = g->stage_u[i];
    }
}

void gpu_upload(Sim *s)
{
    GpuSim *g = gpu_of(s);
    const int n = s->n;
    gpu_ensure_stage(g, n);
    for (int i = 0; i < n; i++) {
        g->stage_r[i] = make_real4(s->r[i].x, s->r[i].y, s->r[i].z, s->q[i]);   /* q in r.w */
        g->stage_v[i] = make_real4(s->v[i].x, s->v[i].y, s->v[i].z, 0);
    }
    CUDA_CHECK(cudaMemcpyAsync(g->r, g->stage_r, sizeof(real4) * n, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(g->v, g->stage_v, sizeof(real4) * n, cudaMemcpyHostToDevice, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    g->v_parts_valid = 0;
    g->built = 0;
}

void gpu_for_each_pair(Sim *s, PairFn fn, void *arg)
{
    GpuSim *g = gpu_of(s);
    const int n = s->n, cap = g->nbr_cap;
    int *count = (int *)nbr_alloc(sizeof(int) * n, "neighbour counts (host copy)");
    int *W = (int *)nbr_alloc(sizeof(int) * (size_t)cap * n, "neighbour matrix (host copy)");
    CUDA_CHECK(cudaMemcpyAsync(count, g->nbr_count, sizeof(int) * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaMemcpyAsync(W, g->W, sizeof(int) * (size_t)cap * n, cudaMemcpyDeviceToHost, g->stream));
    CUDA_CHECK(cudaStreamSynchronize(g->stream));
    const int row = s->p.wlayout == WLAYOUT_ROW;
    for (int i = 0; i < n; i++) {
        int m_i = count[i] < cap ? count[i] : cap;
        for (int m = 0; m < m_i; m++)
            fn(i, W[row ? w_index<WLAYOUT_ROW>(m, i, n, cap) : w_index<WLAYOUT_COL>(m, i, n, cap)], arg);
    }
    free(count);
    free(W);
}

void gpu_timer_mark(Sim *s, int slot) { CUDA_CHECK(cudaEventRecord(gpu_of(s)->marks[slot], gpu_of(s)->stream)); }

double gpu_timer_seconds(Sim *s, int from, int to)
{
    GpuSim *g = gpu_of(s);
    float ms = 0;
    CUDA_CHECK(cudaEventSynchronize(g->marks[to]));
    CUDA_CHECK(cudaEventElapsedTime(&ms, g->marks[from], g->marks[to]));
    return ms * 1e-3;
}

const char *gpu_device_name(Sim *s) { return gpu_of(s)->device_name; }

void gpu_device_query(const Sim *s, char *name, size_t len, double *used_bytes)
{
    cudaDeviceProp prop;
    int ndev = 0;
    const int have = cudaGetDeviceCount(&ndev) == cudaSuccess && s->p.device < ndev &&
                     cudaGetDeviceProperties(&prop, s->p.device) == cudaSuccess;
    cudaGetLastError();
    snprintf(name, len, "%s", have ? prop.name : "none");
    *used_bytes = have ? g_live_bytes : -1;
}

/* The knobs of the shared stages, which every W program has: the skin, the block size of the
 * per-atom kernels (gpu-old's list kernel takes N_l, not this), the force kernel's lanes per atom
 * and the read path; searched by the generic coordinate descent (common/tune.h). */
static const TuneDecl gpu_w_tune = {4, {{"delta", NULL, 0.05, 1.5, 0.05, NULL},
                                        {"threads", "32 64 128 256 512 1024", 0, 0, 0, "128"},
                                        {"tp", "1 2 4 8 16 32", 0, 0, 0, "1"},
                                        {"read", "texture ldg plain", 0, 0, 0, "texture"}}, 1, NULL};

/* The knobs of the shared stages (a declaration that leaves knobs 0 has these): the W build, its
 * cells and layers, the shared forces and the device loop. */
static const unsigned gpu_common_knobs = KNOB_THREADS | KNOB_READ | KNOB_REORDER | KNOB_WLAYOUT | KNOB_LAYERS |
                                         KNOB_REDUCE | KNOB_LIST | KNOB_LAYERCAP | KNOB_DECIDE | KNOB_GRAPH |
                                         KNOB_DEVICE | KNOB_TP | KNOB_LEAPFROG | KNOB_AUTOTUNE;

Variant gpu_variant(Variant v)
{
    if (!v.knobs) v.knobs = gpu_common_knobs;
    v.has_u = 1;   /* every GPU force stage fills u */
    if (!v.pair_multiplicity) v.pair_multiplicity = 2;   /* full lists: no Newton 3 on the GPU (the paper) */
    /* the harness: device, state, leapfrog, wrap, sums, timers, download, W's pairs */
    if (!v.preflight) v.preflight = gpu_preflight;
    if (!v.init) v.init = gpu_init;
    if (!v.finish) v.finish = gpu_finish;
    if (!v.kick_drift) v.kick_drift = gpu_kick_drift;
    if (!v.wrap) v.wrap = gpu_wrap;
    if (!v.kick) v.kick = gpu_kick;
    if (!v.props) v.props = gpu_props;
    if (!v.rescale) v.rescale = gpu_rescale;
    if (!v.download) v.download = gpu_download;
    if (!v.for_each_pair) v.for_each_pair = gpu_for_each_pair;
    if (!v.timer_mark) v.timer_mark = gpu_timer_mark;
    if (!v.timer_seconds) v.timer_seconds = gpu_timer_seconds;
    if (!v.device_name) v.device_name = gpu_device_name;
    if (!v.device_query) v.device_query = gpu_device_query;
    /* the shared reordering (of H's cells, host or device) only where --reorder is a knob */
    if (!v.reorder && (v.knobs & KNOB_REORDER)) v.reorder = gpu_reorder;
    /* the shared forces, with their bytes and their tuner (the stages' knobs) */
    if (!v.forces) {
        v.forces = gpu_forces;
        if (!v.stage_bytes) v.stage_bytes = gpu_stage_bytes;
        if (!v.tune && (v.knobs & KNOB_AUTOTUNE)) v.tune = &gpu_w_tune;
    }
    /* the shared device loop: its per-step stages, sample points and graphs come with it */
    if (!v.device_begin) {
        v.device_begin = gpu_device_begin;
        if (!v.device_rebuild) v.device_rebuild = gpu_device_rebuild;
        if (!v.device_decide) v.device_decide = gpu_device_decide;
        if (!v.leapfrog) v.leapfrog = gpu_leapfrog;
        if (!v.sample) v.sample = gpu_sample;
        if (!v.chunk_replay) v.chunk_replay = gpu_chunk_replay;
        if (!v.chunk_begin) v.chunk_begin = gpu_chunk_begin;
        if (!v.chunk_end) v.chunk_end = gpu_chunk_end;
    }
    return v;
}
