// C++17 and the standard library in device code: std::array, std::pair/tuple with structured
// bindings, std::numeric_limits, <algorithm>'s constexpr min/max, std::optional-like code,
// cuda::std::, namespaces with static device variables, __launch_bounds__, streams and events.
#include <algorithm>
#include <array>
#include <climits>
#include <cstdio>
#include <limits>
#include <tuple>
#include <utility>
#include <cuda/std/cstdint>
#include <cuda/std/limits>
#include <cuda/std/type_traits>

namespace app {
static __device__ int hits;
__constant__ int weights[4] = {3, 1, 4, 1};
namespace detail {
static __device__ unsigned long long sum;
}
}  // namespace app

template <typename T>
__device__ constexpr T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

__device__ std::tuple<int, float, long long> split(long long x) {
    return {int(x % 1000), float(x) * 0.5f, x / 1000};
}

__global__ void __launch_bounds__(128, 2) kernel(const int *in, long long *out) {
    std::array<int, 4> a{in[0], in[1], in[2], in[3]};
    int s = 0;
    for (int v : a) s += v;
    auto [lo, half, hi] = split(1234567LL * in[0]);
    std::pair<int, int> p = std::make_pair(a[3], a[0]);
    std::pair<int, int> q(p.second, p.first);
    out[0] = s;
    out[1] = lo;
    out[2] = (long long)(half * 4);
    out[3] = hi;
    out[4] = q.first * 1000 + q.second;
    out[5] = std::numeric_limits<int>::max() - INT_MAX + std::numeric_limits<short>::min();
    out[6] = cuda::std::numeric_limits<unsigned char>::max() + cuda::std::is_same<cuda::std::int32_t, int>::value;
    out[7] = clamp_to(in[1] * 1000, -50, 50);
    out[8] = (std::numeric_limits<float>::infinity() > 1e38f) + 10 * std::numeric_limits<double>::digits;
    atomicAdd(&app::hits, 1);
    atomicAdd(&app::detail::sum, (unsigned long long)app::weights[threadIdx.x % 4]);
    out[9] = std::max({a[0], a[1], a[2], a[3]}) - std::min(a[1], a[2]);
}

__global__ void report(long long *out) { out[10] = app::hits; out[11] = (long long)app::detail::sum; }

int main() {
    int h_in[4] = {7, -2, 19, 5};
    int *d_in; long long *d_out;
    cudaStream_t st; cudaEvent_t e0, e1;
    cudaStreamCreate(&st); cudaEventCreate(&e0); cudaEventCreate(&e1);
    cudaMalloc(&d_in, sizeof h_in); cudaMalloc(&d_out, 12 * sizeof(long long));
    cudaMemcpyAsync(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice, st);
    cudaEventRecord(e0, st);
    kernel<<<2, 128, 0, st>>>(d_in, d_out);
    report<<<1, 1, 0, st>>>(d_out);
    cudaEventRecord(e1, st);
    cudaEventSynchronize(e1);
    float ms = -1;
    cudaEventElapsedTime(&ms, e0, e1);
    long long h[12];
    cudaMemcpy(h, d_out, sizeof h, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 12; ++i) printf("out[%d] = %lld\n", i, h[i]);
    printf("elapsed non-negative %d\n", ms >= 0.0f);
    printf("status %s\n", cudaGetErrorString(cudaStreamSynchronize(st)));
    return 0;
}
