// Lambdas: device lambdas with captures, generic lambdas, lambdas passed from host code to
// template kernels (__device__ lambdas, nvcc's --extended-lambda), recursion through a functor,
// lambdas returning structs, immediately invoked lambdas, mutable lambdas.
#include <cstdio>

template <typename F>
__global__ void apply(int n, float *out, F f) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = f(i);
}

template <typename F>
__global__ void for_each_pair(int n, int *out, F f) {
    int i = threadIdx.x;
    if (i < n) out[i] = f(i, n - 1 - i);
}

struct MinMax { int lo, hi; };

__global__ void inside(int *out) {
    int base = 10;
    auto add = [base](int x) { return x + base; };
    auto scale = [&base](int x) { base += 1; return x * base; };
    auto generic = [](auto a, auto b) { return a * b; };
    int counter = 0;
    auto bump = [counter]() mutable { return ++counter; };
    auto mm = [](const int *v, int n) {
        MinMax r{v[0], v[0]};
        for (int i = 1; i < n; ++i) { r.lo = v[i] < r.lo ? v[i] : r.lo; r.hi = v[i] > r.hi ? v[i] : r.hi; }
        return r;
    };
    int data[5] = {4, -7, 12, 0, 3};
    MinMax r = mm(data, 5);
    out[0] = add(threadIdx.x);
    out[1] = scale(3);
    out[2] = scale(3);
    out[3] = (int)generic(2.5, 4) + generic(3, 5);
    bump(); bump();
    out[4] = bump();
    out[5] = counter;
    out[6] = r.lo;
    out[7] = r.hi;
    out[8] = [](int x) { return x * x; }(9);
    auto fact = [](auto self, int k) -> int { return k <= 1 ? 1 : k * self(self, k - 1); };
    out[9] = fact(fact, 10);
}

int main() {
    const int n = 64;
    float *d_out, h_out[n];
    cudaMalloc(&d_out, sizeof h_out);
    float a = 1.5f, b = -0.25f;
    apply<<<2, 32>>>(n, d_out, [=] __device__(int i) { return a * i + b; });
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    printf("axpb %g %g %g\n", h_out[0], h_out[1], h_out[63]);

    int *d_pairs, h_pairs[n];
    cudaMalloc(&d_pairs, sizeof h_pairs);
    int k = 5;
    for_each_pair<<<1, n>>>(n, d_pairs, [k] __host__ __device__(int x, int y) { return x * k - y; });
    cudaMemcpy(h_pairs, d_pairs, sizeof h_pairs, cudaMemcpyDeviceToHost);
    printf("pairs %d %d %d\n", h_pairs[0], h_pairs[31], h_pairs[63]);

    int *d_in, h_in[10];
    cudaMalloc(&d_in, sizeof h_in);
    inside<<<1, 1>>>(d_in);
    cudaMemcpy(h_in, d_in, sizeof h_in, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 10; ++i) printf("inside[%d] = %d\n", i, h_in[i]);
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
