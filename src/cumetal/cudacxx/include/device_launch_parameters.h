/* CuMetal clean-room CUDA headers: the built-in variables (threadIdx, blockIdx, blockDim,
 * gridDim, warpSize); cuda_runtime.h includes this already. */
#ifndef CUMETAL_DEVICE_LAUNCH_PARAMETERS_H
#define CUMETAL_DEVICE_LAUNCH_PARAMETERS_H
#include "cumetal/builtin_vars.h"
#endif
