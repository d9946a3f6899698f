/* CuMetal clean-room CUDA headers: device intrinsics (CUDA C++ Programming Guide, "C++ Language
 * Extensions"; CUDA Math API "Integer Intrinsics", "Type Casting Intrinsics"). */
#ifndef CUMETAL_DEVICE_FUNCTIONS_H
#define CUMETAL_DEVICE_FUNCTIONS_H
#include "cumetal/intrin_sync.h"
#include "cumetal/intrin_integer.h"
#include "cumetal/intrin_convert.h"
#include "cumetal/intrin_memory.h"
#include "cumetal/intrin_warp.h"
#include "cumetal/intrin_atomic.h"
#include "cumetal/intrin_nv_atomic.h"
#include "cumetal/intrin_misc.h"
#endif
