/* CuMetal clean-room CUDA headers: surface_types.h — surface objects use the resource description
 * of texture_types.h; cudaSurfaceObject_t and cudaSurfaceBoundaryMode come from driver_types.h. */
#ifndef CUMETAL_SURFACE_TYPES_H
#define CUMETAL_SURFACE_TYPES_H
#define __SURFACE_TYPES_H__
#include "texture_types.h"
#endif /* CUMETAL_SURFACE_TYPES_H */
