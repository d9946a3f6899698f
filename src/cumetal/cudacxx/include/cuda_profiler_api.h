/* CuMetal clean-room CUDA headers: cuda_profiler_api.h (CUDA Runtime API, "Profiler Control").
 * CuMetal has no profiler to control: both calls succeed and do nothing. */
#ifndef CUMETAL_CUDA_PROFILER_API_H
#define CUMETAL_CUDA_PROFILER_API_H
#include "driver_types.h"
#if defined(__cplusplus)
extern "C" {
#endif
cudaError_t cudaProfilerStart(void);
cudaError_t cudaProfilerStop(void);
#if defined(__cplusplus)
}
#endif
#endif
