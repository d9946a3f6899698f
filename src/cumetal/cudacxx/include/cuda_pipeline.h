#include "cuda_pipeline_primitives.h"
