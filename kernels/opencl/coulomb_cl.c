/* coulomb_cl.c - host side of the OpenCL Coulomb energy (see coulomb_cl.h, coulomb.cl).
 * Setup (not timed, as in the thesis): platform and device, the program built for --unroll,
 * --ipt, --acc and --sweep, positions uploaded as (x, y, z, q) padded to whole work-groups. One
 * evaluation: pass 1 over all atoms (work-group b: row tile b; --sweep folded: row tiles b and
 * rows - 1 - b), pass 2 over the work-groups' sums, timed by the OpenCL
 * profiling events from the start of pass 1 to the end of pass 2. */
#define CL_TARGET_OPENCL_VERSION 120
#include "coulomb_cl.h"
#include "../../common/fail.h"

#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_context ctx;
    cl_command_queue queue;
    cl_program prog;
    cl_kernel k_energy, k_sum;
    cl_mem pos, hi, lo, result;
    cl_uint rows, groups;   /* row tiles; work-groups launched (folded: (rows + 1) / 2) */
    size_t block, block2, real_size;
    char device[200];
} ClCtx;

static void ck(cl_int err, const char *what)
{
    if (err != CL_SUCCESS) nbr_fail(EXIT_INTERNAL, "coulomb: OpenCL %s failed (error %d)", what, (int)err);
}

#ifdef NBR_PLANT_CL_LIMITS
/* Test hooks, compiled only into the test build test-coulomb-cl (Makefile), for
 * tests/cases_80_coulomb.sh: PoCL allows 4096 work-items per work-group and 1 MiB of local
 * memory, more than any legal --wg (at most 1024) and --ipt need (144 KiB), so on it the checks
 * below could never fire. NBR_CL_FAKE_MAX_WG=N and NBR_CL_FAKE_LOCAL_MEM=BYTES lower (never
 * raise) CL_DEVICE_MAX_WORK_GROUP_SIZE and CL_DEVICE_LOCAL_MEM_SIZE as the checks see them; the
 * message then says so. Unset, the device's own values are used. */
static cl_ulong lowered(cl_ulong v, const char *s, const char *env, char *note, size_t note_size)
{
    if (!s || !*s) return v;
    char *end;
    unsigned long long x = strtoull(s, &end, 10);
    if (*end || x == 0) nbr_fail(EXIT_INPUT, "coulomb: %s='%s' is not a positive integer", env, s);
    if (x >= v) return v;
    snprintf(note, note_size, " (lowered from the device's %llu by %s)", (unsigned long long)v, env);
    return x;
}
#endif

