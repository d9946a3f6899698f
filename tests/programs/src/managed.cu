// __managed__ variables in a clang-built program: host code and kernels use one storage (no
// cudaMemcpy*Symbol), as with CUDA's managed memory. Expected values are computed here.
#include "check.h"

#define N 100
__managed__ int counter;
__managed__ float arr[N];
__managed__ double seeded = 2.5;   // an initialised one: the host's initial value reaches kernels
__device__ int plain_device;       // an ordinary __device__ variable stays a separate copy

__global__ void bump(int times) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < N) arr[i] += 1.0f + (float)i;
    if (i == 0) {
        counter += times;
        seeded *= 2.0;
        plain_device = 7;
    }
}

int main() {
    CHECK(seeded == 2.5);
    counter = 40;
    for (int i = 0; i < N; i++) arr[i] = 0.5f * (float)i;
    bump<<<(N + 31) / 32, 32>>>(2);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(counter == 42);
    int bad = 0;
    for (int i = 0; i < N; i++) bad += arr[i] != 0.5f * (float)i + 1.0f + (float)i;
    CHECK(bad == 0);
    CHECK(seeded == 5.0);

    // a second round starts from what the host wrote in between
    counter = 100;
    arr[3] = -4.0f;
    bump<<<(N + 31) / 32, 32>>>(5);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(counter == 105);
    CHECK(arr[3] == -4.0f + 1.0f + 3.0f);
    CHECK(seeded == 10.0);

    // the symbol API sees the same storage: its address is the variable's own
    int *dev_counter = nullptr;
    CHECK_CUDA(cudaGetSymbolAddress((void **)&dev_counter, counter));
    CHECK(dev_counter == &counter);
    int from_symbol = 0;
    CHECK_CUDA(cudaMemcpyFromSymbol(&from_symbol, counter, sizeof(int)));
    CHECK(from_symbol == 105);
    const int five = 5;
    CHECK_CUDA(cudaMemcpyToSymbol(counter, &five, sizeof(int)));
    CHECK(counter == 5);
    cudaPointerAttributes attrs;
    CHECK_CUDA(cudaPointerGetAttributes(&attrs, &counter));
    CHECK(attrs.devicePointer == &counter);

    // plain __device__ variables keep CUDA's separate device copy
    int pd = 0;
    CHECK_CUDA(cudaMemcpyFromSymbol(&pd, plain_device, sizeof(int)));
    CHECK(pd == 7 && plain_device == 0);
    return finish("managed");
}
