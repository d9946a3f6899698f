/* CuMetal clean-room CUDA headers: nvToolsExt.h — the pre-v3 include path of NVTX; the API is in
 * nvtx3/nvToolsExt.h (no-ops: CuMetal has no profiler to report to). */
#include "nvtx3/nvToolsExt.h"
