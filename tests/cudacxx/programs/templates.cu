// Templates in device code: kernels templated on types and values, functors, variadic templates,
// fold expressions, if constexpr, CRTP, partial specialisation, SFINAE, constexpr evaluation.
#include <cstdio>
#include <type_traits>

template <typename T, int N>
struct Vec {
    T v[N];
    __host__ __device__ T dot(const Vec &o) const {
        T s = T(0);
        for (int i = 0; i < N; ++i) s += v[i] * o.v[i];
        return s;
    }
};

template <typename Derived>
struct Shape {
    __device__ float area() const { return static_cast<const Derived *>(this)->area_impl(); }
};
struct Square : Shape<Square> {
    float side;
    __device__ float area_impl() const { return side * side; }
};
struct Rect : Shape<Rect> {
    float w, h;
    __device__ float area_impl() const { return w * h; }
};

template <typename... Ts>
__device__ auto sum_all(Ts... xs) { return (xs + ... + 0); }

template <typename T>
__device__ typename std::enable_if<std::is_integral<T>::value, T>::type twice(T x) { return x << 1; }
template <typename T>
__device__ typename std::enable_if<std::is_floating_point<T>::value, T>::type twice(T x) { return x * T(2); }

template <typename T> struct Traits { static constexpr int id = 0; };
template <typename T> struct Traits<T *> { static constexpr int id = 1 + Traits<T>::id; };
template <> struct Traits<double> { static constexpr int id = 42; };

constexpr int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }

template <int N> struct Fib { static constexpr long long value = Fib<N - 1>::value + Fib<N - 2>::value; };
template <> struct Fib<0> { static constexpr long long value = 0; };
template <> struct Fib<1> { static constexpr long long value = 1; };

struct Mul { int k; __device__ int operator()(int x) const { return x * k; } };
struct AddOne { __device__ int operator()(int x) const { return x + 1; } };

template <typename F, typename G>
__global__ void compose(const int *in, int *out, int n, F f, G g) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = g(f(in[i]));
}

template <typename T, int N>
__global__ void dots(const Vec<T, N> *a, const Vec<T, N> *b, T *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = a[i].dot(b[i]);
}

__global__ void misc(long long *out) {
    Square s; s.side = 3.0f;
    Rect r; r.w = 2.0f; r.h = 5.5f;
    out[0] = (long long)(s.area() + r.area());
    out[1] = sum_all(1, 2, 3, 4, 5);
    out[2] = sum_all(1LL << 40, 7);
    out[3] = twice(21);
    out[4] = (long long)twice(2.25);
    out[5] = Traits<int **>::id * 100 + Traits<double>::id;
    constexpr int f10 = fact(10);
    out[6] = f10;
    out[7] = Fib<80>::value;
    if constexpr (sizeof(long) == 8) out[8] = 8; else out[8] = 4;
}

int main() {
    const int n = 100;
    int h_in[n], h_out[n];
    for (int i = 0; i < n; ++i) h_in[i] = i * 7 - 300;
    int *d_in, *d_out;
    cudaMalloc(&d_in, sizeof h_in);
    cudaMalloc(&d_out, sizeof h_out);
    cudaMemcpy(d_in, h_in, sizeof h_in, cudaMemcpyHostToDevice);
    compose<<<(n + 31) / 32, 32>>>(d_in, d_out, n, Mul{3}, AddOne{});
    cudaMemcpy(h_out, d_out, sizeof h_out, cudaMemcpyDeviceToHost);
    long long acc = 0;
    for (int i = 0; i < n; ++i) acc = acc * 31 + h_out[i];
    printf("compose checksum %lld first %d last %d\n", acc, h_out[0], h_out[n - 1]);

    Vec<double, 3> ha[n], hb[n];
    for (int i = 0; i < n; ++i)
        for (int j = 0; j < 3; ++j) { ha[i].v[j] = i + j * 0.5; hb[i].v[j] = 1.0 / (1 + i + j); }
    Vec<double, 3> *da, *db; double *dd;
    cudaMalloc(&da, sizeof ha); cudaMalloc(&db, sizeof hb); cudaMalloc(&dd, n * sizeof(double));
    cudaMemcpy(da, ha, sizeof ha, cudaMemcpyHostToDevice);
    cudaMemcpy(db, hb, sizeof hb, cudaMemcpyHostToDevice);
    dots<double, 3><<<4, 32>>>(da, db, dd, n);
    double hd[n];
    cudaMemcpy(hd, dd, sizeof hd, cudaMemcpyDeviceToHost);
    printf("dot[0] %.17g dot[7] %.17g dot[99] %.17g\n", hd[0], hd[7], hd[99]);

    long long *dm, hm[9];
    cudaMalloc(&dm, sizeof hm);
    misc<<<1, 1>>>(dm);
    cudaMemcpy(hm, dm, sizeof hm, cudaMemcpyDeviceToHost);
    for (int i = 0; i < 9; ++i) printf("misc[%d] = %lld\n", i, hm[i]);
    cudaError_t e = cudaDeviceSynchronize();
    printf("status %s\n", cudaGetErrorString(e));
    return 0;
}
