// CUDA 13 Runtime API calls from C++ (host_runtime_cuda13.h): external memory on a memfd (a kernel
// doubles the file's floats, read back through the file), a timeline semaphore that holds a stream
// until the host writes the file, a green context running a kernel, a 3D batch copy and an
// attributed copy checked element by element, host atomic capabilities, shareable pools.
#include <sys/mman.h>
#include <unistd.h>

#include <string.h>

#include "check.h"

__global__ void twice(float *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2.0f;
}

static int memfd_with(const void *data, size_t size) {
    int fd = memfd_create("cuda13", 0);
    if (fd < 0 || ftruncate(fd, (off_t)size) != 0 || pwrite(fd, data, size, 0) != (ssize_t)size) return -1;
    return fd;
}

static void external_memory(void) {
    const int n = 2000;
    const size_t offset = 4096, size = offset + n * sizeof(float);
    static float x[2000], back[2000];
    for (int i = 0; i < n; ++i) x[i] = (float)i - 3.25f;
    char *image = (char *)calloc(1, size);
    memcpy(image + offset, x, n * sizeof(float));
    int fd = memfd_with(image, size);
    free(image);
    CHECK(fd >= 0);
    struct cudaExternalMemoryHandleDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.type = cudaExternalMemoryHandleTypeOpaqueFd;
    desc.handle.fd = dup(fd);  // the import owns the descriptor it is given
    desc.size = size;
    cudaExternalMemory_t ext;
    CHECK_CUDA(cudaImportExternalMemory(&ext, &desc));
    struct cudaExternalMemoryBufferDesc buf;
    memset(&buf, 0, sizeof buf);
    buf.offset = offset;
    buf.size = n * sizeof(float);
    float *d = NULL;
    CHECK_CUDA(cudaExternalMemoryGetMappedBuffer((void **)&d, ext, &buf));
    twice<<<(n + 255) / 256, 256>>>(d, n);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(pread(fd, back, n * sizeof(float), (off_t)offset) == (ssize_t)(n * sizeof(float)));
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += back[i] != 2.0f * x[i];
    CHECK(bad == 0);
    buf.offset = size;  // past the import
    CHECK(cudaExternalMemoryGetMappedBuffer((void **)&d, ext, &buf) == cudaErrorInvalidValue);
    CHECK_CUDA(cudaDestroyExternalMemory(ext));
    CHECK(cudaDestroyExternalMemory(ext) == cudaErrorInvalidResourceHandle);
    close(fd);
}

