/* CuMetal clean-room CUDA headers: cudaTypedefs.h — PFN_<name> function-pointer types for Driver API
 * entry points obtained with cuGetProcAddress / cudaGetDriverEntryPoint (CUDA Driver API
 * documentation, "Driver Entry Point Access"). Only the entry points CuMetal's cuda.h declares that
 * such code commonly fetches; CUB 3 includes this header for the tensor-map encoder. */
#ifndef CUMETAL_CUDA_TYPEDEFS_H
#define CUMETAL_CUDA_TYPEDEFS_H
#include "cuda.h"

#define CUMETAL_PFN(name, ver) typedef decltype(&name) PFN_##name##_v##ver; typedef PFN_##name##_v##ver PFN_##name;
#if defined(__cplusplus)
CUMETAL_PFN(cuGetProcAddress, 12000)
CUMETAL_PFN(cuInit, 2000)
CUMETAL_PFN(cuDriverGetVersion, 2020)
CUMETAL_PFN(cuDeviceGet, 2000)
CUMETAL_PFN(cuDeviceGetAttribute, 2000)
CUMETAL_PFN(cuLaunchKernel, 4000)
CUMETAL_PFN(cuLaunchKernelEx, 11060)
CUMETAL_PFN(cuTensorMapEncodeTiled, 12000)
#endif
#undef CUMETAL_PFN

#endif /* CUMETAL_CUDA_TYPEDEFS_H */
