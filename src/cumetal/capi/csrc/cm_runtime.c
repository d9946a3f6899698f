/* libcumetal: the CUDA Runtime API. Each function passes its arguments to the Python function of
 * the same name in cumetal.capi.bridge: pointers and sizes as unsigned 64-bit integers ("K"),
 * ints as "i"/"I", dim3 as a tuple. Outputs are written by the bridge through the pointers it is
 * given; NULL checks and error codes live there too, so this file stays a list of signatures,
 * checked against cuda_runtime_api.h by the compiler. */
#include "cuda_runtime_api.h"
#include <stdio.h>
#include <stdlib.h>

#include "cm_core.h"
#include "cm_native_launch.h"

#define K(x) ((unsigned long long)(x))
#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)
#define CALL0(name) return (cudaError_t)cm_call(name, "()")
#define DIM3 "(III)"
#define D3(d) (d).x, (d).y, (d).z

/* ---- device management */
CM_EXPORT cudaError_t cudaDeviceReset(void) { CALL0("cudaDeviceReset"); }
CM_EXPORT cudaError_t cudaDeviceSynchronize(void) { CALL0("cudaDeviceSynchronize"); }
CM_EXPORT cudaError_t cudaDeviceSetLimit(enum cudaLimit limit, size_t value) {
    CALL("cudaDeviceSetLimit", "(iK)", (int)limit, K(value));
}
CM_EXPORT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    CALL("cudaDeviceGetLimit", "(Ki)", CM_P(pValue), (int)limit);
}
CM_EXPORT cudaError_t cudaDeviceGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    CALL("cudaDeviceGetCacheConfig", "(K)", CM_P(pCacheConfig));
}
CM_EXPORT cudaError_t cudaDeviceSetCacheConfig(enum cudaFuncCache cacheConfig) {
    CALL("cudaDeviceSetCacheConfig", "(i)", (int)cacheConfig);
}
CM_EXPORT cudaError_t cudaDeviceGetStreamPriorityRange(int *leastPriority, int *greatestPriority) {
    CALL("cudaDeviceGetStreamPriorityRange", "(KK)", CM_P(leastPriority), CM_P(greatestPriority));
}
CM_EXPORT cudaError_t cudaDeviceGetByPCIBusId(int *device, const char *pciBusId) {
    CALL("cudaDeviceGetByPCIBusId", "(KK)", CM_P(device), CM_P(pciBusId));
}
CM_EXPORT cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device) {
    CALL("cudaDeviceGetPCIBusId", "(Kii)", CM_P(pciBusId), len, device);
}
CM_EXPORT cudaError_t cudaGetDeviceCount(int *count) { CALL("cudaGetDeviceCount", "(K)", CM_P(count)); }
CM_EXPORT cudaError_t cudaGetDeviceProperties(struct cudaDeviceProp *prop, int device) {
    CALL("cudaGetDeviceProperties", "(Ki)", CM_P(prop), device);
}
/* CUDA 12's headers renamed the call to the _v2 symbol; programs built against them link to it */
CM_EXPORT cudaError_t cudaGetDeviceProperties_v2(struct cudaDeviceProp *prop, int device) {
    CALL("cudaGetDeviceProperties", "(Ki)", CM_P(prop), device);
}
CM_EXPORT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    CALL("cudaDeviceGetAttribute", "(Kii)", CM_P(value), (int)attr, device);
}
CM_EXPORT cudaError_t cudaChooseDevice(int *device, const struct cudaDeviceProp *prop) {
    CALL("cudaChooseDevice", "(KK)", CM_P(device), CM_P(prop));
}
CM_EXPORT cudaError_t cudaInitDevice(int device, unsigned int deviceFlags, unsigned int flags) {
    CALL("cudaInitDevice", "(iII)", device, deviceFlags, flags);
}
CM_EXPORT cudaError_t cudaSetDevice(int device) { CALL("cudaSetDevice", "(i)", device); }
CM_EXPORT cudaError_t cudaGetDevice(int *device) { CALL("cudaGetDevice", "(K)", CM_P(device)); }
CM_EXPORT cudaError_t cudaSetValidDevices(int *device_arr, int len) {
    CALL("cudaSetValidDevices", "(Ki)", CM_P(device_arr), len);
}
CM_EXPORT cudaError_t cudaSetDeviceFlags(unsigned int flags) { CALL("cudaSetDeviceFlags", "(I)", flags); }
CM_EXPORT cudaError_t cudaGetDeviceFlags(unsigned int *flags) { CALL("cudaGetDeviceFlags", "(K)", CM_P(flags)); }
CM_EXPORT cudaError_t cudaDeviceCanAccessPeer(int *canAccessPeer, int device, int peerDevice) {
    CALL("cudaDeviceCanAccessPeer", "(Kii)", CM_P(canAccessPeer), device, peerDevice);
}
CM_EXPORT cudaError_t cudaDeviceEnablePeerAccess(int peerDevice, unsigned int flags) {
    CALL("cudaDeviceEnablePeerAccess", "(iI)", peerDevice, flags);
}
CM_EXPORT cudaError_t cudaDeviceDisablePeerAccess(int peerDevice) {
    CALL("cudaDeviceDisablePeerAccess", "(i)", peerDevice);
}

