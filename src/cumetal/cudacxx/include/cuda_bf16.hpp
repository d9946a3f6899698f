/* CuMetal clean-room CUDA headers: cuda_bf16.hpp (definitions live in cuda_bf16.h). */
#include "cuda_bf16.h"
