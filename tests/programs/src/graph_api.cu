// The graph API from C++: explicit graphs (kernel, memset, memcpy, host, child, memory nodes),
// structure queries, node parameter get/set, executable-graph updates (13.x and the CUDA 11/12
// signatures samples still use), capture info and memory nodes made by capture.
#include <cstdio>
#include <cstring>
#include "check.h"

__global__ void axpb(float *y, const float *x, float a, float b, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + b;
}

static int g_host_calls = 0;
static void CUDART_CB on_host(void *data) { g_host_calls += *(int *)data; }

int main() {
    const int n = 1000;
    float hx[n], hy[n];
    for (int i = 0; i < n; i++) hx[i] = (float)i;
    float *dx, *dy;
    CHECK_CUDA(cudaMalloc(&dx, n * sizeof(float)));
    CHECK_CUDA(cudaMalloc(&dy, n * sizeof(float)));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));

    // ---- an explicit graph: H2D copy -> memset(y) -> kernel -> D2H copy -> host node
    cudaGraph_t g;
    CHECK_CUDA(cudaGraphCreate(&g, 0));
    cudaGraphNode_t up, zero, kern, down, host;
    CHECK_CUDA(cudaGraphAddMemcpyNode1D(&up, g, NULL, 0, dx, hx, sizeof hx, cudaMemcpyHostToDevice));
    cudaMemsetParams ms;
    memset(&ms, 0, sizeof ms);
    ms.dst = dy; ms.value = 0; ms.elementSize = 4; ms.width = n; ms.height = 1;
    CHECK_CUDA(cudaGraphAddMemsetNode(&zero, g, NULL, 0, &ms));
    float a = 2.0f, b = 1.0f;
    int nn = n;
    void *args[] = {&dy, &dx, &a, &b, &nn};
    cudaKernelNodeParams kp;
    memset(&kp, 0, sizeof kp);
    kp.func = (void *)axpb; kp.gridDim = dim3((n + 255) / 256); kp.blockDim = dim3(256);
    kp.kernelParams = args;
    cudaGraphNode_t before_kernel[] = {up, zero};
    CHECK_CUDA(cudaGraphAddKernelNode(&kern, g, before_kernel, 2, &kp));
    CHECK_CUDA(cudaGraphAddMemcpyNode1D(&down, g, &kern, 1, hy, dy, sizeof hy, cudaMemcpyDeviceToHost));
    int weight = 10;
    cudaHostNodeParams hp = {on_host, &weight};
    CHECK_CUDA(cudaGraphAddHostNode(&host, g, NULL, 0, &hp));
    CHECK_CUDA(cudaGraphAddDependencies(g, &down, &host, 1));  // the CUDA 12 signature

    size_t count = 0;
    CHECK_CUDA(cudaGraphGetNodes(g, NULL, &count));
    CHECK(count == 5);
    cudaGraphNode_t nodes[8];
    count = 8;
    CHECK_CUDA(cudaGraphGetNodes(g, nodes, &count));
    CHECK(count == 5 && nodes[2] == kern);
    size_t roots = 0;
    CHECK_CUDA(cudaGraphGetRootNodes(g, NULL, &roots));
    CHECK(roots == 2);
    cudaGraphNode_t deps[4];
    size_t ndeps = 4;
    CHECK_CUDA(cudaGraphNodeGetDependencies(kern, deps, &ndeps));
    CHECK(ndeps == 2 && deps[0] == up && deps[1] == zero);
    size_t edges = 0;
    CHECK_CUDA(cudaGraphGetEdges(g, NULL, NULL, &edges));
    CHECK(edges == 4);
    enum cudaGraphNodeType type;
    CHECK_CUDA(cudaGraphNodeGetType(host, &type));
    CHECK(type == cudaGraphNodeTypeHost);
    cudaMemsetParams got;
    CHECK_CUDA(cudaGraphMemsetNodeGetParams(zero, &got));
    CHECK(got.dst == dy && got.width == (size_t)n && got.elementSize == 4);

    cudaGraphExec_t ge;
    CHECK_CUDA(cudaGraphInstantiate(&ge, g, NULL, NULL, 0));  // the CUDA 11 signature
    CHECK_CUDA(cudaGraphLaunch(ge, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(hy[0] == 1.0f && hy[999] == 1999.0f && g_host_calls == 10);

    // ---- new kernel parameters on the executable graph, then a whole-graph update
    a = 3.0f;
    CHECK_CUDA(cudaGraphExecKernelNodeSetParams(ge, kern, &kp));
    CHECK_CUDA(cudaGraphLaunch(ge, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(hy[10] == 31.0f && g_host_calls == 20);
    a = 4.0f;
    CHECK_CUDA(cudaGraphKernelNodeSetParams(kern, &kp));
    cudaGraphExecUpdateResult result;
    cudaGraphNode_t error_node;
    CHECK_CUDA(cudaGraphExecUpdate(ge, g, &error_node, &result));  // the CUDA 11/12 signature
    CHECK(result == cudaGraphExecUpdateSuccess);
    CHECK_CUDA(cudaGraphLaunch(ge, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(hy[10] == 41.0f);
    cudaGraph_t other;
    CHECK_CUDA(cudaGraphCreate(&other, 0));
    cudaGraphExecUpdateResultInfo info;
    CHECK(cudaGraphExecUpdate(ge, other, &info) == cudaErrorGraphExecUpdateFailure);
    CHECK(info.result == cudaGraphExecUpdateErrorTopologyChanged);
    cudaGetLastError();

    // ---- memory nodes: allocate, fill, copy out, free, at one address every launch
    cudaGraph_t mg;
    CHECK_CUDA(cudaGraphCreate(&mg, 0));
    cudaMemAllocNodeParams ap;
    memset(&ap, 0, sizeof ap);
    ap.poolProps.allocType = cudaMemAllocationTypePinned;
    ap.poolProps.location.type = cudaMemLocationTypeDevice;
    ap.poolProps.location.id = 0;
    ap.bytesize = n * sizeof(float);
    cudaGraphNode_t alloc, fill, copy, release;
    CHECK_CUDA(cudaGraphAddMemAllocNode(&alloc, mg, NULL, 0, &ap));
    CHECK(ap.dptr != NULL);
    ms.dst = ap.dptr; ms.value = 0x3f800000;  // 1.0f
    CHECK_CUDA(cudaGraphAddMemsetNode(&fill, mg, &alloc, 1, &ms));
    CHECK_CUDA(cudaGraphAddMemcpyNode1D(&copy, mg, &fill, 1, hy, ap.dptr, sizeof hy, cudaMemcpyDeviceToHost));
    CHECK_CUDA(cudaGraphAddMemFreeNode(&release, mg, &copy, 1, ap.dptr));
    void *freed = NULL;
    CHECK_CUDA(cudaGraphMemFreeNodeGetParams(release, &freed));
    CHECK(freed == ap.dptr);
    cudaGraphExec_t me;
    CHECK_CUDA(cudaGraphInstantiate(&me, mg, 0));
    for (int k = 0; k < 2; k++) {
        hy[5] = 0;
        CHECK_CUDA(cudaGraphLaunch(me, s));
        CHECK_CUDA(cudaStreamSynchronize(s));
        CHECK(hy[5] == 1.0f);
    }
    unsigned long long reserved = 0;
    CHECK_CUDA(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &reserved));
    CHECK(reserved == n * sizeof(float));

    // ---- capture: memory nodes from cudaMallocAsync/cudaFreeAsync, and capture info
    cudaGraph_t cg;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    float *tmp;
    CHECK_CUDA(cudaMallocAsync((void **)&tmp, n * sizeof(float), s));
    CHECK_CUDA(cudaMemcpyAsync(tmp, dx, n * sizeof(float), cudaMemcpyDeviceToDevice, s));
    enum cudaStreamCaptureStatus status;
    const cudaGraphNode_t *tails = NULL;
    size_t ntails = 0;
    unsigned long long id = 0;
    CHECK_CUDA(cudaStreamGetCaptureInfo(s, &status, &id, NULL, &tails, NULL, &ntails));
    CHECK(status == cudaStreamCaptureStatusActive && ntails == 1 && tails != NULL && id != 0);
    axpb<<<(n + 255) / 256, 256, 0, s>>>(dy, tmp, 1.0f, 0.5f, n);
    CHECK_CUDA(cudaFreeAsync(tmp, s));
    CHECK_CUDA(cudaStreamEndCapture(s, &cg));
    count = 0;
    CHECK_CUDA(cudaGraphGetNodes(cg, NULL, &count));
    CHECK(count == 4);
    cudaGraphExec_t ce;
    CHECK_CUDA(cudaGraphInstantiate(&ce, cg, 0));
    CHECK_CUDA(cudaGraphLaunch(ce, s));
    CHECK_CUDA(cudaMemcpyAsync(hy, dy, sizeof hy, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(hy[7] == 7.5f);

    CHECK_CUDA(cudaGraphExecDestroy(ge));
    CHECK_CUDA(cudaGraphExecDestroy(me));
    CHECK_CUDA(cudaGraphExecDestroy(ce));
    CHECK_CUDA(cudaGraphDestroy(g));
    CHECK_CUDA(cudaGraphDestroy(mg));
    CHECK_CUDA(cudaGraphDestroy(cg));
    CHECK_CUDA(cudaGraphDestroy(other));
    return finish("graph_api");
}
