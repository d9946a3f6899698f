/* CuMetal clean-room CUDA headers: the minimum of the host runtime API that a <<<...>>> launch
 * needs, used only while the full cuda_runtime_api.h is absent. */
#ifndef CUMETAL_RUNTIME_API_FALLBACK_H
#define CUMETAL_RUNTIME_API_FALLBACK_H
#include <stddef.h>
#include "vector_types.h"
typedef int cudaError_t;
typedef struct CUstream_st *cudaStream_t;
extern "C" {
unsigned __cudaPushCallConfiguration(dim3 gridDim, dim3 blockDim, size_t sharedMem = 0, void *stream = 0);
cudaError_t cudaLaunchKernel(const void *func, dim3 gridDim, dim3 blockDim, void **args, size_t sharedMem,
                             cudaStream_t stream);
}
#endif
