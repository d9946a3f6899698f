/* CuMetal clean-room CUDA headers: library_types.h — cudaDataType and libraryPropertyType, which
 * are generated into cumetal/host_runtime_types.h from CuMetal's Python tables. */
#ifndef CUMETAL_LIBRARY_TYPES_H
#define CUMETAL_LIBRARY_TYPES_H
#include "cumetal/host_runtime_types.h"
#endif
