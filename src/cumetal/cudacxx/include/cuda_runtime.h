/* CuMetal clean-room CUDA headers: cuda_runtime.h, force-included into every CUDA translation
 * unit like nvcc does (CUDA Runtime API documentation; CUDA C++ Programming Guide).
 * Include order (docs/cuda-headers.md): qualifiers and built-in variables, vector types, the host
 * runtime API, device intrinsics, device math. cuda_fp16.h / cuda_bf16.h are not included (nvcc
 * does not include them either). */
#ifndef CUMETAL_CUDA_RUNTIME_H
#define CUMETAL_CUDA_RUNTIME_H
#define __CUDA_RUNTIME_H__ /* NVIDIA's guard name: helper headers test it */

#include "cumetal/qualifiers.h"
#include "cumetal/libcxx_compat.h" /* C++ only: std::iterator_traits<void*> as C++20 libc++ has it */
#include "vector_types.h"
#include "vector_functions.h"
#if defined(__CUDA__) /* clang CUDA mode; a plain C++ host compile (.cpp) gets the host API only */
#include "cumetal/builtin_vars.h"
#endif

#if __has_include("cuda_runtime_api.h")
#include "cuda_runtime_api.h"
#else
#include "cumetal/runtime_api_fallback.h"
#endif

#if defined(__CUDA__)
#include "cumetal/device_stdlib.h"
#include "cumetal/device_functions.h"
#include "cuda_device_runtime_api.h" /* device-side runtime calls (needs the device heap's malloc) */
#include "cumetal/textures.h"

#if __has_include("cumetal/math.h")
#include "cumetal/math.h"
#endif
#elif defined(__cplusplus) && __has_include("cumetal/math_minmax.h")
/* plain C++ (a .cpp file): the C math library and CUDA's host min/max overloads, as nvcc's
 * cuda_runtime.h gives them (programs call sqrt after including only cuda_runtime.h) */
#include <math.h>
#include "cumetal/math_minmax.h"
#endif /* __CUDA__ */

#endif /* CUMETAL_CUDA_RUNTIME_H */
