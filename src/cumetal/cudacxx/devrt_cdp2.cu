// The device runtime functions under the names nvcc writes into PTX for device code calling them
// (CUDA 12+'s "CDP2" ABI: `nvcc -rdc=true` declares `.extern .func __cudaCDP2GetDevice` and links
// libcudadevrt). Defined over CuMetal's cuda_device_runtime_api.h, compiled to PTX by CuMetal's
// front end and linked into nvcc-made PTX that declares them (cumetal.cudacxx.devrt_link).
extern "C" {
__device__ __noinline__ cudaError_t __cudaCDP2GetDevice(int *device) { return cudaGetDevice(device); }
__device__ __noinline__ cudaError_t __cudaCDP2GetDeviceCount(int *count) { return cudaGetDeviceCount(count); }
__device__ __noinline__ cudaError_t __cudaCDP2DeviceGetAttribute(int *value, cudaDeviceAttr attr, int device) {
    return cudaDeviceGetAttribute(value, attr, device);
}
__device__ __noinline__ cudaError_t __cudaCDP2DeviceGetLimit(size_t *value, cudaLimit limit) {
    return cudaDeviceGetLimit(value, limit);
}
__device__ __noinline__ cudaError_t __cudaCDP2RuntimeGetVersion(int *version) { return cudaRuntimeGetVersion(version); }
__device__ __noinline__ cudaError_t __cudaCDP2GetLastError(void) { return cudaGetLastError(); }
__device__ __noinline__ cudaError_t __cudaCDP2PeekAtLastError(void) { return cudaPeekAtLastError(); }
__device__ __noinline__ const char *__cudaCDP2GetErrorName(cudaError_t error) { return cudaGetErrorName(error); }
__device__ __noinline__ const char *__cudaCDP2GetErrorString(cudaError_t error) { return cudaGetErrorString(error); }
__device__ __noinline__ cudaError_t __cudaCDP2Malloc(void **ptr, size_t size) { return cudaMalloc(ptr, size); }
__device__ __noinline__ cudaError_t __cudaCDP2Free(void *ptr) { return cudaFree(ptr); }
__device__ __noinline__ cudaError_t __cudaCDP2MemcpyAsync(void *dst, const void *src, size_t count, cudaMemcpyKind kind,
                                                          cudaStream_t stream) {
    return cudaMemcpyAsync(dst, src, count, kind, stream);
}
__device__ __noinline__ cudaError_t __cudaCDP2MemsetAsync(void *ptr, int value, size_t count, cudaStream_t stream) {
    return cudaMemsetAsync(ptr, value, count, stream);
}
}
