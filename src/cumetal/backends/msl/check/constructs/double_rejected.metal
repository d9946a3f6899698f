// expect: fail
// min-msl: 3.0
// Apple GPUs have no double precision: Metal must reject this (CuMetal emulates f64 with float
// pairs on the MSL path and refuses f64 kernels on the .metallib path). If it compiles, please say so.
#include <metal_stdlib>
using namespace metal;

kernel void construct_double(device float* out [[buffer(1)]]) {
  double x = double(out[0]) * 3.0;
  out[0] = float(x);
}