static void cl_setup(CoulombRun *r)
{
    const CoulombParams *p = r->p;
    ClCtx *c = calloc(1, sizeof *c);
    if (!c) nbr_fail(EXIT_CAPACITY, "cannot allocate the OpenCL context");
    cl_uint nplat = 0, ndev = 0;
    cl_platform_id plats[64];
    if (clGetPlatformIDs(64, plats, &nplat) != CL_SUCCESS || nplat == 0)
        nbr_fail(EXIT_NO_DEVICE, "coulomb: no OpenCL platform found (install an ICD, e.g. pocl-opencl-icd)");
    if ((cl_uint)p->cl_platform >= nplat)
        nbr_fail(EXIT_INPUT, "coulomb: --cl-platform %d: there are %u OpenCL platforms", p->cl_platform, nplat);
    cl_platform_id plat = plats[p->cl_platform];
    cl_device_id devs[64];
    if (clGetDeviceIDs(plat, CL_DEVICE_TYPE_ALL, 64, devs, &ndev) != CL_SUCCESS || ndev == 0)
        nbr_fail(EXIT_NO_DEVICE, "coulomb: no OpenCL device found on platform %d", p->cl_platform);
    if ((cl_uint)p->cl_device >= ndev)
        nbr_fail(EXIT_INPUT, "coulomb: --cl-device %d: platform %d has %u devices", p->cl_device, p->cl_platform, ndev);
    cl_device_id dev = devs[p->cl_device];
    char name[128] = "", pname[64] = "";
    clGetDeviceInfo(dev, CL_DEVICE_NAME, sizeof name, name, NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof pname, pname, NULL);
    snprintf(c->device, sizeof c->device, "%s (OpenCL: %s)", name, pname);

    int mode = p->acc; /* 0 float, 1 double, 2 kahan, 3 pairwise, 4 exact: the AccMode order */
    int dbl = mode == ACC_DOUBLE || mode == ACC_EXACT;
    if (dbl) {
        cl_device_fp_config fp64 = 0;
        clGetDeviceInfo(dev, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof fp64, &fp64, NULL);
        if (!fp64)
            nbr_fail(EXIT_INPUT, "coulomb: --acc %s: OpenCL device %s has no double precision", acc_names[mode], name);
    }
    cl_int err;
    c->ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ck(err, "clCreateContext");
    c->queue = clCreateCommandQueue(c->ctx, dev, CL_QUEUE_PROFILING_ENABLE, &err);
    ck(err, "clCreateCommandQueue");
    const char *src = coulomb_cl_source;
    c->prog = clCreateProgramWithSource(c->ctx, 1, &src, NULL, &err);
    ck(err, "clCreateProgramWithSource");
    char opts[128];
    snprintf(opts, sizeof opts, "-DUNROLL=%d -DIPT=%d -DMODE=%d -DFULL=%d -DFOLD=%d%s", p->unroll, p->ipt, mode,
             p->sweep == SWEEP_FULL, p->sweep == SWEEP_FOLDED, dbl ? "" : " -cl-denorms-are-zero");
    if (clBuildProgram(c->prog, 1, &dev, opts, NULL, NULL) != CL_SUCCESS) {
        char log[4096] = "";
        clGetProgramBuildInfo(c->prog, dev, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        for (char *q = log; *q; q++) if (*q == '\n') *q = ' ';
        nbr_fail(EXIT_INTERNAL, "coulomb: building coulomb.cl (%s) failed: %.600s", opts, log);
    }
    c->k_energy = clCreateKernel(c->prog, "coulomb_energy", &err);
    ck(err, "clCreateKernel coulomb_energy");
    c->k_sum = clCreateKernel(c->prog, "coulomb_sum", &err);
    ck(err, "clCreateKernel coulomb_sum");

    /* the work-group size and the local memory it needs, against the device's limits: refused
     * here (exit 2, one line naming the limit and its value) before any kernel is enqueued,
     * never left to an OpenCL error code at the launch */
    char wg_note[96] = "", lm_note[96] = "";
    size_t dev_wg = 0, dev_items[16] = {0}, kmax = 0, kmax2 = 0;
    cl_ulong dev_local = 0, k_local = 0, k_local2 = 0;
    ck(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof dev_wg, &dev_wg, NULL),
       "clGetDeviceInfo CL_DEVICE_MAX_WORK_GROUP_SIZE");
    ck(clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_ITEM_SIZES, sizeof dev_items, dev_items, NULL),
       "clGetDeviceInfo CL_DEVICE_MAX_WORK_ITEM_SIZES");
    ck(clGetDeviceInfo(dev, CL_DEVICE_LOCAL_MEM_SIZE, sizeof dev_local, &dev_local, NULL),
       "clGetDeviceInfo CL_DEVICE_LOCAL_MEM_SIZE");
    ck(clGetKernelWorkGroupInfo(c->k_energy, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax, NULL),
       "clGetKernelWorkGroupInfo CL_KERNEL_WORK_GROUP_SIZE");
    ck(clGetKernelWorkGroupInfo(c->k_sum, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax2, &kmax2, NULL),
       "clGetKernelWorkGroupInfo CL_KERNEL_WORK_GROUP_SIZE");
    /* before any __local argument is set: the kernels' own (static) local memory */
    ck(clGetKernelWorkGroupInfo(c->k_energy, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof k_local, &k_local, NULL),
       "clGetKernelWorkGroupInfo CL_KERNEL_LOCAL_MEM_SIZE");
    ck(clGetKernelWorkGroupInfo(c->k_sum, dev, CL_KERNEL_LOCAL_MEM_SIZE, sizeof k_local2, &k_local2, NULL),
       "clGetKernelWorkGroupInfo CL_KERNEL_LOCAL_MEM_SIZE");
