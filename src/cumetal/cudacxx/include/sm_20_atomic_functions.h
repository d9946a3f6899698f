/* CuMetal clean-room CUDA headers: sm_20_atomic_functions.h, a name CUDA code includes directly; the device
 * intrinsics it names are part of cuda_runtime.h (cumetal/device_functions.h). */
#ifndef CUMETAL_FWD_SM_20_ATOMIC_FUNCTIONS_H
#define CUMETAL_FWD_SM_20_ATOMIC_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
