/* CuMetal clean-room CUDA headers: sm_32_intrinsics.h, a name CUDA code includes directly; the device
 * intrinsics it names are part of cuda_runtime.h (cumetal/device_functions.h). */
#ifndef CUMETAL_FWD_SM_32_INTRINSICS_H
#define CUMETAL_FWD_SM_32_INTRINSICS_H
#include "cuda_runtime.h"
#endif