#ifdef NBR_PLANT_CL_LIMITS   /* test-coulomb-cl only (above) */
    dev_wg = (size_t)lowered(dev_wg, getenv("NBR_CL_FAKE_MAX_WG"), "NBR_CL_FAKE_MAX_WG", wg_note, sizeof wg_note);
    dev_local = lowered(dev_local, getenv("NBR_CL_FAKE_LOCAL_MEM"), "NBR_CL_FAKE_LOCAL_MEM", lm_note, sizeof lm_note);
#endif
    c->block = (size_t)p->block;
    if (c->block > dev_wg)
        nbr_fail(EXIT_INPUT, "coulomb: --block (--wg) %d is more than CL_DEVICE_MAX_WORK_GROUP_SIZE %zu of %s%s",
                 p->block, dev_wg, name, wg_note);
    if (c->block > dev_items[0])
        nbr_fail(EXIT_INPUT, "coulomb: --block (--wg) %d is more than CL_DEVICE_MAX_WORK_ITEM_SIZES[0] %zu of %s",
                 p->block, dev_items[0], name);
    if (c->block > kmax)
        nbr_fail(EXIT_INPUT, "coulomb: --block (--wg) %d is more than CL_KERNEL_WORK_GROUP_SIZE %zu: the work-items "
                 "per work-group %s allows for this kernel (its -DUNROLL=%d -DIPT=%d, --acc %s)",
                 p->block, kmax, name, p->unroll, p->ipt, acc_names[mode]);
    c->real_size = dbl ? sizeof(double) : sizeof(float);
    {
        const size_t ts = c->block * (size_t)p->ipt;   /* a tile: block * ipt atoms, 4 reals each */
        const cl_ulong need = (cl_ulong)(ts * 4 + 2 * c->block) * c->real_size + k_local;
        if (need > dev_local)
            nbr_fail(EXIT_INPUT, "coulomb: --block (--wg) %d with --ipt %d and %zu-byte reals (--acc %s%s) needs %llu "
                     "bytes of local memory per work-group (a tile of %zu atoms x 4 reals, 2 x %zu partial sums, %llu "
                     "static), more than CL_DEVICE_LOCAL_MEM_SIZE %llu of %s%s: lower --wg or --ipt",
                     p->block, p->ipt, c->real_size, acc_names[mode],
                     mode == ACC_EXACT ? ": also the --ref device reference's precision" : "", (unsigned long long)need, ts,
                     c->block, (unsigned long long)k_local, (unsigned long long)dev_local, name, lm_note);
    }
    /* pass 2's work-group: 256, halved to what the kernel and the local memory allow */
    for (c->block2 = 256;
         c->block2 > 1 && (c->block2 > kmax2 || c->block2 > dev_wg ||
                           (cl_ulong)(2 * c->block2 * c->real_size) + k_local2 > dev_local);
         c->block2 >>= 1) {}
    if ((cl_ulong)(2 * c->block2 * c->real_size) + k_local2 > dev_local || c->block2 > kmax2)
        nbr_fail(EXIT_INPUT, "coulomb: the final sum's kernel does not fit %s (CL_DEVICE_LOCAL_MEM_SIZE %llu, "
                 "CL_KERNEL_WORK_GROUP_SIZE %zu)%s", name, (unsigned long long)dev_local, kmax2, lm_note);

    long n = r->sys->n;
    const size_t ts = c->block * (size_t)p->ipt;   /* a work-group's tile: block * ipt atoms */
    c->rows = (cl_uint)((n + (long)ts - 1) / (long)ts);
    c->groups = p->sweep == SWEEP_FOLDED ? (c->rows + 1) / 2 : c->rows;
    size_t npad = (size_t)c->rows * ts;
    void *host = nbr_alloc(npad * 4 * c->real_size, "OpenCL positions");
    for (size_t i = 0; i < npad; i++) {
        int in = (long)i < n;
        double v[4] = {in ? r->sys->x[i] : 1e15, in ? r->sys->y[i] : 1e15, in ? r->sys->z[i] : 1e15,
                       in ? r->sys->q[i] : 0};
        for (int k = 0; k < 4; k++)
            if (dbl) ((double *)host)[4 * i + k] = v[k];
            else ((float *)host)[4 * i + k] = (float)v[k];
    }
    c->pos = clCreateBuffer(c->ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, npad * 4 * c->real_size, host, &err);
    ck(err, "clCreateBuffer positions");
    free(host);
    c->hi = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, c->groups * c->real_size, NULL, &err);
    ck(err, "clCreateBuffer sums");
    c->lo = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, c->groups * c->real_size, NULL, &err);
    ck(err, "clCreateBuffer sums");
    c->result = clCreateBuffer(c->ctx, CL_MEM_READ_WRITE, 2 * c->real_size, NULL, &err);
    ck(err, "clCreateBuffer result");
    cl_uint nn = (cl_uint)n;
    ck(clSetKernelArg(c->k_energy, 0, sizeof(cl_mem), &c->pos), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 1, sizeof nn, &nn), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 2, sizeof c->rows, &c->rows), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 3, ts * 4 * c->real_size, NULL), "clSetKernelArg (local tile)");
    ck(clSetKernelArg(c->k_energy, 4, c->block * c->real_size, NULL), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 5, c->block * c->real_size, NULL), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 6, sizeof(cl_mem), &c->hi), "clSetKernelArg");
    ck(clSetKernelArg(c->k_energy, 7, sizeof(cl_mem), &c->lo), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 0, sizeof(cl_mem), &c->hi), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 1, sizeof(cl_mem), &c->lo), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 2, sizeof c->groups, &c->groups), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 3, c->block2 * c->real_size, NULL), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 4, c->block2 * c->real_size, NULL), "clSetKernelArg");
    ck(clSetKernelArg(c->k_sum, 5, sizeof(cl_mem), &c->result), "clSetKernelArg");
    r->ctx = c;
}

