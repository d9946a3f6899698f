// A new user's tour of the CUDA dialect (compiled with -std=c++20): an extended __device__ lambda
// handed from host code to a template kernel, __managed__ with atomics, __grid_constant__, inline PTX
// with "=r"/"+r"/"l" constraints and a memory clobber, new[]/delete[] in device code, constexpr,
// C++20 concepts/std::span/std::bit_cast/std::popcount, __launch_bounds__ and __restrict__.
#include <bit>
#include <concepts>
#include <cstdio>
#include <span>

__managed__ int launches_seen = 0;

struct Params {
    float scale;
    int n;
    int offsets[4];
};

template <typename F>
__global__ void __launch_bounds__(64) apply(float *__restrict__ x, int n, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = f(x[i], i);
    if (i == 0) atomicAdd(&launches_seen, 1);
}

__global__ void grid_constant(float *out, const __grid_constant__ Params p) {
    int i = threadIdx.x;
    if (i < p.n) out[i] = p.scale * i + p.offsets[i % 4];
    if (i == 0) atomicAdd(&launches_seen, 1);
}

__device__ unsigned mad_asm(unsigned a, unsigned b, unsigned acc) {
    asm("mad.lo.u32 %0, %1, %2, %0;" : "+r"(acc) : "r"(a), "r"(b));
    return acc;
}
__device__ void store_asm(unsigned *p, unsigned v) { asm volatile("st.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory"); }

__global__ void inline_asm(unsigned *out) { store_asm(out + threadIdx.x, mad_asm(threadIdx.x, threadIdx.x + 3, 7)); }

__global__ void heap_arrays(long long *out) {
    int t = threadIdx.x;
    long long *a = new long long[t + 1];
    for (int k = 0; k <= t; ++k) a[k] = (long long)k * k;
    long long s = 0;
    for (int k = 0; k <= t; ++k) s += a[k];
    delete[] a;
    out[t] = s;
}

constexpr int cube(int v) { return v * v * v; }
template <std::integral T> __device__ T plus(T a, T b) { return a + b; }

__global__ void cxx20(int *out) {
    int arr[5] = {1, 2, 3, 4, 5};
    std::span<int> s(arr);
    int sum = 0;
    for (int v : s.subspan(1, 3)) sum += v;  // 2 + 3 + 4
    constexpr int c = cube(3);
    out[0] = plus(sum, c);
    out[1] = std::popcount(0xF0F0u);
    out[2] = (int)(std::bit_cast<unsigned>(2.0f) >> 23);
    auto [a, b] = std::pair<int, int>{6, 7};
    out[3] = a * b;
}

int main() {
    const int n = 100;
    float *x = nullptr;
    cudaMallocManaged(&x, n * sizeof(float));
    for (int i = 0; i < n; ++i) x[i] = float(i);
    float k = 3.0f;
    apply<<<(n + 63) / 64, 64>>>(x, n, [=] __device__(float v, int i) { return v * k + float(i % 3); });
    cudaDeviceSynchronize();
    printf("lambda %g %g %g\n", x[0], x[1], x[99]);
    Params p{0.5f, 16, {10, 20, 30, 40}};
    grid_constant<<<1, 32>>>(x, p);
    cudaDeviceSynchronize();
    printf("grid_constant %g %g managed %d\n", x[5], x[15], launches_seen);
    unsigned *u = nullptr;
    cudaMallocManaged(&u, 32 * sizeof(unsigned));
    inline_asm<<<1, 32>>>(u);
    cudaDeviceSynchronize();
    printf("asm %u %u\n", u[0], u[31]);
    long long *h = nullptr;
    cudaMallocManaged(&h, 32 * sizeof(long long));
    heap_arrays<<<1, 32>>>(h);
    cudaError_t e = cudaDeviceSynchronize();
    printf("new[] %lld %lld %s\n", h[0], h[31], cudaGetErrorName(e));
    int *o = nullptr;
    cudaMallocManaged(&o, 4 * sizeof(int));
    cxx20<<<1, 1>>>(o);
    cudaDeviceSynchronize();
    printf("c++20 %d %d %d %d\n", o[0], o[1], o[2], o[3]);
    return 0;
}
