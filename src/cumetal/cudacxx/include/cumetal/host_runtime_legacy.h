/* CuMetal clean-room CUDA headers: the cudaThread* calls CUDA 4.0 renamed to cudaDevice* and CUDA 13
 * removed. Older programs (Rodinia, many textbooks) still call them; libcumetal exports them, each
 * doing what its cudaDevice* successor does, and they warn as deprecated, as CUDA 12's did. */
#ifndef CUMETAL_HOST_RUNTIME_LEGACY_H
#define CUMETAL_HOST_RUNTIME_LEGACY_H

#ifdef __cplusplus
extern "C" {
#endif

#define __CM_THREAD_API(successor) __attribute__((deprecated("removed in CUDA 13: use " successor)))

__CM_THREAD_API("cudaDeviceReset") cudaError_t cudaThreadExit(void);
__CM_THREAD_API("cudaDeviceSynchronize") cudaError_t cudaThreadSynchronize(void);
__CM_THREAD_API("cudaDeviceSetLimit") cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value);
__CM_THREAD_API("cudaDeviceGetLimit") cudaError_t cudaThreadGetLimit(size_t *pValue, enum cudaLimit limit);
__CM_THREAD_API("cudaDeviceGetCacheConfig") cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig);
__CM_THREAD_API("cudaDeviceSetCacheConfig") cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig);

#undef __CM_THREAD_API

#ifdef __cplusplus
}
#endif

#endif
