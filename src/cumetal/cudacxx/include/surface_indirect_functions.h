/* CuMetal clean-room CUDA headers: surface_indirect_functions.h; texture and surface functions are in cumetal/textures.h
 * (included by cuda_runtime.h; deferred to v2 by CuMetal's pipeline). */
#ifndef CUMETAL_FWD_SURFACE_INDIRECT_FUNCTIONS_H
#define CUMETAL_FWD_SURFACE_INDIRECT_FUNCTIONS_H
#include "cuda_runtime.h"
#endif
