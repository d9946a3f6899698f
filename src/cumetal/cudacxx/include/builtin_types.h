/* CuMetal clean-room CUDA headers: vector types (and, when present, the runtime's driver types). */
#ifndef CUMETAL_BUILTIN_TYPES_H
#define CUMETAL_BUILTIN_TYPES_H
#include "vector_types.h"
#if __has_include("driver_types.h")
#include "driver_types.h"
#endif
#endif
