#include <cstdio>
#include "shapes.h"
__global__ void areas(float *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    Shape *s = make_shape(i % 2, float(i));
    out[i] = twice(s->area());
    delete s;
}
int main() {
    const int n = 64;
    float *out = nullptr;
    cudaMallocManaged(&out, n * sizeof(float));
    areas<<<2, 32>>>(out, n);
    cudaError_t err = cudaDeviceSynchronize();
    int bad = 0;
    for (int i = 0; i < n; ++i) {
        float want = i % 2 == 0 ? 2.0f * i * i : float(i) * i;  // 2 * (0.5 * i * i) for triangles
        if (out[i] != want) ++bad;
    }
    printf("rdc-device-only: %s (%s, %d wrong)\n", bad == 0 && err == cudaSuccess ? "PASS" : "FAIL",
           cudaGetErrorString(err), bad);
    cudaFree(out);
    return bad != 0;
}
