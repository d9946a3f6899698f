/* libcumetal: the entry points that compiled CUDA host code calls.
 *
 * Registration (clang and nvcc alike): a static constructor calls __cudaRegisterFatBinary with a
 * wrapper {magic, version, data, unused} around the device-code container, then registers each
 * kernel (__cudaRegisterFunction: host stub address -> device name) and each __device__ /
 * __constant__ / __managed__ variable (host shadow address -> device name), then
 * __cudaRegisterFatBinaryEnd. All of that is recorded by the Python side (cumetal.capi.bridge).
 *
 * Launch: `k<<<g, b, s, st>>>(args)` pushes the configuration, then calls the kernel's host stub,
 * which pops it and calls cudaLaunchKernel (clang, nvcc < 13) or __cudaGetKernel +
 * __cudaLaunchKernel (nvcc 13). The configuration stack is per thread and lives here in C. */
#include <stdlib.h>
#include <string.h>

#include "cuda_runtime_api.h"

#include "cm_core.h"

/* ---- registration */
CM_EXPORT void **__cudaRegisterFatBinary(void *fatCubin) {
    /* the handle is a small block the program keeps and passes back; never NULL */
    void **handle = (void **)calloc(4, sizeof(void *));
    static void *fallback[4];
    if (handle == NULL)
        handle = fallback;
    handle[0] = fatCubin;
    cm_call("register_fatbinary", "(KK)", CM_P(handle), CM_P(fatCubin));
    return handle;
}

CM_EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle) {
    cm_call("register_fatbinary_end", "(K)", CM_P(fatCubinHandle));
}

CM_EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle) {
    cm_call("unregister_fatbinary", "(K)", CM_P(fatCubinHandle));
}

CM_EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun, char *deviceFun,
                                      const char *deviceName, int thread_limit, uint3 *tid, uint3 *bid, dim3 *bDim,
                                      dim3 *gDim, int *wSize) {
    cm_call("register_function", "(KKKi)", CM_P(fatCubinHandle), CM_P(hostFun),
            CM_P(deviceName ? deviceName : deviceFun), thread_limit);
}

/* Sections of clang-built __managed__ host shadows, one per executable or shared library (the
 * headers' constructor registers its image's before that image's registration constructors run).
 * A variable registered inside one is managed with its storage at the shadow: register_var's
 * last argument is 2 (1: nvcc's pointer cell, 0: a plain __device__/__constant__ variable). */
#define CM_MANAGED_RANGES 64
static struct {
    char *begin, *end;
} cm_managed_ranges[CM_MANAGED_RANGES];
static int cm_managed_count;

CM_EXPORT void __cumetalRegisterManagedRange(void *begin, void *end) {
    for (int i = 0; i < cm_managed_count; i++)
        if (cm_managed_ranges[i].begin == (char *)begin)
            return; /* every translation unit of an image registers the same range */
    if (cm_managed_count < CM_MANAGED_RANGES && begin != NULL && (char *)end > (char *)begin) {
        cm_managed_ranges[cm_managed_count].begin = (char *)begin;
        cm_managed_ranges[cm_managed_count].end = (char *)end;
        cm_managed_count++;
    }
}

static int cm_in_managed_section(const char *p) {
    for (int i = 0; i < cm_managed_count; i++)
        if (p >= cm_managed_ranges[i].begin && p < cm_managed_ranges[i].end)
            return 1;
    return 0;
}

CM_EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress, const char *deviceName,
                                 int ext, size_t size, int constant, int global) {
    cm_call("register_var", "(KKKiKiii)", CM_P(fatCubinHandle), CM_P(hostVar),
            CM_P(deviceName ? deviceName : deviceAddress), ext, (unsigned long long)size, constant, global,
            cm_in_managed_section(hostVar) ? 2 : 0);
}

/* hostVarPtrAddress: the host's pointer cell for a __managed__ variable; the runtime stores the
 * variable's (unified) address there when the module is loaded. */