/* ---- errors */
CM_EXPORT cudaError_t cudaGetLastError(void) { CALL0("cudaGetLastError"); }
CM_EXPORT cudaError_t cudaPeekAtLastError(void) { CALL0("cudaPeekAtLastError"); }
/* The bridge returns the address of a NUL-terminated string it keeps for the process's life. */
CM_EXPORT const char *cudaGetErrorName(cudaError_t error) {
    long long p = cm_call("cudaGetErrorName", "(i)", (int)error);
    return p > 4096 ? (const char *)(uintptr_t)p : "cudaErrorInitializationError";
}
CM_EXPORT const char *cudaGetErrorString(cudaError_t error) {
    long long p = cm_call("cudaGetErrorString", "(i)", (int)error);
    return p > 4096 ? (const char *)(uintptr_t)p : "CuMetal could not start its Python runtime";
}

/* ---- versions */
CM_EXPORT cudaError_t cudaDriverGetVersion(int *driverVersion) {
    CALL("cudaDriverGetVersion", "(K)", CM_P(driverVersion));
}
CM_EXPORT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    CALL("cudaRuntimeGetVersion", "(K)", CM_P(runtimeVersion));
}

/* ---- streams */
CM_EXPORT cudaError_t cudaStreamCreate(cudaStream_t *pStream) {
    CALL("cudaStreamCreateWithPriority", "(KIi)", CM_P(pStream), 0u, 0);
}
CM_EXPORT cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags) {
    CALL("cudaStreamCreateWithPriority", "(KIi)", CM_P(pStream), flags, 0);
}
CM_EXPORT cudaError_t cudaStreamCreateWithPriority(cudaStream_t *pStream, unsigned int flags, int priority) {
    CALL("cudaStreamCreateWithPriority", "(KIi)", CM_P(pStream), flags, priority);
}
CM_EXPORT cudaError_t cudaStreamGetPriority(cudaStream_t hStream, int *priority) {
    CALL("cudaStreamGetPriority", "(KK)", CM_P(hStream), CM_P(priority));
}
CM_EXPORT cudaError_t cudaStreamGetFlags(cudaStream_t hStream, unsigned int *flags) {
    CALL("cudaStreamGetFlags", "(KK)", CM_P(hStream), CM_P(flags));
}
CM_EXPORT cudaError_t cudaStreamGetDevice(cudaStream_t hStream, int *device) {
    CALL("cudaStreamGetDevice", "(KK)", CM_P(hStream), CM_P(device));
}
CM_EXPORT cudaError_t cudaStreamDestroy(cudaStream_t stream) { CALL("cudaStreamDestroy", "(K)", CM_P(stream)); }
CM_EXPORT cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event, unsigned int flags) {
    CALL("cudaStreamWaitEvent", "(KKI)", CM_P(stream), CM_P(event), flags);
}
CM_EXPORT cudaError_t cudaStreamAddCallback(cudaStream_t stream, cudaStreamCallback_t callback, void *userData,
                                            unsigned int flags) {
    CALL("cudaStreamAddCallback", "(KKKI)", CM_P(stream), CM_P(callback), CM_P(userData), flags);
}
CM_EXPORT cudaError_t cudaStreamSynchronize(cudaStream_t stream) {
    CALL("cudaStreamSynchronize", "(K)", CM_P(stream));
}
CM_EXPORT cudaError_t cudaStreamQuery(cudaStream_t stream) { CALL("cudaStreamQuery", "(K)", CM_P(stream)); }
CM_EXPORT cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, void *devPtr, size_t length, unsigned int flags) {
    CALL("cudaStreamAttachMemAsync", "(KKKI)", CM_P(stream), CM_P(devPtr), K(length), flags);
}
CM_EXPORT cudaError_t cudaLaunchHostFunc(cudaStream_t stream, cudaHostFn_t fn, void *userData) {
    CALL("cudaLaunchHostFunc", "(KKK)", CM_P(stream), CM_P(fn), CM_P(userData));
}

