// Errors: a kernel fault (out-of-bounds store) is reported at the next synchronising call and is
// sticky, as on CUDA: later calls return it too and cudaGetLastError does not clear it.
#include "check.h"

__global__ void bad_store(int *p) { p[threadIdx.x + (1 << 28)] = 1; }

int main() {
    int *d = NULL;
    CHECK_CUDA(cudaMalloc(&d, 64));
    bad_store<<<1, 1>>>(d);
    CHECK(cudaGetLastError() == cudaSuccess);  // the launch itself is valid
    cudaError_t e = cudaDeviceSynchronize();
    CHECK(e == cudaErrorIllegalAddress);
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress);
    CHECK(cudaGetLastError() == cudaErrorIllegalAddress);  // sticky: not cleared
    int *x = NULL;
    CHECK(cudaMalloc(&x, 16) == cudaErrorIllegalAddress);
    CHECK(cudaMemset(d, 0, 64) == cudaErrorIllegalAddress);
    // cudaDeviceReset clears it and the device works again
    CHECK_CUDA(cudaDeviceReset());
    CHECK_CUDA(cudaMalloc(&x, 16));
    CHECK_CUDA(cudaMemset(x, 0, 16));
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(cudaGetLastError() == cudaSuccess);
    return finish("sticky_error");
}
