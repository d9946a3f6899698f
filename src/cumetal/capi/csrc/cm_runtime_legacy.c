/* libcumetal: the cudaThread* calls of cumetal/host_runtime_legacy.h (removed in CUDA 13), each the
 * same as its cudaDevice* successor. */
#define __CUMETAL_NO_RUNTIME_TEMPLATES
#include "cuda_runtime_api.h"

#include "cm_core.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

CM_EXPORT cudaError_t cudaThreadExit(void) { return cudaDeviceReset(); }
CM_EXPORT cudaError_t cudaThreadSynchronize(void) { return cudaDeviceSynchronize(); }
CM_EXPORT cudaError_t cudaThreadSetLimit(enum cudaLimit limit, size_t value) { return cudaDeviceSetLimit(limit, value); }
CM_EXPORT cudaError_t cudaThreadGetLimit(size_t *pValue, enum cudaLimit limit) { return cudaDeviceGetLimit(pValue, limit); }
CM_EXPORT cudaError_t cudaThreadGetCacheConfig(enum cudaFuncCache *pCacheConfig) {
    return cudaDeviceGetCacheConfig(pCacheConfig);
}
CM_EXPORT cudaError_t cudaThreadSetCacheConfig(enum cudaFuncCache cacheConfig) {
    return cudaDeviceSetCacheConfig(cacheConfig);
}
