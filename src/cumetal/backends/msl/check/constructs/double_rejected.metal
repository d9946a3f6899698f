// expect: fail
// min-msl: 3.0
// Apple GPUs have no double precision: Metal must reject this (CuMetal emulates f64 on both library
// paths, passes/legalize/fp64, so no double reaches Metal). If it compiles, please say so.
#include <metal_stdlib>
using namespace metal;

kernel void construct_double(device float* out [[buffer(1)]]) {
  double x = double(out[0]) * 3.0;
  out[0] = float(x);
}
