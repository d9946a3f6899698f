/* CuMetal clean-room CUDA headers: common_functions.h, a name CUDA code includes directly; the device
 * intrinsics it names are part of cuda_runtime.h (cumetal/device_functions.h). */
#ifndef CUMETAL_FWD_COMMON_FUNCTIONS_H
#define CUMETAL_FWD_COMMON_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
