/* CuMetal clean-room CUDA headers: nvtx3/nvToolsExtCudaRt.h — NVTX's naming of CUDA Runtime objects
 * (devices, streams, events), written from the NVTX documentation. A profiler would show the names;
 * CuMetal has none attached, so each call does nothing, as NVTX does when no tool is loaded. */
#ifndef CUMETAL_NVTOOLSEXT_CUDART_H
#define CUMETAL_NVTOOLSEXT_CUDART_H

#include <wchar.h>

#include "cuda_runtime_api.h"
#include "nvtx3/nvToolsExt.h"

static inline void nvtxNameCudaDeviceA(int device, const char *name) { (void)device; (void)name; }
static inline void nvtxNameCudaDeviceW(int device, const wchar_t *name) { (void)device; (void)name; }
static inline void nvtxNameCudaStreamA(cudaStream_t stream, const char *name) { (void)stream; (void)name; }
static inline void nvtxNameCudaStreamW(cudaStream_t stream, const wchar_t *name) { (void)stream; (void)name; }
static inline void nvtxNameCudaEventA(cudaEvent_t event, const char *name) { (void)event; (void)name; }
static inline void nvtxNameCudaEventW(cudaEvent_t event, const wchar_t *name) { (void)event; (void)name; }

#endif /* CUMETAL_NVTOOLSEXT_CUDART_H */
