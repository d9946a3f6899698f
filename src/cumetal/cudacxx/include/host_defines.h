/* CuMetal clean-room CUDA headers: execution-space specifiers and attributes. */
#ifndef CUMETAL_HOST_DEFINES_H
#define CUMETAL_HOST_DEFINES_H
#include "cumetal/qualifiers.h"
#endif
