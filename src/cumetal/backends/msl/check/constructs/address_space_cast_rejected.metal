// expect: fail
// An explicit cast of a threadgroup pointer to a device pointer. CuMetal never emits one; the clang
// MSL checker refuses it (tools/msl_check rewrites C-style casts to address-space pointers as
// reinterpret_cast) on the belief that Metal does too. If Metal compiles this, the checker is too
// strict and the report says so.
#include <metal_stdlib>
using namespace metal;

kernel void construct_address_space_cast(device uint* out [[buffer(1)]],
                                         threadgroup uchar* scratch [[threadgroup(0)]]) {
  device uint* p = (device uint*)scratch;
  out[0] = p[0];
}
