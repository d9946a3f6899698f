/* CuMetal clean-room CUDA headers: the pre-v3 include path of NVTX's CUDA Runtime naming. */
#include "nvtx3/nvToolsExtCudaRt.h"