/* ---- events */
CM_EXPORT cudaError_t cudaEventCreate(cudaEvent_t *event) {
    CALL("cudaEventCreateWithFlags", "(KI)", CM_P(event), 0u);
}
CM_EXPORT cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags) {
    CALL("cudaEventCreateWithFlags", "(KI)", CM_P(event), flags);
}
CM_EXPORT cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream) {
    CALL("cudaEventRecordWithFlags", "(KKI)", CM_P(event), CM_P(stream), 0u);
}
CM_EXPORT cudaError_t cudaEventRecordWithFlags(cudaEvent_t event, cudaStream_t stream, unsigned int flags) {
    CALL("cudaEventRecordWithFlags", "(KKI)", CM_P(event), CM_P(stream), flags);
}
CM_EXPORT cudaError_t cudaEventQuery(cudaEvent_t event) { CALL("cudaEventQuery", "(K)", CM_P(event)); }
CM_EXPORT cudaError_t cudaEventSynchronize(cudaEvent_t event) { CALL("cudaEventSynchronize", "(K)", CM_P(event)); }
CM_EXPORT cudaError_t cudaEventDestroy(cudaEvent_t event) { CALL("cudaEventDestroy", "(K)", CM_P(event)); }
CM_EXPORT cudaError_t cudaEventElapsedTime(float *ms, cudaEvent_t start, cudaEvent_t end) {
    CALL("cudaEventElapsedTime", "(KKK)", CM_P(ms), CM_P(start), CM_P(end));
}

/* ---- execution control */
CM_EXPORT cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                                       cudaStream_t stream) {
    /* a launch Python has validated and compiled before is enqueued without Python (cm_native_launch.c) */
    const unsigned int g[3] = {gridDim.x, gridDim.y, gridDim.z}, b[3] = {blockDim.x, blockDim.y, blockDim.z};
    if (cm_take_unconfigured_call() && g[0] == 0 && b[0] == 0) {
        static int said;
        const char *quiet = getenv("CUMETAL_QUIET");
        if (!said++ && !(quiet && *quiet && *quiet != '0'))
            fprintf(stderr, "cumetal: a __global__ function was called without <<<...>>> (through a function "
                            "pointer?): nothing launched, as with nvcc\n");
        return cudaSuccess;
    }
    if (cm_native_launch(func, g, b, args, sharedMem, stream))
        return cudaSuccess;
    CALL("cudaLaunchKernelPlanned", "(K" DIM3 DIM3 "KKKK)", CM_P(func), D3(gridDim), D3(blockDim), CM_P(args),
         K(sharedMem), CM_P(stream), cm_native_api_address());
}
CM_EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args,
                                                  size_t sharedMem, cudaStream_t stream) {
    CALL("cudaLaunchKernel", "(K" DIM3 DIM3 "KKKi)", CM_P(func), D3(gridDim), D3(blockDim), CM_P(args),
         K(sharedMem), CM_P(stream), 1);
}
CM_EXPORT cudaError_t cudaFuncSetCacheConfig(const void *func, enum cudaFuncCache cacheConfig) {
    CALL("cudaFuncSetCacheConfig", "(Ki)", CM_P(func), (int)cacheConfig);
}
CM_EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func) {
    CALL("cudaFuncGetAttributes", "(KK)", CM_P(attr), CM_P(func));
}
CM_EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value) {
    CALL("cudaFuncSetAttribute", "(Kii)", CM_P(func), (int)attr, value);
}
CM_EXPORT cudaError_t cudaFuncGetName(const char **name, const void *func) {
    CALL("cudaFuncGetName", "(KK)", CM_P(name), CM_P(func));
}
CM_EXPORT cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, const void *entryFuncAddr) {
    CALL("cudaGetKernel", "(KK)", CM_P(kernelPtr), CM_P(entryFuncAddr));
}

/* ---- occupancy */
CM_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func, int blockSize,
                                                                    size_t dynamicSMemSize) {
    CALL("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "(KKiKI)", CM_P(numBlocks), CM_P(func),
         blockSize, K(dynamicSMemSize), 0u);
}
CM_EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, const void *func,
                                                                             int blockSize, size_t dynamicSMemSize,
                                                                             unsigned int flags) {
    CALL("cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", "(KKiKI)", CM_P(numBlocks), CM_P(func),
         blockSize, K(dynamicSMemSize), flags);
}
CM_EXPORT cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, const void *func,
                                                                int numBlocks, int blockSize) {
    CALL("cudaOccupancyAvailableDynamicSMemPerBlock", "(KKii)", CM_P(dynamicSmemSize), CM_P(func), numBlocks,
         blockSize);
}

