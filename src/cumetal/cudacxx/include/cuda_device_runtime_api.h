/* CuMetal clean-room CUDA headers: cuda_device_runtime_api.h — the Runtime API functions device code
 * may call (CUDA C++ Programming Guide, "Device Runtime"; CUDA Runtime API reference), as CuMetal
 * runs them. Included by cuda_runtime.h in CUDA compilations (as nvcc's is); nvcc needs
 * -rdc=true -lcudadevrt for these, CuMetal needs nothing.
 *
 * Answered (each a __device__ overload next to the host declaration of cuda_runtime_api.h):
 *   cudaGetDevice, cudaGetDeviceCount, cudaDeviceGetAttribute, cudaDeviceGetLimit,
 *   cudaRuntimeGetVersion, cudaDriverGetVersion: the host runtime's answers for the device the module
 *     was loaded on, written by the driver into __cumetal_devrt_info at module load
 *     (cumetal.cudacxx.devrt; limits as they were at that moment);
 *   cudaGetErrorName, cudaGetErrorString: the host runtime's strings (cumetal/devrt_errors.h);
 *   cudaGetLastError, cudaPeekAtLastError: cudaSuccess (the calls CuMetal supports return their
 *     error directly and leave no sticky device-side error);
 *   cudaMalloc, cudaFree: the device heap (malloc/free), as CUDA's device-side versions are;
 *   cudaMemcpyAsync, cudaMemsetAsync: done at once by the calling thread (device memory only; the
 *     stream argument is ignored — the work is complete before the call returns).
 * Refused with a compile-time error naming the call (CuMetal has no device-side launches, streams or
 * events: dynamic parallelism): cudaLaunchDevice, cudaGetParameterBuffer (what a <<<>>> launch in
 * device code becomes), cudaStreamCreateWithFlags, cudaStreamDestroy, cudaStreamWaitEvent,
 * cudaEventCreateWithFlags, cudaEventRecord, cudaEventDestroy, cudaDeviceSynchronize. */
#ifndef CUMETAL_CUDA_DEVICE_RUNTIME_API_H
#define CUMETAL_CUDA_DEVICE_RUNTIME_API_H

#if defined(__CUDA__) && defined(__cplusplus)
#include "cumetal/devrt_errors.h"

/* Keep in step with cumetal.cudacxx.devrt.DevrtInfo. */
struct __cumetal_devrt_info_t {
    int device, device_count, runtime_version, driver_version;
    unsigned long long limits[16];   /* by cudaLimit */
    unsigned int limit_valid;        /* bit l: limits[l] is meaningful */
    unsigned int attribute_valid[8]; /* bit a: attributes[a] is meaningful */
    int attributes[256];             /* by cudaDeviceAttr */
};

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wc++17-extensions"
/* An inline variable: a weak global in the modules whose device code reads it, and only there. */
inline __device__ __cumetal_devrt_info_t __cumetal_devrt_info;
#pragma clang diagnostic pop

#define __CM_DEVRT static __inline__ __device__

__CM_DEVRT cudaError_t cudaGetDevice(int *device) {
    *device = __cumetal_devrt_info.device;
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaGetDeviceCount(int *count) {
    *count = __cumetal_devrt_info.device_count;
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaDeviceGetAttribute(int *value, enum cudaDeviceAttr attr, int device) {
    unsigned a = (unsigned)attr;
    if (device != __cumetal_devrt_info.device) return cudaErrorInvalidDevice;
    if (a >= 256u || !((__cumetal_devrt_info.attribute_valid[a / 32u] >> (a % 32u)) & 1u)) return cudaErrorInvalidValue;
    *value = __cumetal_devrt_info.attributes[a];
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaDeviceGetLimit(size_t *pValue, enum cudaLimit limit) {
    unsigned l = (unsigned)limit;
    if (l >= 16u || !((__cumetal_devrt_info.limit_valid >> l) & 1u)) return cudaErrorUnsupportedLimit;
    *pValue = (size_t)__cumetal_devrt_info.limits[l];
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaRuntimeGetVersion(int *runtimeVersion) {
    *runtimeVersion = __cumetal_devrt_info.runtime_version;
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaDriverGetVersion(int *driverVersion) {
    *driverVersion = __cumetal_devrt_info.driver_version;
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaGetLastError(void) { return cudaSuccess; }
__CM_DEVRT cudaError_t cudaPeekAtLastError(void) { return cudaSuccess; }
__CM_DEVRT const char *cudaGetErrorName(cudaError_t error) { return __cumetal_devrt_error_name((int)error); }
__CM_DEVRT const char *cudaGetErrorString(cudaError_t error) { return __cumetal_devrt_error_string((int)error); }

__CM_DEVRT cudaError_t cudaMalloc(void **devPtr, size_t size) {
    *devPtr = malloc(size);
    return (*devPtr != 0 || size == 0) ? cudaSuccess : cudaErrorMemoryAllocation;
}
__CM_DEVRT cudaError_t cudaFree(void *devPtr) {
    free(devPtr);
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t count, enum cudaMemcpyKind kind,
                                       cudaStream_t stream = 0) {
    (void)stream;
    if (kind != cudaMemcpyDeviceToDevice && kind != cudaMemcpyDefault) return cudaErrorInvalidMemcpyDirection;
    memcpy(dst, src, count);
    return cudaSuccess;
}
__CM_DEVRT cudaError_t cudaMemsetAsync(void *devPtr, int value, size_t count, cudaStream_t stream = 0) {
    (void)stream;
    memset(devPtr, value, count);
    return cudaSuccess;
}

/* Dynamic parallelism: declared so that a use is diagnosed where it is compiled for the device (the
 * 'error' attribute fires only for calls that remain in emitted device code). */
#define __CM_DEVRT_NO(what) \
    __device__ __attribute__((error("CuMetal does not support " what " from device code (CUDA dynamic " \
                                    "parallelism: device-side kernel launches, streams and events)")))
extern "C" __CM_DEVRT_NO("kernel launches (<<<>>>, cudaLaunchDevice)")
void *cudaGetParameterBuffer(size_t alignment, size_t size);
extern "C" __CM_DEVRT_NO("kernel launches (<<<>>>, cudaLaunchDevice)")
cudaError_t cudaLaunchDevice(void *func, void *parameterBuffer, dim3 gridDimension, dim3 blockDimension,
                             unsigned int sharedMemSize, cudaStream_t stream);
__CM_DEVRT_NO("cudaStreamCreateWithFlags") cudaError_t cudaStreamCreateWithFlags(cudaStream_t *pStream, unsigned int flags);
__CM_DEVRT_NO("cudaStreamDestroy") cudaError_t cudaStreamDestroy(cudaStream_t stream);
__CM_DEVRT_NO("cudaStreamWaitEvent") cudaError_t cudaStreamWaitEvent(cudaStream_t stream, cudaEvent_t event,
                                                                      unsigned int flags);
__CM_DEVRT_NO("cudaEventCreateWithFlags") cudaError_t cudaEventCreateWithFlags(cudaEvent_t *event, unsigned int flags);
__CM_DEVRT_NO("cudaEventRecord") cudaError_t cudaEventRecord(cudaEvent_t event, cudaStream_t stream);
__CM_DEVRT_NO("cudaEventDestroy") cudaError_t cudaEventDestroy(cudaEvent_t event);
__CM_DEVRT_NO("cudaDeviceSynchronize") cudaError_t cudaDeviceSynchronize(void);
#undef __CM_DEVRT_NO
#undef __CM_DEVRT

#endif /* __CUDA__ && __cplusplus */
#endif /* CUMETAL_CUDA_DEVICE_RUNTIME_API_H */
