// Runtime API calls beyond the basics, from C++: libraries loaded from PTX text, driver entry
// points, cudaLaunchHostFunc_v2, kernel node parameters read back, the error log, batched copies,
// range attributes, and CUDA's error codes for bad input.
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

static const char *PTX =
    ".version 8.0\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter = 5;\n"
    ".visible .entry add_one(.param .u64 p, .param .u32 n)\n{\n"
    "  .reg .u64 %rd<4>; .reg .u32 %r<5>; .reg .pred %q;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n];\n"
    "  mov.u32 %r2, %tid.x; setp.ge.u32 %q, %r2, %r1; @%q bra DONE;\n"
    "  mul.wide.u32 %rd2, %r2, 4; add.u64 %rd3, %rd1, %rd2;\n"
    "  ld.global.u32 %r3, [%rd3]; add.u32 %r3, %r3, 1; st.global.u32 [%rd3], %r3;\n"
    "DONE:\n  ret;\n}\n";

__global__ void scale(int *x, int k) { x[threadIdx.x] *= k; }

static int host_calls = 0;
static void host_fn(void *data) { host_calls += *(int *)data; }
static volatile int destroyed = 0;
static void destroy(void *data) { destroyed += *(int *)data; }
static int logged = 0;
static void on_log(void *, cudaLogLevel, char *message, size_t) { logged += strstr(message, "cudaFree") != NULL; }