CM_EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress, char *deviceAddress,
                                        const char *deviceName, int ext, size_t size, int constant, int global) {
    cm_call("register_var", "(KKKiKiii)", CM_P(fatCubinHandle), CM_P(hostVarPtrAddress),
            CM_P(deviceName ? deviceName : deviceAddress), ext, (unsigned long long)size, constant, global, 1);
}

/* nvcc: called before the first host access to a __managed__ variable; 1 when it is usable */
CM_EXPORT char __cudaInitModule(void **fatCubinHandle) {
    return cm_call("init_module", "(K)", CM_P(fatCubinHandle)) == 0 ? 1 : 0;
}

/* ---- launch configuration (per thread; a small stack because a launch's arguments may launch) */
struct cm_launch_config {
    dim3 grid, block;
    size_t shared;
    void *stream;
};
#define CM_CONFIG_DEPTH 16
static __thread struct cm_launch_config cm_configs[CM_CONFIG_DEPTH];
static __thread int cm_config_depth;

CM_EXPORT unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem,
                                               struct CUstream_st *stream) {
    if (cm_config_depth >= CM_CONFIG_DEPTH)
        return 1; /* the launch is skipped by the caller */
    struct cm_launch_config *c = &cm_configs[cm_config_depth++];
    c->grid = gridDim;
    c->block = blockDim;
    c->shared = sharedMem;
    c->stream = stream;
    return 0;
}

static __thread int cm_unconfigured_call;

int cm_take_unconfigured_call(void) {
    int was = cm_unconfigured_call;
    cm_unconfigured_call = 0;
    return was;
}

CM_EXPORT cudaError_t __cudaPopCallConfiguration(dim3 *gridDim, dim3 *blockDim, size_t *sharedMem, void *stream) {
    if (cm_config_depth <= 0) {
        /* a kernel's host stub called as a plain function (a __global__ function through a pointer,
         * no <<<>>>): nvcc's stub returns here without launching; clang's goes on to cudaLaunchKernel,
         * which sees this mark and zero dimensions and launches nothing either */
        if (gridDim)
            *gridDim = (dim3){0, 0, 0};
        if (blockDim)
            *blockDim = (dim3){0, 0, 0};
        if (sharedMem)
            *sharedMem = 0;
        if (stream)
            *(void **)stream = NULL;
        cm_unconfigured_call = 1;
        return cudaErrorMissingConfiguration;
    }
    struct cm_launch_config *c = &cm_configs[--cm_config_depth];
    if (gridDim)
        *gridDim = c->grid;
    if (blockDim)
        *blockDim = c->block;
    if (sharedMem)
        *sharedMem = c->shared;
    if (stream)
        *(void **)stream = c->stream;
    return cudaSuccess;
}

/* ---- nvcc 13 launch ABI: the kernel handle is the host stub's address */
CM_EXPORT cudaError_t __cudaGetKernel(cudaKernel_t *kernel, const void *hostFun) {
    if (kernel == NULL)
        return cudaErrorInvalidValue;
    *kernel = (cudaKernel_t)hostFun;
    return cudaSuccess;
}

CM_EXPORT cudaError_t __cudaLaunchKernel(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                         size_t sharedMem, cudaStream_t stream) {
    return cudaLaunchKernel((const void *)kernel, gridDim, blockDim, args, sharedMem, stream);
}

/* --default-stream per-thread: the null stream of this call means the calling thread's stream */
CM_EXPORT cudaError_t __cudaLaunchKernel_ptsz(cudaKernel_t kernel, dim3 gridDim, dim3 blockDim, void **args,
                                              size_t sharedMem, cudaStream_t stream) {
    return cudaLaunchKernel((const void *)kernel, gridDim, blockDim, args, sharedMem,
                            stream ? stream : cudaStreamPerThread);
}

/* ---- CuMetal -rdc: the program's device-linked module, registered by a constructor that
 * cumetal.capi.build adds at link time; every relocatable part's kernels live in it. */
CM_EXPORT void __cumetalRegisterLinkedImage(const void *image) {
    cm_call("register_linked_image", "(K)", CM_P(image));
}
