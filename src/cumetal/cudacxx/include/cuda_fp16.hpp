/* CuMetal clean-room CUDA headers: cuda_fp16.hpp (definitions live in cuda_fp16.h). */
#include "cuda_fp16.h"