int main() {
    // ---- a library from PTX text: kernel, global variable, enumeration
    cudaLibrary_t lib;
    CHECK_CUDA(cudaLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    cudaKernel_t k;
    CHECK_CUDA(cudaLibraryGetKernel(&k, lib, "add_one"));
    unsigned count = 0;
    CHECK_CUDA(cudaLibraryGetKernelCount(&count, lib));
    CHECK(count == 1);
    cudaKernel_t listed[2] = {0, 0};
    CHECK_CUDA(cudaLibraryEnumerateKernels(listed, 1, lib));
    CHECK(listed[0] == k);
    void *counter = NULL;
    size_t bytes = 0;
    CHECK_CUDA(cudaLibraryGetGlobal(&counter, &bytes, lib, "counter"));
    int value = 0;
    CHECK(bytes == 4);
    CHECK_CUDA(cudaMemcpy(&value, counter, 4, cudaMemcpyDeviceToHost));
    CHECK(value == 5);
    int *d;
    CHECK_CUDA(cudaMalloc(&d, 32 * sizeof(int)));
    CHECK_CUDA(cudaMemset(d, 0, 32 * sizeof(int)));
    unsigned n = 32;
    void *args[] = {&d, &n};
    CHECK_CUDA(cudaLaunchKernel((const void *)k, dim3(1), dim3(32), args, 0, 0));
    int h[32];
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 1 && h[31] == 1);
    CHECK(cudaLibraryGetKernel(&k, lib, "missing") != cudaSuccess);
    CHECK(cudaLibraryLoadData(&lib, "not ptx", NULL, NULL, 0, NULL, NULL, 0) != cudaSuccess);
    CHECK(cudaLibraryLoadData(NULL, PTX, NULL, NULL, 0, NULL, NULL, 0) == cudaErrorInvalidValue);
    CHECK(cudaLibraryLoadFromFile(&lib, "/nonexistent.ptx", NULL, NULL, 0, NULL, NULL, 0) == cudaErrorFileNotFound);

    // ---- a driver function through cudaGetDriverEntryPoint
    void *fn = NULL;
    cudaDriverEntryPointQueryResult status;
    CHECK_CUDA(cudaGetDriverEntryPoint("cuMemsetD32", &fn, cudaEnableDefault, &status));
    CHECK(status == cudaDriverEntryPointSuccess && fn != NULL);
    if (fn) CHECK(((CUresult(*)(CUdeviceptr, unsigned, size_t))fn)((CUdeviceptr)d, 7, 32) == CUDA_SUCCESS);
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[5] == 7);
    CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuNoSuchFunction", &fn, 12000, cudaEnableDefault, &status));
    CHECK(status == cudaDriverEntryPointSymbolNotFound && fn == NULL);
    CHECK_CUDA(cudaGetDriverEntryPointByVersion("cuMemAlloc", &fn, 99000, cudaEnableDefault, &status));
    CHECK(status == cudaDriverEntryPointVersionNotSufficent);

    // ---- host function v2, kernel node parameters read back from a graph
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    int three = 3;
    CHECK_CUDA(cudaLaunchHostFunc_v2(s, host_fn, &three, 0));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(host_calls == 3);
    cudaGraph_t g;
    CHECK_CUDA(cudaGraphCreate(&g, 0));
    int factor = 6;
    void *kargs[] = {&d, &factor};
    cudaKernelNodeParams kp = {};
    kp.func = (void *)scale;
    kp.gridDim = dim3(1);
    kp.blockDim = dim3(32);
    kp.kernelParams = kargs;
    cudaGraphNode_t node;
    CHECK_CUDA(cudaGraphAddKernelNode(&node, g, NULL, 0, &kp));
    cudaKernelNodeParams back = {};
    CHECK_CUDA(cudaGraphKernelNodeGetParams(node, &back));
    CHECK(back.blockDim.x == 32 && back.gridDim.x == 1 && back.kernelParams != NULL);
    if (back.kernelParams) CHECK(*(int **)back.kernelParams[0] == d && *(int *)back.kernelParams[1] == 6);
    CHECK_CUDA(cudaGraphKernelNodeSetParams(node, &back));  // what was read can be set again
    cudaKernelNodeAttrValue attr_value = {};
    attr_value.priority = 2;
    CHECK_CUDA(cudaGraphKernelNodeSetAttribute(node, cudaLaunchAttributePriority, &attr_value));
    attr_value.priority = 0;
    CHECK_CUDA(cudaGraphKernelNodeGetAttribute(node, cudaLaunchAttributePriority, &attr_value));
    CHECK(attr_value.priority == 2);
    CHECK(cudaGraphKernelNodeGetAttribute(node, (cudaKernelNodeAttrID)999, &attr_value) == cudaErrorInvalidValue);
    unsigned long long tools_id = 0;
    CHECK_CUDA(cudaGraphNodeGetToolsId(node, &tools_id));
    CHECK(tools_id != 0);

    // a user object owned by the graph: destroyed with the graph's last reference
    cudaUserObject_t obj;
    int weight = 5;
    CHECK_CUDA(cudaUserObjectCreate(&obj, &weight, destroy, 1, cudaUserObjectNoDestructorSync));
    CHECK_CUDA(cudaGraphRetainUserObject(g, obj, 1, cudaGraphUserObjectMove));
    CHECK(cudaUserObjectCreate(&obj, &weight, destroy, 1, 0) == cudaErrorInvalidValue);
    CHECK_CUDA(cudaGraphDestroy(g));
    for (int i = 0; i < 2000 && destroyed == 0; ++i) cudaStreamQuery(s);  // the destructor runs on its own thread
    CHECK(destroyed == 5);

    // ---- batched copies and range attributes
    int *e;
    CHECK_CUDA(cudaMalloc(&e, 32 * sizeof(int)));
    const void *dsts[] = {e, e + 16};
    const void *srcs[] = {d, d + 16};
    size_t sizes[] = {16 * sizeof(int), 16 * sizeof(int)};
    cudaMemcpyAttributes attr = {};
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    size_t idx = 0;
    CHECK_CUDA(cudaMemcpyBatchAsync(dsts, srcs, sizes, 2, &attr, &idx, 1, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    memset(h, 0, sizeof h);
    CHECK_CUDA(cudaMemcpy(h, e, sizeof h, cudaMemcpyDeviceToHost));
    CHECK(h[0] == 7 && h[31] == 7);
    CHECK(cudaMemcpyBatchAsync(NULL, srcs, sizes, 2, &attr, &idx, 1, s) == cudaErrorInvalidValue);
    int *m;
    CHECK_CUDA(cudaMallocManaged(&m, 4096));
    int read_mostly = -1, last_prefetch = -5;
    void *data[] = {&read_mostly, &last_prefetch};
    size_t data_sizes[] = {4, 4};
    cudaMemRangeAttribute which[] = {cudaMemRangeAttributeReadMostly, cudaMemRangeAttributeLastPrefetchLocation};
    CHECK_CUDA(cudaMemAdvise(m, 4096, cudaMemAdviseSetReadMostly, cudaMemLocation{cudaMemLocationTypeDevice, 0}));
    CHECK_CUDA(cudaMemRangeGetAttributes(data, data_sizes, which, 2, m, 4096));
    CHECK(read_mostly == 1);
    // the CUDA 8-12 forms (a device ordinal; cudaCpuDeviceId for the host), still common in published code
    int preferred = -5;
    CHECK_CUDA(cudaMemAdvise(m, 4096, cudaMemAdviseSetPreferredLocation, cudaCpuDeviceId));
    CHECK_CUDA(cudaMemRangeGetAttribute(&preferred, 4, cudaMemRangeAttributePreferredLocation, m, 4096));
    CHECK(preferred == cudaCpuDeviceId);
    CHECK_CUDA(cudaMemPrefetchAsync(m, 4096, 0, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaMemRangeGetAttribute(&last_prefetch, 4, cudaMemRangeAttributeLastPrefetchLocation, m, 4096));
    CHECK(last_prefetch == 0);

    // ---- the error log sees a failure; dumps advance the iterator
    cudaLogsCallbackHandle cb;
    CHECK_CUDA(cudaLogsRegisterCallback(on_log, NULL, &cb));
    cudaLogIterator it;
    CHECK_CUDA(cudaLogsCurrent(&it, 0));
    CHECK(cudaFree((void *)0x1234) == cudaErrorInvalidValue);
    CHECK(logged == 1);
    char text[512];
    size_t size = sizeof text;
    CHECK_CUDA(cudaLogsDumpToMemory(&it, text, &size, 0));
    CHECK(size > 0 && strstr(text, "cudaFree") != NULL);
    CHECK_CUDA(cudaLogsUnregisterCallback(cb));
    CHECK(cudaLogsUnregisterCallback(cb) == cudaErrorInvalidValue);

    CHECK_CUDA(cudaFree(m));
    CHECK_CUDA(cudaFree(e));
    CHECK_CUDA(cudaFree(d));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaLibraryUnload(lib));
    return finish("runtime_more");
}
