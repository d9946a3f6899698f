// A kernel whose assert fails for negative inputs (tests/functional/test_device_assert.py).
#include <cassert>

extern "C" __global__ void checked_copy(const int *in, int *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        int v = in[i];
        assert(v >= 0);
        out[i] = 2 * v;
    }
}
