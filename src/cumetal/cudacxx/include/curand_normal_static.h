/* CuMetal: <curand_normal_static.h> — cuRAND's device API is declared in one header here (curand_kernel.h); this name
 * exists for programs that include the part they use directly. */
#pragma once
#include "curand_kernel.h"
