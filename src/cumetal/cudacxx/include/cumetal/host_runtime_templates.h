/* CuMetal clean-room CUDA headers: the C++ conveniences of the Runtime API (CUDA Runtime API
 * documentation, "C++ API Routines"): typed overloads of the allocation, symbol, launch, function
 * attribute and occupancy calls. Each forwards to the C function of cuda_runtime_api.h. */
#ifndef CUMETAL_HOST_RUNTIME_TEMPLATES_H
#define CUMETAL_HOST_RUNTIME_TEMPLATES_H

static inline cudaError_t cudaEventCreate(cudaEvent_t *event, unsigned int flags) {
    return cudaEventCreateWithFlags(event, flags);
}
static inline cudaError_t cudaMallocHost(void **ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc(ptr, size, flags);
}

template <class T> static inline cudaError_t cudaMalloc(T **devPtr, size_t size) {
    return cudaMalloc((void **)(void *)devPtr, size);
}
template <class T> static inline cudaError_t cudaMallocHost(T **ptr, size_t size, unsigned int flags = 0) {
    return cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostAlloc(T **ptr, size_t size, unsigned int flags) {
    return cudaHostAlloc((void **)(void *)ptr, size, flags);
}
template <class T> static inline cudaError_t cudaHostGetDevicePointer(T **pDevice, void *pHost, unsigned int flags) {
    return cudaHostGetDevicePointer((void **)(void *)pDevice, pHost, flags);
}
template <class T>
static inline cudaError_t cudaMallocManaged(T **devPtr, size_t size, unsigned int flags = cudaMemAttachGlobal) {
    return cudaMallocManaged((void **)(void *)devPtr, size, flags);
}
template <class T>
static inline cudaError_t cudaMallocPitch(T **devPtr, size_t *pitch, size_t widthInBytes, size_t height) {
    return cudaMallocPitch((void **)(void *)devPtr, pitch, widthInBytes, height);
}
template <class T> static inline cudaError_t cudaMallocAsync(T **devPtr, size_t size, cudaStream_t stream) {
    return cudaMallocAsync((void **)(void *)devPtr, size, stream);
}
/* CUDA's C++ overloads: cudaMallocAsync from a given pool is cudaMallocFromPoolAsync */
static inline cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
    return cudaMallocFromPoolAsync(ptr, size, memPool, stream);
}
template <class T>
static inline cudaError_t cudaMallocAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
    return cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool, stream);
}
template <class T>
static inline cudaError_t cudaMallocFromPoolAsync(T **ptr, size_t size, cudaMemPool_t memPool, cudaStream_t stream) {
    return cudaMallocFromPoolAsync((void **)(void *)ptr, size, memPool, stream);
}
template <class T>
static inline cudaError_t cudaStreamAttachMemAsync(cudaStream_t stream, T *devPtr, size_t length = 0,
                                                   unsigned int flags = cudaMemAttachSingle) {
    return cudaStreamAttachMemAsync(stream, (void *)devPtr, length, flags);
}

/* ---- symbols: the host shadow variable names the device variable */
template <class T>
static inline cudaError_t cudaMemcpyToSymbol(const T &symbol, const void *src, size_t count, size_t offset = 0,
                                             enum cudaMemcpyKind kind = cudaMemcpyHostToDevice) {
    return cudaMemcpyToSymbol((const void *)&symbol, src, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyToSymbolAsync(const T &symbol, const void *src, size_t count,
                                                  size_t offset = 0,
                                                  enum cudaMemcpyKind kind = cudaMemcpyHostToDevice,
                                                  cudaStream_t stream = 0) {
    return cudaMemcpyToSymbolAsync((const void *)&symbol, src, count, offset, kind, stream);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbol(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                               enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost) {
    return cudaMemcpyFromSymbol(dst, (const void *)&symbol, count, offset, kind);
}
template <class T>
static inline cudaError_t cudaMemcpyFromSymbolAsync(void *dst, const T &symbol, size_t count, size_t offset = 0,
                                                    enum cudaMemcpyKind kind = cudaMemcpyDeviceToHost,
                                                    cudaStream_t stream = 0) {
    return cudaMemcpyFromSymbolAsync(dst, (const void *)&symbol, count, offset, kind, stream);
}
template <class T> static inline cudaError_t cudaGetSymbolAddress(void **devPtr, const T &symbol) {
    return cudaGetSymbolAddress(devPtr, (const void *)&symbol);
}
template <class T> static inline cudaError_t cudaGetSymbolSize(size_t *size, const T &symbol) {
    return cudaGetSymbolSize(size, (const void *)&symbol);
}

/* ---- kernels: the host stub's address names the kernel */
template <class T>
static inline cudaError_t cudaLaunchKernel(const T *func, dim3 gridDim, dim3 blockDim, void **args,
                                           size_t sharedMem = 0, cudaStream_t stream = 0) {
    return cudaLaunchKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T>
static inline cudaError_t cudaLaunchCooperativeKernel(const T *func, dim3 gridDim, dim3 blockDim, void **args,
                                                      size_t sharedMem = 0, cudaStream_t stream = 0) {
    return cudaLaunchCooperativeKernel((const void *)func, gridDim, blockDim, args, sharedMem, stream);
}
template <class T> static inline cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, T *entry) {
    return cudaFuncGetAttributes(attr, (const void *)entry);
}
template <class T>
static inline cudaError_t cudaFuncSetAttribute(T *entry, enum cudaFuncAttribute attr, int value) {
    return cudaFuncSetAttribute((const void *)entry, attr, value);
}
template <class T> static inline cudaError_t cudaFuncSetCacheConfig(T *func, enum cudaFuncCache cacheConfig) {
    return cudaFuncSetCacheConfig((const void *)func, cacheConfig);
}
template <class T> static inline cudaError_t cudaGetKernel(cudaKernel_t *kernelPtr, T *func) {
    return cudaGetKernel(kernelPtr, (const void *)func);
}

/* ---- occupancy */
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, T func, int blockSize,
                                                                        size_t dynamicSMemSize) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func, blockSize,
                                                                  dynamicSMemSize, cudaOccupancyDefault);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks, T func,
                                                                                 int blockSize,
                                                                                 size_t dynamicSMemSize,
                                                                                 unsigned int flags) {
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, (const void *)func, blockSize,
                                                                  dynamicSMemSize, flags);
}
template <class T>
static inline cudaError_t cudaOccupancyAvailableDynamicSMemPerBlock(size_t *dynamicSmemSize, T func, int numBlocks,
                                                                    int blockSize) {
    return cudaOccupancyAvailableDynamicSMemPerBlock(dynamicSmemSize, (const void *)func, numBlocks, blockSize);
}

