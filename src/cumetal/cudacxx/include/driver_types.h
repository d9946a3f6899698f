/* CuMetal clean-room CUDA headers: driver_types.h — the Runtime API's types (CUDA Runtime API
 * documentation, "Data types used by CUDA Runtime"). Enumerations, #define constants and struct
 * layouts are generated from CuMetal's Python tables (cumetal/host_runtime_types.h); this file adds
 * the function-pointer types. */
#ifndef CUMETAL_DRIVER_TYPES_H
#define CUMETAL_DRIVER_TYPES_H
#define __DRIVER_TYPES_H__ /* the guard name NVIDIA's header has: programs test it */

#include <stddef.h>
#include "cumetal/host_runtime_types.h"

#ifndef CUDARTAPI
#define CUDARTAPI
#endif
#ifndef CUDART_CB
#define CUDART_CB
#endif

#if defined(__cplusplus)
extern "C" {
#endif
typedef void(CUDART_CB *cudaStreamCallback_t)(cudaStream_t stream, cudaError_t status, void *userData);
typedef void(CUDART_CB *cudaHostFn_t)(void *userData);
#if defined(__cplusplus)
}
#endif

#endif /* CUMETAL_DRIVER_TYPES_H */