static void semaphores(void) {
    unsigned long long value = 1;
    int fd = memfd_with(&value, sizeof value);
    struct cudaExternalSemaphoreHandleDesc desc;
    memset(&desc, 0, sizeof desc);
    desc.type = cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd;
    desc.handle.fd = dup(fd);
    cudaExternalSemaphore_t sem;
    CHECK_CUDA(cudaImportExternalSemaphore(&sem, &desc));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    struct cudaExternalSemaphoreWaitParams wait;
    memset(&wait, 0, sizeof wait);
    wait.params.fence.value = 4;
    CHECK_CUDA(cudaWaitExternalSemaphoresAsync(&sem, &wait, 1, s));
    usleep(100000);
    CHECK(cudaStreamQuery(s) == cudaErrorNotReady);  // 1 < 4
    value = 4;
    CHECK(pwrite(fd, &value, sizeof value, 0) == sizeof value);
    struct cudaExternalSemaphoreSignalParams sig;
    memset(&sig, 0, sizeof sig);
    sig.params.fence.value = 11;
    CHECK_CUDA(cudaSignalExternalSemaphoresAsync(&sem, &sig, 1, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(pread(fd, &value, sizeof value, 0) == sizeof value && value == 11);
    CHECK(cudaSignalExternalSemaphoresAsync(&sem, &sig, 1000000, s) == cudaErrorInvalidValue);  // short arrays
    cudaGraph_t g;
    cudaGraphNode_t node;
    CHECK_CUDA(cudaGraphCreate(&g, 0));
    struct cudaExternalSemaphoreSignalNodeParams np = {&sem, &sig, 1}, got;
    CHECK_CUDA(cudaGraphAddExternalSemaphoresSignalNode(&node, g, NULL, 0, &np));
    CHECK_CUDA(cudaGraphExternalSemaphoresSignalNodeGetParams(node, &got));
    CHECK(got.numExtSems == 1 && got.extSemArray[0] == sem && got.paramsArray[0].params.fence.value == 11);
    CHECK_CUDA(cudaGraphDestroy(g));
    CHECK_CUDA(cudaDestroyExternalSemaphore(sem));
    CHECK_CUDA(cudaStreamDestroy(s));
    close(fd);
}

static void green_context(void) {
    int sms = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    cudaDevResource all;
    CHECK_CUDA(cudaDeviceGetDevResource(0, &all, cudaDevResourceTypeSm));
    CHECK(all.type == cudaDevResourceTypeSm && (int)all.sm.smCount == sms);
    unsigned int groups = 0;  // a query: how many groups of 2 SMs
    cudaDevResource rest;
    CHECK_CUDA(cudaDevSmResourceSplitByCount(NULL, &groups, &all, &rest, 0, 2));
    CHECK((int)groups == sms / 2);
    if (groups == 0) return;
    cudaDevResource one;
    groups = 1;
    CHECK_CUDA(cudaDevSmResourceSplitByCount(&one, &groups, &all, &rest, 0, 2));
    CHECK(groups == 1 && one.sm.smCount == 2 && (int)rest.sm.smCount == sms - 2);
    cudaDevResourceDesc_t desc;
    CHECK_CUDA(cudaDevResourceGenerateDesc(&desc, &one, 1));
    cudaExecutionContext_t g, dev;
    CHECK_CUDA(cudaGreenCtxCreate(&g, desc, 0, 0));
    CHECK_CUDA(cudaDeviceGetExecutionCtx(&dev, 0));
    unsigned long long gid = 0, did = 0;
    CHECK_CUDA(cudaExecutionCtxGetId(g, &gid));
    CHECK_CUDA(cudaExecutionCtxGetId(dev, &did));
    CHECK(gid != did);
    int device = -1;
    CHECK_CUDA(cudaExecutionCtxGetDevice(&device, g));
    CHECK(device == 0);
    cudaDevResource mine;
    CHECK_CUDA(cudaExecutionCtxGetDevResource(g, &mine, cudaDevResourceTypeSm));
    CHECK(mine.sm.smCount == 2);
    cudaStream_t s;
    CHECK_CUDA(cudaExecutionCtxStreamCreate(&s, g, cudaStreamDefault, 0));
    CHECK_CUDA(cudaStreamGetDevResource(s, &mine, cudaDevResourceTypeSm));
    CHECK(mine.sm.smCount == 2);
    const int n = 700;
    float *d, h[700];
    CHECK_CUDA(cudaMallocManaged(&d, n * sizeof(float)));
    for (int i = 0; i < n; ++i) d[i] = (float)i;
    twice<<<(n + 127) / 128, 128, 0, s>>>(d, n);
    cudaEvent_t ev;
    CHECK_CUDA(cudaEventCreate(&ev));
    CHECK_CUDA(cudaExecutionCtxRecordEvent(g, ev));
    CHECK_CUDA(cudaEventSynchronize(ev));
    memcpy(h, d, sizeof h);
    int bad = 0;
    for (int i = 0; i < n; ++i) bad += h[i] != 2.0f * i;
    CHECK(bad == 0);
    CHECK_CUDA(cudaExecutionCtxSynchronize(dev));
    CHECK(cudaExecutionCtxDestroy(dev) == cudaErrorNotPermitted);
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaExecutionCtxDestroy(g));
    CHECK_CUDA(cudaEventDestroy(ev));
    CHECK_CUDA(cudaFree(d));
}

static void copies(void) {
    unsigned char src[4][6][10], dst[3][5][8], want[3][5][8];
    for (int z = 0; z < 4; ++z)
        for (int y = 0; y < 6; ++y)
            for (int x = 0; x < 10; ++x) src[z][y][x] = (unsigned char)(z * 60 + y * 10 + x);
    void *ds, *dd;
    CHECK_CUDA(cudaMalloc(&ds, sizeof src));
    CHECK_CUDA(cudaMalloc(&dd, sizeof dst));
    CHECK_CUDA(cudaMemcpy(ds, src, sizeof src, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemset(dd, 0, sizeof dst));
    struct cudaMemcpy3DBatchOp op;
    memset(&op, 0, sizeof op);
    op.src.type = op.dst.type = cudaMemcpyOperandTypePointer;
    op.src.op.ptr.ptr = (char *)ds + 60 + 10 + 1;  // the box at (1, 1, 1) of src
    op.src.op.ptr.rowLength = 10;
    op.src.op.ptr.layerHeight = 6;
    op.dst.op.ptr.ptr = dd;
    op.dst.op.ptr.rowLength = 8;
    op.dst.op.ptr.layerHeight = 5;
    op.extent = make_cudaExtent(7, 4, 3);
    op.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    CHECK_CUDA(cudaMemcpy3DBatchAsync(1, &op, 0, s));
    CHECK_CUDA(cudaMemcpyAsync(dst, dd, sizeof dst, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    memset(want, 0, sizeof want);
    for (int z = 0; z < 3; ++z)
        for (int y = 0; y < 4; ++y)
            for (int x = 0; x < 7; ++x) want[z][y][x] = src[z + 1][y + 1][x + 1];
    CHECK(memcmp(dst, want, sizeof dst) == 0);
    op.extent.width = 11;  // wider than the source rows
    CHECK(cudaMemcpy3DWithAttributesAsync(&op, 0, s) == cudaErrorInvalidValue);
    struct cudaMemcpyAttributes attr;
    memset(&attr, 0, sizeof attr);
    attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
    CHECK_CUDA(cudaMemcpyWithAttributesAsync(dd, ds, 16, &attr, s));
    unsigned char first[16];
    CHECK_CUDA(cudaMemcpyAsync(first, dd, 16, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(memcmp(first, src, 16) == 0);
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(ds));
    CHECK_CUDA(cudaFree(dd));
}

static int g_notifications = 0;
static void on_notification(struct cudaAsyncNotificationInfo *, void *, cudaAsyncCallbackHandle_t) { ++g_notifications; }

static void queries(void) {
    enum cudaAtomicOperation ops[2] = {cudaAtomicOperationIntegerAdd, cudaAtomicOperationFloatAdd};
    unsigned int caps[2] = {0, 0};
    CHECK_CUDA(cudaDeviceGetHostAtomicCapabilities(caps, ops, 2, 0));
    CHECK((caps[0] & cudaAtomicCapabilityScalar64) && (caps[1] & cudaAtomicCapabilityScalar32));
    CHECK(cudaDeviceGetP2PAtomicCapabilities(caps, ops, 2, 0, 0) == cudaErrorInvalidDevice);
    CHECK(cudaDeviceFlushGPUDirectRDMAWrites(cudaFlushGPUDirectRDMAWritesTargetCurrentDevice,
                                             cudaFlushGPUDirectRDMAWritesToOwner) == cudaErrorNotSupported);
    cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t arr, plane;
    CHECK_CUDA(cudaMallocArray(&arr, &f, 8, 8, 0));
    CHECK(cudaArrayGetPlane(&plane, arr, 0) == cudaErrorInvalidValue);  // not a multi-planar format
    struct cudaArraySparseProperties sparse;
    CHECK(cudaArrayGetSparseProperties(&sparse, arr) == cudaErrorInvalidValue);  // not sparse
    CHECK_CUDA(cudaFreeArray(arr));
    cudaAsyncCallbackHandle_t h;
    CHECK_CUDA(cudaDeviceRegisterAsyncNotification(0, on_notification, NULL, &h));
    CHECK_CUDA(cudaDeviceUnregisterAsyncNotification(0, h));
    CHECK(cudaDeviceUnregisterAsyncNotification(0, h) == cudaErrorInvalidValue);
    CHECK(g_notifications == 0);
    int types = 0;
    CHECK_CUDA(cudaDeviceGetAttribute(&types, cudaDevAttrMemoryPoolSupportedHandleTypes, 0));
    CHECK(types == cudaMemHandleTypePosixFileDescriptor);
    cudaGetLastError();
}

static int g_recaptured = 0;
static cudaError_t on_recapture(void *data, cudaGraphNode_t, const struct cudaGraphNodeParams *original,
                                const struct cudaGraphNodeParams *recaptured, enum cudaGraphRecaptureStatus status) {
    if (data == &g_recaptured && original->type == cudaGraphNodeTypeMemset && recaptured->memset.value == 9 &&
        status == cudaGraphRecaptureEligibleForUpdate)
        ++g_recaptured;
    return cudaSuccess;
}

static void recapture_and_locations(void) {
    unsigned char *d, host[32];
    CHECK_CUDA(cudaMalloc(&d, sizeof host));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreate(&s));
    cudaGraph_t g, again;
    CHECK_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK_CUDA(cudaMemsetAsync(d, 5, sizeof host, s));
    CHECK_CUDA(cudaStreamEndCapture(s, &g));
    struct cudaGraphRecaptureCallbackData cb = {on_recapture, &g_recaptured};
    CHECK_CUDA(cudaStreamBeginRecaptureToGraph(s, cudaStreamCaptureModeGlobal, g, &cb));
    CHECK_CUDA(cudaMemsetAsync(d, 9, sizeof host, s));
    CHECK_CUDA(cudaStreamEndCapture(s, &again));
    CHECK(again == g && g_recaptured == 1);
    cudaGraphExec_t exe;
    CHECK_CUDA(cudaGraphInstantiate(&exe, g, 0));
    CHECK_CUDA(cudaGraphLaunch(exe, s));
    CHECK_CUDA(cudaMemcpyAsync(host, d, sizeof host, cudaMemcpyDeviceToHost, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK(host[0] == 9 && host[31] == 9);
    CHECK_CUDA(cudaGraphExecDestroy(exe));
    CHECK_CUDA(cudaGraphDestroy(g));
    CHECK_CUDA(cudaStreamDestroy(s));
    CHECK_CUDA(cudaFree(d));
    int *m;
    CHECK_CUDA(cudaMallocManaged(&m, 3 * 4096, cudaMemAttachGlobal));
    struct cudaMemLocation where[3];
    memset(where, 0xff, sizeof where);
    CHECK_CUDA(cudaMemGetLocationInfo(m, 3 * 4096, 4096, 0, where));
    CHECK(where[2].type == cudaMemLocationTypeDevice && where[2].id == 0);
    CHECK_CUDA(cudaFree(m));
}

int main(void) {
    recapture_and_locations();
    external_memory();
    semaphores();
    green_context();
    copies();
    queries();
    return finish("cuda13");
}