/* The block size (a multiple of the warp size, at most the kernel's and blockSizeLimit's maximum)
 * that maximises resident threads per multiprocessor, and the grid that fills the device with it.
 * dynamicSMem(blockSize) gives the dynamic shared memory a block of that size needs. */
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
    int *minGridSize, int *blockSize, T func, UnaryFunction dynamicSMem, int blockSizeLimit = 0,
    unsigned int flags = 0) {
    if (minGridSize == 0 || blockSize == 0 || func == 0)
        return cudaErrorInvalidValue;
    int device = 0, sms = 0, warp = 32, maxPerSm = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
    if (err == cudaSuccess) err = cudaDeviceGetAttribute(&warp, cudaDevAttrWarpSize, device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&maxPerSm, cudaDevAttrMaxThreadsPerMultiProcessor, device);
    struct cudaFuncAttributes attr;
    if (err == cudaSuccess) err = cudaFuncGetAttributes(&attr, (const void *)func);
    if (err != cudaSuccess) return err;
    int limit = attr.maxThreadsPerBlock;
    if (blockSizeLimit > 0 && blockSizeLimit < limit) limit = blockSizeLimit;
    int bestBlock = 0, bestThreads = -1, bestBlocks = 0;
    for (int b = (limit / warp) * warp; b > 0; b -= warp) {
        int n = 0;
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(&n, (const void *)func, b,
                                                                     (size_t)dynamicSMem(b), flags);
        if (err != cudaSuccess) return err;
        if (n * b > bestThreads) {
            bestThreads = n * b;
            bestBlock = b;
            bestBlocks = n;
        }
        if (bestThreads == maxPerSm) break;
    }
    if (bestBlock == 0) { /* limit below one warp: use it as is */
        bestBlock = limit > 0 ? limit : 1;
        bestBlocks = 1;
    }
    *blockSize = bestBlock;
    *minGridSize = bestBlocks * sms;
    return cudaSuccess;
}
namespace __cumetal_occupancy {
struct ConstantSMem {
    size_t n;
    size_t operator()(int) const { return n; }
};
}  // namespace __cumetal_occupancy
template <class UnaryFunction, class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeVariableSMem(int *minGridSize, int *blockSize, T func,
                                                                         UnaryFunction dynamicSMem,
                                                                         int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(minGridSize, blockSize, func, dynamicSMem,
                                                                   blockSizeLimit, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, T func,
                                                             size_t dynamicSMemSize = 0, int blockSizeLimit = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, __cumetal_occupancy::ConstantSMem{dynamicSMemSize}, blockSizeLimit, 0);
}
template <class T>
static inline cudaError_t cudaOccupancyMaxPotentialBlockSizeWithFlags(int *minGridSize, int *blockSize, T func,
                                                                      size_t dynamicSMemSize = 0,
                                                                      int blockSizeLimit = 0,
                                                                      unsigned int flags = 0) {
    return cudaOccupancyMaxPotentialBlockSizeVariableSMemWithFlags(
        minGridSize, blockSize, func, __cumetal_occupancy::ConstantSMem{dynamicSMemSize}, blockSizeLimit, flags);
}

#endif /* CUMETAL_HOST_RUNTIME_TEMPLATES_H */
