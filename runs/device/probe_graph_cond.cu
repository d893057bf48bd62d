// runs/device/probe_graph_cond.cu - does this machine's driver take CUDA graph conditional
// (IF) nodes, and in which construction? --graph cond (kernels/cuda/device_loop.cu) adds an IF
// node to a stream capture and captures its body on a second stream while the first is still
// capturing; on the H200 at d4e75c7 cudaGraphAddNode answered "invalid argument" there.
// Three constructions, each printing ok or the error:
//   explicit   graph built node by node (no capture)
//   captured   IF node added to a capture, body captured at once on a second stream
//   after      IF node added to a capture, body captured after the outer capture ended
// Build: nvcc -std=c++17 -arch=sm_90 runs/device/probe_graph_cond.cu -o /tmp/probe
#include <cstdio>
#include <cuda_runtime.h>

__global__ void set_cond(cudaGraphConditionalHandle h, const int *flag) { cudaGraphSetConditional(h, *flag); }
__global__ void bump(int *counter) { atomicAdd(counter, 1); }

#define TRY(call)                                                                            \
    do {                                                                                     \
        cudaError_t e_ = (call);                                                             \
        if (e_ != cudaSuccess) {                                                             \
            printf("  %s: FAILED at %s: %s\n", name, #call, cudaGetErrorString(e_));         \
            cudaGetLastError();                                                              \
            return;                                                                          \
        }                                                                                    \
    } while (0)

static int *flag, *counter;

static void launch_and_count(const char *name, cudaGraph_t graph)
{
    cudaGraphExec_t exec;
    TRY(cudaGraphInstantiate(&exec, graph, 0));
    int got[2];
    for (int f = 0; f < 2; f++) {
        TRY(cudaMemset(counter, 0, sizeof(int)));
        TRY(cudaMemcpy(flag, &f, sizeof(int), cudaMemcpyHostToDevice));
        TRY(cudaGraphLaunch(exec, 0));
        TRY(cudaDeviceSynchronize());
        TRY(cudaMemcpy(&got[f], counter, sizeof(int), cudaMemcpyDeviceToHost));
    }
    printf("  %s: ok, body ran %d time(s) with flag 0 and %d with flag 1 (want 0 and 1)\n", name, got[0], got[1]);
    cudaGraphExecDestroy(exec);
}

static void probe(const char *name, int mode)
{
    cudaStream_t s, body_s;
    TRY(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    TRY(cudaStreamCreateWithFlags(&body_s, cudaStreamNonBlocking));
    cudaGraph_t graph;
    cudaGraphConditionalHandle h;
    cudaGraphNodeParams cp = {};
    cp.type = cudaGraphNodeTypeConditional;
    cp.conditional.type = cudaGraphCondTypeIf;
    cp.conditional.size = 1;
    cudaGraphNode_t node;
    if (mode == 0) {
        TRY(cudaGraphCreate(&graph, 0));
        TRY(cudaGraphConditionalHandleCreate(&h, graph, 0, cudaGraphCondAssignDefault));
        cudaGraphNodeParams kp = {};
        kp.type = cudaGraphNodeTypeKernel;
        void *args[2] = {&h, &flag};
        kp.kernel.func = (void *)set_cond;
        kp.kernel.gridDim = dim3(1);
        kp.kernel.blockDim = dim3(1);
        kp.kernel.kernelParams = args;
        cudaGraphNode_t k;
        TRY(cudaGraphAddNode(&k, graph, nullptr, nullptr, 0, &kp));
        cp.conditional.handle = h;
        TRY(cudaGraphAddNode(&node, graph, &k, nullptr, 1, &cp));
        TRY(cudaStreamBeginCaptureToGraph(body_s, cp.conditional.phGraph_out[0], nullptr, nullptr, 0,
                                          cudaStreamCaptureModeThreadLocal));
        bump<<<1, 1, 0, body_s>>>(counter);
        TRY(cudaStreamEndCapture(body_s, nullptr));
    } else {
        TRY(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
        cudaStreamCaptureStatus st;
        TRY(cudaStreamGetCaptureInfo(s, &st, nullptr, &graph, nullptr, nullptr, nullptr));
        TRY(cudaGraphConditionalHandleCreate(&h, graph, 0, cudaGraphCondAssignDefault));
        set_cond<<<1, 1, 0, s>>>(h, flag);
        const cudaGraphNode_t *deps;
        size_t nd;
        TRY(cudaStreamGetCaptureInfo(s, &st, nullptr, &graph, &deps, nullptr, &nd));
        cp.conditional.handle = h;
        TRY(cudaGraphAddNode(&node, graph, deps, nullptr, nd, &cp));
        TRY(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
        cudaGraph_t body = cp.conditional.phGraph_out[0];
        if (mode == 1) {
            TRY(cudaStreamBeginCaptureToGraph(body_s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
            bump<<<1, 1, 0, body_s>>>(counter);
            TRY(cudaStreamEndCapture(body_s, nullptr));
        }
        bump<<<1, 1, 0, s>>>(counter + 1);   /* after the IF, always */
        TRY(cudaStreamEndCapture(s, &graph));
        if (mode == 2) {
            TRY(cudaStreamBeginCaptureToGraph(body_s, body, nullptr, nullptr, 0, cudaStreamCaptureModeThreadLocal));
            bump<<<1, 1, 0, body_s>>>(counter);
            TRY(cudaStreamEndCapture(body_s, nullptr));
        }
    }
    launch_and_count(name, graph);
}

int main()
{
    int drv = 0, rt = 0;
    cudaDriverGetVersion(&drv);
    cudaRuntimeGetVersion(&rt);
    printf("probe_graph_cond: driver %d, runtime %d\n", drv, rt);
    cudaMalloc(&flag, sizeof(int));
    cudaMalloc(&counter, 2 * sizeof(int));
    probe("explicit", 0);
    probe("captured", 1);
    probe("after", 2);
    return 0;
}
