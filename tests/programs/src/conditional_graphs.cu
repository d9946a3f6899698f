// Conditional graph nodes from C++: a WHILE loop counted by a kernel, IF with an ELSE body nested in
// it, SWITCH, a WHILE body filled by stream capture, and the generic node calls' bad input.
#include <cuda_runtime.h>
#include <stdio.h>

#include "check.h"

__global__ void countdown(int *counter, int *trace, cudaGraphConditionalHandle loop, cudaGraphConditionalHandle odd) {
    int c = --*counter;
    trace[0] += 1;  // iterations
    cudaGraphSetConditional(odd, c & 1);
    cudaGraphSetConditional(loop, c > 0);
}
__global__ void add(int *cell, int amount) { *cell += amount; }

static cudaGraphNode_t add_kernel(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n, void *func, void **args) {
    cudaGraphNodeParams p = {cudaGraphNodeTypeKernel};
    p.kernel.func = func;
    p.kernel.gridDim.x = p.kernel.gridDim.y = p.kernel.gridDim.z = 1;
    p.kernel.blockDim.x = p.kernel.blockDim.y = p.kernel.blockDim.z = 1;
    p.kernel.kernelParams = args;
    cudaGraphNode_t node = nullptr;
    CHECK_CUDA(cudaGraphAddNode(&node, g, deps, nullptr, n, &p));
    return node;
}

static cudaGraphNode_t add_conditional(cudaGraph_t g, const cudaGraphNode_t *deps, size_t n,
                                       cudaGraphConditionalHandle h, cudaGraphConditionalNodeType type,
                                       unsigned size, cudaGraph_t *bodies) {
    cudaGraphNodeParams p = {cudaGraphNodeTypeConditional};
    p.conditional.handle = h;
    p.conditional.type = type;
    p.conditional.size = size;
    cudaGraphNode_t node = nullptr;
    CHECK_CUDA(cudaGraphAddNode(&node, g, deps, nullptr, n, &p));
    for (unsigned i = 0; i < size; ++i) bodies[i] = p.conditional.phGraph_out ? p.conditional.phGraph_out[i] : nullptr;
    return node;
}

int main() {
    int *d;  // d[0] counter, d[1] iterations, d[2] odd sum, d[3] even sum, d[4] switch result
    CHECK_CUDA(cudaMalloc(&d, 5 * sizeof(int)));
    int *counter = d, *trace = d + 1, *odd_sum = d + 2, *even_sum = d + 3, *sw = d + 4;

    // WHILE (default 1, reset every launch) { countdown; IF (counter odd) {odd += counter} ELSE {even += 1} }
    cudaGraph_t g;
    CHECK_CUDA(cudaGraphCreate(&g, 0));
    cudaGraphConditionalHandle loop, odd;
    CHECK_CUDA(cudaGraphConditionalHandleCreate(&loop, g, 1, cudaGraphCondAssignDefault));
    CHECK_CUDA(cudaGraphConditionalHandleCreate(&odd, g));
    cudaGraph_t body;
    add_conditional(g, nullptr, 0, loop, cudaGraphCondTypeWhile, 1, &body);
    void *cd_args[] = {&counter, &trace, &loop, &odd};
    cudaGraphNode_t cd = add_kernel(body, nullptr, 0, (void *)countdown, cd_args);
    cudaGraph_t branches[2];
    add_conditional(body, &cd, 1, odd, cudaGraphCondTypeIf, 2, branches);
    int one = 1;
    void *odd_args[] = {&odd_sum, &one};
    void *even_args[] = {&even_sum, &one};
    add_kernel(branches[0], nullptr, 0, (void *)add, odd_args);
    add_kernel(branches[1], nullptr, 0, (void *)add, even_args);

    cudaGraphExec_t ex;
    cudaGraphInstantiateParams ip = {};
    CHECK_CUDA(cudaGraphInstantiateWithParams(&ex, g, &ip));
    CHECK(ip.result_out == cudaGraphInstantiateSuccess);
    for (int launch = 0; launch < 2; ++launch) {
        int init[5] = {7, 0, 0, 0, 0};
        CHECK_CUDA(cudaMemcpy(d, init, sizeof init, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaGraphLaunch(ex, 0));
        int out[5];
        CHECK_CUDA(cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost));
        // counter goes 6,5,...,0: 7 iterations; odd values 5,3,1 -> 3; even 6,4,2,0 -> 4
        CHECK(out[0] == 0 && out[1] == 7 && out[2] == 3 && out[3] == 4);
    }

    // SWITCH on a value set by the host through a kernel; a WHILE body filled by stream capture
    cudaGraph_t g2;
    CHECK_CUDA(cudaGraphCreate(&g2, 0));
    cudaGraphConditionalHandle sel;
    CHECK_CUDA(cudaGraphConditionalHandleCreate(&sel, g2, 2, cudaGraphCondAssignDefault));
    cudaGraph_t cases[3];
    add_conditional(g2, nullptr, 0, sel, cudaGraphCondTypeSwitch, 3, cases);
    int amounts[3] = {10, 20, 30};
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    for (int i = 0; i < 3; ++i) {
        CHECK_CUDA(cudaStreamBeginCaptureToGraph(s, cases[i], nullptr, nullptr, 0, cudaStreamCaptureModeGlobal));
        add<<<1, 1, 0, s>>>(sw, amounts[i]);
        CHECK_CUDA(cudaStreamEndCapture(s, nullptr));
    }
    cudaGraphExec_t ex2;
    CHECK_CUDA(cudaGraphInstantiate(&ex2, g2, 0));
    CHECK_CUDA(cudaMemsetAsync(sw, 0, sizeof(int), s));
    CHECK_CUDA(cudaGraphLaunch(ex2, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    int got = 0;
    CHECK_CUDA(cudaMemcpy(&got, sw, sizeof got, cudaMemcpyDeviceToHost));
    CHECK(got == 30);  // the default value 2 selects the third body

    // bad input gets CUDA's error codes
    cudaGraphNode_t node;
    CHECK(cudaGraphAddNode(&node, g2, nullptr, nullptr, 0, nullptr) == cudaErrorInvalidValue);
    cudaGraphNodeParams bad = {cudaGraphNodeTypeConditional};
    bad.conditional.handle = 0x1234;
    bad.conditional.type = cudaGraphCondTypeIf;
    bad.conditional.size = 1;
    CHECK(cudaGraphAddNode(&node, g2, nullptr, nullptr, 0, &bad) == cudaErrorInvalidValue);
    bad.type = (cudaGraphNodeType)99;
    CHECK(cudaGraphAddNode(&node, g2, nullptr, nullptr, 0, &bad) == cudaErrorInvalidValue);
    CHECK(cudaGraphConditionalHandleCreate(nullptr, g2) == cudaErrorInvalidValue);
    CHECK(cudaGraphConditionalHandleCreate(&sel, (cudaGraph_t)0x99) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    CHECK_CUDA(cudaGraphExecDestroy(ex));
    CHECK_CUDA(cudaGraphExecDestroy(ex2));
    CHECK_CUDA(cudaGraphDestroy(g));
    CHECK_CUDA(cudaGraphDestroy(g2));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(d));
    return finish("conditional_graphs");
}
