/* CuMetal clean-room CUDA headers: the pre-v3 include path of NVTX's Driver API naming. */
#include "nvtx3/nvToolsExtCuda.h"
