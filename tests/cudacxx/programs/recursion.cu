// Recursive device functions: naive Fibonacci, Ackermann, a recursive quicksort on a per-thread
// array, a recursive tree depth over an implicit heap, and recursion through a template.
#include <cstdio>

__device__ __noinline__ int fib(int n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

__device__ __noinline__ int ackermann(int m, int n) {
    if (m == 0) return n + 1;
    if (n == 0) return ackermann(m - 1, 1);
    return ackermann(m - 1, ackermann(m, n - 1));
}

__device__ __noinline__ void quicksort(int *a, int lo, int hi) {
    if (lo >= hi) return;
    int p = a[(lo + hi) / 2], i = lo, j = hi;
    while (i <= j) {
        while (a[i] < p) ++i;
        while (a[j] > p) --j;
        if (i <= j) { int t = a[i]; a[i] = a[j]; a[j] = t; ++i; --j; }
    }
    quicksort(a, lo, j);
    quicksort(a, i, hi);
}

__device__ __noinline__ int depth(const int *present, int node, int n) {
    if (node >= n || !present[node]) return 0;
    int l = depth(present, 2 * node + 1, n), r = depth(present, 2 * node + 2, n);
    return 1 + (l > r ? l : r);
}

template <int N>
struct Sum { __device__ static long long of(long long x) { return x + Sum<N - 1>::of(x * 3 % 1000003); } };
template <>
struct Sum<0> { __device__ static long long of(long long) { return 0; } };

__global__ void recurse(int *out, const int *present, int n) {
    int t = threadIdx.x;
    int a[24];
    unsigned s = 17u + t;
    for (int i = 0; i < 24; ++i) { s = s * 1664525u + 1013904223u; a[i] = (int)(s >> 20) - 2048; }
    quicksort(a, 0, 23);
    int sorted = 1;
    for (int i = 1; i < 24; ++i) sorted &= a[i - 1] <= a[i];
    out[t * 6 + 0] = fib(10 + t % 8);
    out[t * 6 + 1] = ackermann(2, t % 6);
    out[t * 6 + 2] = sorted;
    out[t * 6 + 3] = a[0] * 10000 + a[23];
    out[t * 6 + 4] = depth(present, t % 3, n);
    out[t * 6 + 5] = (int)(Sum<40>::of(t + 1) % 1000000);
}

int main() {
    const int n = 63, T = 16;
    int present[n];
    for (int i = 0; i < n; ++i) present[i] = (i * 37 % 11) != 3;
    int *dp, *d_out, out[T * 6];
    cudaMalloc(&dp, sizeof present); cudaMalloc(&d_out, sizeof out);
    cudaMemcpy(dp, present, sizeof present, cudaMemcpyHostToDevice);
    cudaDeviceSetLimit(cudaLimitStackSize, 16384);
    recurse<<<1, T>>>(d_out, dp, n);
    cudaError_t e = cudaDeviceSynchronize();
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    for (int t = 0; t < T; ++t) printf("t%-2d %d %d %d %d %d %d\n", t, out[t * 6], out[t * 6 + 1], out[t * 6 + 2], out[t * 6 + 3], out[t * 6 + 4], out[t * 6 + 5]);
    printf("status %s\n", cudaGetErrorString(e));
    return 0;
}
