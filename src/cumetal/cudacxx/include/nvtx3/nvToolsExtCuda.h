/* CuMetal clean-room CUDA headers: nvtx3/nvToolsExtCuda.h — NVTX's naming of CUDA Driver API objects
 * (devices, contexts, streams, events), written from the NVTX documentation; no-ops, as NVTX is when
 * no tool is loaded. */
#ifndef CUMETAL_NVTOOLSEXT_CUDA_H
#define CUMETAL_NVTOOLSEXT_CUDA_H

#include <wchar.h>

#include "cuda.h"
#include "nvtx3/nvToolsExt.h"

static inline void nvtxNameCuDeviceA(CUdevice device, const char *name) { (void)device; (void)name; }
static inline void nvtxNameCuDeviceW(CUdevice device, const wchar_t *name) { (void)device; (void)name; }
static inline void nvtxNameCuContextA(CUcontext context, const char *name) { (void)context; (void)name; }
static inline void nvtxNameCuContextW(CUcontext context, const wchar_t *name) { (void)context; (void)name; }
static inline void nvtxNameCuStreamA(CUstream stream, const char *name) { (void)stream; (void)name; }
static inline void nvtxNameCuStreamW(CUstream stream, const wchar_t *name) { (void)stream; (void)name; }
static inline void nvtxNameCuEventA(CUevent event, const char *name) { (void)event; (void)name; }
static inline void nvtxNameCuEventW(CUevent event, const wchar_t *name) { (void)event; (void)name; }

#endif /* CUMETAL_NVTOOLSEXT_CUDA_H */
