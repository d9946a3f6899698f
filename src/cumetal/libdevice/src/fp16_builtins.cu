// The half and bfloat16 functions of CuMetal's cuda_fp16.h / cuda_bf16.h as external definitions:
// what NVRTC's built-in library gives NVIDIA's own cuda_fp16.h (see cumetal/fp16_linkage.h).
#define __CUMETAL_FP16_BUILTINS__ 1
#include "cuda_runtime.h" /* what every CUDA translation unit gets first (the warp intrinsics the shuffles use) */
#include "cuda_fp16.h"
#include "cuda_bf16.h"
