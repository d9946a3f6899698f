// Old-style CUDA that nvcc still builds: cudaThread* calls (removed in CUDA 13: CuMetal keeps them,
// deprecated), launches spelled `k << < g, b >> > (...)`, a C file in pre-C99 style (helpers.c).
#include <cstdio>
#include <vector>
#include "../check.h"

extern "C" int checksum(int *v, int n);

template <typename T> struct Box { T v; };
template <typename T> bool operator<(Box<T> a, Box<T> b) { return a.v < b.v; }

__global__ void scale(int *v, int n, int k) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * k + (i >> 2);
}

int main() {
    const int n = 1000;
    std::vector<std::vector<std::vector<int>> > nested(1);  // `>> >` closing templates stays as it is
    int h[n], *d = nullptr;
    for (int i = 0; i < n; ++i) h[i] = i;
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    CHECK_CUDA(cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice));
    scale << < (n + 127) / 128, 128 >> > (d, n, 3);
    scale<< <(n + 255) >> 8, 256>> >(d, n, 2);
    CHECK_CUDA(cudaThreadSynchronize());
    size_t stack = 0;
    CHECK_CUDA(cudaThreadSetLimit(cudaLimitStackSize, 4096));
    CHECK_CUDA(cudaThreadGetLimit(&stack, cudaLimitStackSize));
    CHECK(stack >= 4096);
    CHECK_CUDA(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    int ok = 1;
    for (int i = 0; i < n; ++i) ok &= h[i] == (i * 3 + (i >> 2)) * 2 + (i >> 2);
    CHECK(ok);
    int sum = 0;
    for (int i = 0; i < n; ++i) sum += h[i];
    CHECK(checksum(h, n) == sum);
    CHECK(Box<int>{1} < Box<int>{2} && nested.size() == 1);
    CHECK_CUDA(cudaThreadExit());
    return finish("old_style");
}
