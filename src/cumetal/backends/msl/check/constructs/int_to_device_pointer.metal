// expect: compile
// min-msl: 3.0
// run: pointer
// The addressing mechanism of CuMetal's ABI: a 64-bit integer (a gpuAddress plus an offset) cast
// to a device pointer. The runner binds the address of a buffer holding 0x12345678 in params[0]
// and expects out[0] == 0x12345678 and out[1] == 0x9abcdef0 (the next word, through arithmetic).
#include <metal_stdlib>
using namespace metal;

kernel void construct_pointer(device ulong* params [[buffer(0)]], device uint* out [[buffer(1)]]) {
  device uint* p = (device uint*)(params[0]);
  out[0] = p[0];
  device uint* q = (device uint*)(params[0] + 4ul);
  out[1] = q[0];
}
