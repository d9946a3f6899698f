/* CuMetal clean-room CUDA headers: math_functions.h, an old name for the CUDA Math API
 * declarations; CuMetal's device math comes with cuda_runtime.h (cumetal/math.h). */
#ifndef CUMETAL_FWD_MATH_FUNCTIONS_H
#define CUMETAL_FWD_MATH_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
