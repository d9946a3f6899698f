/* CuMetal clean-room CUDA headers: compiler identification and version macros.
 * Written from the CUDA C++ Programming Guide ("Compilation with NVCC", "C++ Language Support").
 * clang in CUDA mode defines __CUDA__ (and __CUDA_ARCH__ while compiling for the device); the
 * macros that nvcc defines and CUDA code tests for are defined here. */
#ifndef CUMETAL_CONFIG_H
#define CUMETAL_CONFIG_H

#ifndef __CUDACC__
#define __CUDACC__ 1
#endif
/* The CUDA release these headers follow: the one cudaRuntimeGetVersion reports (generated). */
#include "host_version.h"
#ifndef __CUDACC_VER_MAJOR__
#define __CUDACC_VER_MAJOR__ CUMETAL_CUDA_VERSION_MAJOR
#define __CUDACC_VER_MINOR__ CUMETAL_CUDA_VERSION_MINOR
#define __CUDACC_VER_BUILD__ 0
#endif
/* clang-cuda code (CCCL's compiler detection among it) reads the CUDA version from CUDA_VERSION,
 * which clang's own wrapper header gets from cuda.h; the same value cuda.h defines. */
#if defined(__clang__) && !defined(CUDA_VERSION)
#define CUDA_VERSION CUMETAL_CUDA_DRIVER_VERSION
#endif
/* Programmatic dependent launch (sm_90 launch attribute) has no Apple counterpart; CCCL's switch
 * for it makes Thrust/CUB launch with <<<>>> instead of cudaLaunchKernelEx + attributes. */
#ifndef CCCL_DISABLE_PDL
#define CCCL_DISABLE_PDL 1
#endif
#ifndef __CUMETAL__
#define __CUMETAL__ 1
#endif
/* clang accepts relaxed constexpr and extended lambdas natively (nvcc's flags for them). */
#ifndef __CUDACC_RELAXED_CONSTEXPR__
#define __CUDACC_RELAXED_CONSTEXPR__ 1
#endif
#ifndef __CUDACC_EXTENDED_LAMBDA__
#define __CUDACC_EXTENDED_LAMBDA__ 1
#endif

/* Device-side code paths: CUMETAL_DEVICE is 1 only in the device compilation. */
#if defined(__CUDA_ARCH__)
#define CUMETAL_DEVICE 1
#else
#define CUMETAL_DEVICE 0
#endif

#if __cplusplus >= 201402L
#define CUMETAL_CXX14_CONSTEXPR constexpr
#else
#define CUMETAL_CXX14_CONSTEXPR
#endif

#endif /* CUMETAL_CONFIG_H */