static double cl_energy(CoulombRun *r, double *seconds)
{
    ClCtx *c = r->ctx;
    size_t global = (size_t)c->groups * c->block;
    cl_event e1, e2;
    ck(clEnqueueNDRangeKernel(c->queue, c->k_energy, 1, NULL, &global, &c->block, 0, NULL, &e1),
       "launching coulomb_energy");
    ck(clEnqueueNDRangeKernel(c->queue, c->k_sum, 1, NULL, &c->block2, &c->block2, 0, NULL, &e2),
       "launching coulomb_sum");
    double res[2];
    float resf[2];
    ck(clEnqueueReadBuffer(c->queue, c->result, CL_TRUE, 0, 2 * c->real_size,
                           c->real_size == sizeof(double) ? (void *)res : (void *)resf, 0, NULL, NULL),
       "reading the result");
    if (c->real_size != sizeof(double)) { res[0] = resf[0]; res[1] = resf[1]; }
    cl_ulong t0 = 0, t1 = 0;
    ck(clGetEventProfilingInfo(e1, CL_PROFILING_COMMAND_START, sizeof t0, &t0, NULL), "profiling");
    ck(clGetEventProfilingInfo(e2, CL_PROFILING_COMMAND_END, sizeof t1, &t1, NULL), "profiling");
    clReleaseEvent(e1);
    clReleaseEvent(e2);
    *seconds = (double)(t1 - t0) * 1e-9;
    double e = COULOMB_K * (res[0] + res[1]);
    return r->p->sweep == SWEEP_FULL ? 0.5 * e : e;
}

static const char *cl_device(CoulombRun *r) { return ((ClCtx *)r->ctx)->device; }

static void cl_teardown(CoulombRun *r)
{
    ClCtx *c = r->ctx;
    if (!c) return;
    clReleaseMemObject(c->pos); clReleaseMemObject(c->hi); clReleaseMemObject(c->lo);
    clReleaseMemObject(c->result);
    clReleaseKernel(c->k_energy); clReleaseKernel(c->k_sum);
    clReleaseProgram(c->prog);
    clReleaseCommandQueue(c->queue);
    clReleaseContext(c->ctx);
    free(c);
    r->ctx = NULL;
}

const CoulombImpl coulomb_opencl_impl = {
    .kind = CIMPL_OPENCL, .knobs = CKNOB_OPENCL | CKNOB_TILED, .compiler = "OpenCL C (runtime build)",
    .setup = cl_setup, .energy = cl_energy, .device_name = cl_device, .teardown = cl_teardown,
};