/* ---- memory management */
CM_EXPORT cudaError_t cudaMalloc(void **devPtr, size_t size) { CALL("cudaMalloc", "(KK)", CM_P(devPtr), K(size)); }
CM_EXPORT cudaError_t cudaMallocManaged(void **devPtr, size_t size, unsigned int flags) {
    CALL("cudaMallocManaged", "(KKI)", CM_P(devPtr), K(size), flags);
}
CM_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size) {
    CALL("cudaHostAlloc", "(KKI)", CM_P(ptr), K(size), 0u);
}
CM_EXPORT cudaError_t cudaMallocPitch(void **devPtr, size_t *pitch, size_t width, size_t height) {
    CALL("cudaMallocPitch", "(KKKK)", CM_P(devPtr), CM_P(pitch), K(width), K(height));
}
CM_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitchedDevPtr, struct cudaExtent extent) {
    CALL("cudaMalloc3D", "(KKKK)", CM_P(pitchedDevPtr), K(extent.width), K(extent.height), K(extent.depth));
}
CM_EXPORT cudaError_t cudaMallocAsync(void **devPtr, size_t size, cudaStream_t hStream) {
    CALL("cudaMallocAsync", "(KKK)", CM_P(devPtr), K(size), CM_P(hStream));
}
CM_EXPORT cudaError_t cudaFree(void *devPtr) { CALL("cudaFree", "(K)", CM_P(devPtr)); }
CM_EXPORT cudaError_t cudaFreeHost(void *ptr) { CALL("cudaFreeHost", "(K)", CM_P(ptr)); }
CM_EXPORT cudaError_t cudaFreeAsync(void *devPtr, cudaStream_t hStream) {
    CALL("cudaFreeAsync", "(KK)", CM_P(devPtr), CM_P(hStream));
}
CM_EXPORT cudaError_t cudaHostAlloc(void **pHost, size_t size, unsigned int flags) {
    CALL("cudaHostAlloc", "(KKI)", CM_P(pHost), K(size), flags);
}
CM_EXPORT cudaError_t cudaHostRegister(void *ptr, size_t size, unsigned int flags) {
    CALL("cudaHostRegister", "(KKI)", CM_P(ptr), K(size), flags);
}
CM_EXPORT cudaError_t cudaHostUnregister(void *ptr) { CALL("cudaHostUnregister", "(K)", CM_P(ptr)); }
CM_EXPORT cudaError_t cudaHostGetDevicePointer(void **pDevice, void *pHost, unsigned int flags) {
    CALL("cudaHostGetDevicePointer", "(KKI)", CM_P(pDevice), CM_P(pHost), flags);
}
CM_EXPORT cudaError_t cudaHostGetFlags(unsigned int *pFlags, void *pHost) {
    CALL("cudaHostGetFlags", "(KK)", CM_P(pFlags), CM_P(pHost));
}
CM_EXPORT cudaError_t cudaMemGetInfo(size_t *free, size_t *total) {
    CALL("cudaMemGetInfo", "(KK)", CM_P(free), CM_P(total));
}
CM_EXPORT cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *attributes, const void *ptr) {
    CALL("cudaPointerGetAttributes", "(KK)", CM_P(attributes), CM_P(ptr));
}

CM_EXPORT cudaError_t cudaMemcpy(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyAsync", "(KKKiKi)", CM_P(dst), CM_P(src), K(count), (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                      cudaStream_t stream) {
    CALL("cudaMemcpyAsync", "(KKKiKi)", CM_P(dst), CM_P(src), K(count), (int)kind, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpy2D(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                   size_t height, enum cudaMemcpyKind kind) {
    CALL("cudaMemcpy2DAsync", "(KKKKKKiKi)", CM_P(dst), K(dpitch), CM_P(src), K(spitch), K(width), K(height),
         (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpy2DAsync(void *dst, size_t dpitch, const void *src, size_t spitch, size_t width,
                                        size_t height, enum cudaMemcpyKind kind, cudaStream_t stream) {
    CALL("cudaMemcpy2DAsync", "(KKKKKKiKi)", CM_P(dst), K(dpitch), CM_P(src), K(spitch), K(width), K(height),
         (int)kind, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpy3D(const struct cudaMemcpy3DParms *p) {
    CALL("cudaMemcpy3DAsync", "(KKi)", CM_P(p), 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpy3DAsync(const struct cudaMemcpy3DParms *p, cudaStream_t stream) {
    CALL("cudaMemcpy3DAsync", "(KKi)", CM_P(p), CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpyPeer(void *dst, int dstDevice, const void *src, int srcDevice, size_t count) {
    CALL("cudaMemcpyPeerAsync", "(KiKiKKi)", CM_P(dst), dstDevice, CM_P(src), srcDevice, K(count), 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpyPeerAsync(void *dst, int dstDevice, const void *src, int srcDevice, size_t count,
                                          cudaStream_t stream) {
    CALL("cudaMemcpyPeerAsync", "(KiKiKKi)", CM_P(dst), dstDevice, CM_P(src), srcDevice, K(count), CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpyToSymbol(const void *symbol, const void *src, size_t count, size_t offset,
                                         enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyToSymbolAsync", "(KKKKiKi)", CM_P(symbol), CM_P(src), K(count), K(offset), (int)kind, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemcpyFromSymbol(void *dst, const void *symbol, size_t count, size_t offset,
                                           enum cudaMemcpyKind kind) {
    CALL("cudaMemcpyFromSymbolAsync", "(KKKKiKi)", CM_P(dst), CM_P(symbol), K(count), K(offset), (int)kind, 0ull,
         1);
}
CM_EXPORT cudaError_t cudaMemcpyToSymbolAsync(const void *symbol, const void *src, size_t count, size_t offset,
                                              enum cudaMemcpyKind kind, cudaStream_t stream) {
    CALL("cudaMemcpyToSymbolAsync", "(KKKKiKi)", CM_P(symbol), CM_P(src), K(count), K(offset), (int)kind,
         CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const void *symbol, size_t count, size_t offset,
                                                enum cudaMemcpyKind kind, cudaStream_t stream) {
    CALL("cudaMemcpyFromSymbolAsync", "(KKKKiKi)", CM_P(dst), CM_P(symbol), K(count), K(offset), (int)kind,
         CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemset(void *devPtr, int value, size_t count) {
    CALL("cudaMemset2DAsync", "(KKiKKKi)", CM_P(devPtr), K(count), value, K(count), 1ull, 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream) {
    CALL("cudaMemset2DAsync", "(KKiKKKi)", CM_P(devPtr), K(count), value, K(count), 1ull, CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemset2D(void *devPtr, size_t pitch, int value, size_t width, size_t height) {
    CALL("cudaMemset2DAsync", "(KKiKKKi)", CM_P(devPtr), K(pitch), value, K(width), K(height), 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemset2DAsync(void *devPtr, size_t pitch, int value, size_t width, size_t height,
                                        cudaStream_t stream) {
    CALL("cudaMemset2DAsync", "(KKiKKKi)", CM_P(devPtr), K(pitch), value, K(width), K(height), CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaMemset3D(struct cudaPitchedPtr p, int value, struct cudaExtent e) {
    CALL("cudaMemset3DAsync", "(KKKKiKKKKi)", CM_P(p.ptr), K(p.pitch), K(p.xsize), K(p.ysize), value,
         K(e.width), K(e.height), K(e.depth), 0ull, 1);
}
CM_EXPORT cudaError_t cudaMemset3DAsync(struct cudaPitchedPtr p, int value, struct cudaExtent e,
                                        cudaStream_t stream) {
    CALL("cudaMemset3DAsync", "(KKKKiKKKKi)", CM_P(p.ptr), K(p.pitch), K(p.xsize), K(p.ysize), value,
         K(e.width), K(e.height), K(e.depth), CM_P(stream), 0);
}
CM_EXPORT cudaError_t cudaGetSymbolAddress(void **devPtr, const void *symbol) {
    CALL("cudaGetSymbolAddress", "(KK)", CM_P(devPtr), CM_P(symbol));
}
CM_EXPORT cudaError_t cudaGetSymbolSize(size_t *size, const void *symbol) {
    CALL("cudaGetSymbolSize", "(KK)", CM_P(size), CM_P(symbol));
}
CM_EXPORT cudaError_t cudaMemPrefetchAsync(const void *devPtr, size_t count, struct cudaMemLocation location,
                                           unsigned int flags, cudaStream_t stream) {
    CALL("cudaMemPrefetchAsync", "(KKiiIK)", CM_P(devPtr), K(count), (int)location.type, location.id, flags,
         CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemAdvise(const void *devPtr, size_t count, enum cudaMemoryAdvise advice,
                                    struct cudaMemLocation location) {
    CALL("cudaMemAdvise", "(KKiii)", CM_P(devPtr), K(count), (int)advice, (int)location.type, location.id);
}

/* ---- stream-ordered memory pools */
CM_EXPORT cudaError_t cudaDeviceGetDefaultMemPool(cudaMemPool_t *memPool, int device) {
    CALL("cudaDeviceGetDefaultMemPool", "(Ki)", CM_P(memPool), device);
}
CM_EXPORT cudaError_t cudaDeviceGetMemPool(cudaMemPool_t *memPool, int device) {
    CALL("cudaDeviceGetMemPool", "(Ki)", CM_P(memPool), device);
}
CM_EXPORT cudaError_t cudaDeviceSetMemPool(int device, cudaMemPool_t memPool) {
    CALL("cudaDeviceSetMemPool", "(iK)", device, CM_P(memPool));
}
CM_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
    CALL("cudaMallocFromPoolAsync", "(KKKK)", CM_P(ptr), K(size), CM_P(memPool), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemPoolSetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value) {
    CALL("cudaMemPoolSetAttribute", "(KiK)", CM_P(memPool), (int)attr, CM_P(value));
}
CM_EXPORT cudaError_t cudaMemPoolGetAttribute(cudaMemPool_t memPool, enum cudaMemPoolAttr attr, void *value) {
    CALL("cudaMemPoolGetAttribute", "(KiK)", CM_P(memPool), (int)attr, CM_P(value));
}
CM_EXPORT cudaError_t cudaMemPoolTrimTo(cudaMemPool_t memPool, size_t minBytesToKeep) {
    CALL("cudaMemPoolTrimTo", "(KK)", CM_P(memPool), K(minBytesToKeep));
}

/* ---- stream capture and graphs */
CM_EXPORT cudaError_t cudaStreamBeginCapture(cudaStream_t stream, enum cudaStreamCaptureMode mode) {
    CALL("cudaStreamBeginCapture", "(Ki)", CM_P(stream), (int)mode);
}
CM_EXPORT cudaError_t cudaStreamEndCapture(cudaStream_t stream, cudaGraph_t *pGraph) {
    CALL("cudaStreamEndCapture", "(KK)", CM_P(stream), CM_P(pGraph));
}
CM_EXPORT cudaError_t cudaStreamIsCapturing(cudaStream_t stream, enum cudaStreamCaptureStatus *pCaptureStatus) {
    CALL("cudaStreamIsCapturing", "(KK)", CM_P(stream), CM_P(pCaptureStatus));
}
CM_EXPORT cudaError_t cudaGraphCreate(cudaGraph_t *pGraph, unsigned int flags) {
    CALL("cudaGraphCreate", "(KI)", CM_P(pGraph), flags);
}
CM_EXPORT cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph, unsigned long long flags) {
    CALL("cudaGraphInstantiate", "(KKK)", CM_P(pGraphExec), CM_P(graph), flags);
}
CM_EXPORT cudaError_t cudaGraphInstantiateWithFlags(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                    unsigned long long flags) {
    CALL("cudaGraphInstantiate", "(KKK)", CM_P(pGraphExec), CM_P(graph), flags);
}
CM_EXPORT cudaError_t cudaGraphLaunch(cudaGraphExec_t graphExec, cudaStream_t stream) {
    CALL("cudaGraphLaunch", "(KK)", CM_P(graphExec), CM_P(stream));
}
CM_EXPORT cudaError_t cudaGraphExecDestroy(cudaGraphExec_t graphExec) {
    CALL("cudaGraphExecDestroy", "(K)", CM_P(graphExec));
}
CM_EXPORT cudaError_t cudaGraphDestroy(cudaGraph_t graph) { CALL("cudaGraphDestroy", "(K)", CM_P(graph)); }

/* ---- profiler control */
CM_EXPORT cudaError_t cudaProfilerStart(void) { CALL0("cudaProfilerStart"); }
CM_EXPORT cudaError_t cudaProfilerStop(void) { CALL0("cudaProfilerStop"); }

/* ---- CuMetal: --default-stream per-thread (called from a constructor in cuda_runtime_api.h) */
CM_EXPORT void __cumetalUsePerThreadDefaultStream(void) { cm_call("use_per_thread_default_stream", "()"); }
