// CUDA C++ language features compiled by CuMetal's front end and run on the CPU backend
// (tests/cudacxx/test_language_features.py checks each kernel against numpy).
#include <cstdint>

// --- plain kernel, __restrict__, grid-stride loop -------------------------------------------------
extern "C" __global__ void vector_add(const float *__restrict__ a, const float *__restrict__ b,
                                      float *__restrict__ c, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    c[i] = a[i] + b[i];
}

// --- templates: a template device function and template kernels (explicitly instantiated) --------
template <typename T> __device__ T clamp_to(T v, T lo, T hi) { return v < lo ? lo : (v > hi ? hi : v); }

template <typename T, int Scale>
__global__ void scale_clamp(const T *in, T *out, int n, T lo, T hi) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = clamp_to<T>(in[i] * T(Scale), lo, hi);
}
template __global__ void scale_clamp<float, 3>(const float *, float *, int, float, float);
template __global__ void scale_clamp<int, -2>(const int *, int *, int, int, int);

// --- lambdas in device code (capturing, generic) and C++17 --------------------------------------
template <typename F> __device__ void for_each_index(int n, F f) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) f(i);
}
extern "C" __global__ void lambdas(const int *in, int *out, int n, int k) {
  auto affine = [k](auto x) { return x * k + 1; };               // generic lambda, captures by value
  for_each_index(n, [&](int i) { out[i] = affine(in[i]); });      // captures by reference
}
struct Pair { int a; float b; };
__device__ constexpr int cube(int v) { return v * v * v; }
static_assert(cube(3) == 27, "constexpr device function usable at compile time");
extern "C" __global__ void cxx17(const Pair *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  auto [a, b] = in[i];                                            // structured binding
  if constexpr (sizeof(Pair) == 8) {                              // if constexpr
    constexpr int c = cube(2);
    out[i] = a * b + c;
  } else {
    out[i] = -1.0f;
  }
}

// --- __shared__ (static and extern dynamic), __syncthreads --------------------------------------
extern "C" __global__ void __launch_bounds__(128) reverse_static(const int *in, int *out) {
  __shared__ int tile[128];
  int t = threadIdx.x, base = blockIdx.x * blockDim.x;
  tile[t] = in[base + t];
  __syncthreads();
  out[base + t] = tile[blockDim.x - 1 - t];
}
extern "C" __global__ void block_sum_dynamic(const float *in, float *out) {
  extern __shared__ float partial[];
  int t = threadIdx.x;
  partial[t] = in[blockIdx.x * blockDim.x + t];
  __syncthreads();
  for (int s = blockDim.x / 2; s > 0; s >>= 1) {
    if (t < s) partial[t] += partial[t + s];
    __syncthreads();
  }
  if (t == 0) out[blockIdx.x] = partial[0];
}

// --- __constant__ and __device__ globals ----------------------------------------------------------
__constant__ float poly[4] = {1.0f, -2.0f, 0.5f, 0.25f};
__device__ int calls_made;
extern "C" __global__ void horner(const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float acc = 0.0f;
  for (int k = 3; k >= 0; --k) acc = acc * x[i] + poly[k];
  y[i] = acc;
  atomicAdd(&calls_made, 1);
}

// --- __forceinline__ / __noinline__ device functions, recursion ------------------------------------
__device__ __forceinline__ unsigned mix(unsigned v) { return (v ^ (v >> 7)) * 0x9E3779B1u; }
__device__ __noinline__ unsigned gcd(unsigned a, unsigned b) { return b == 0 ? a : gcd(b, a % b); }
extern "C" __global__ void device_functions(const unsigned *a, const unsigned *b, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = gcd(a[i], b[i]) + mix(a[i]);
}

// --- inline PTX asm ---------------------------------------------------------------------------------
extern "C" __global__ void inline_asm(const unsigned *in, unsigned *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  unsigned v = in[i], r, lane;
  asm("brev.b32 %0, %1;" : "=r"(r) : "r"(v));
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  unsigned long long wide;
  asm("mul.wide.u32 %0, %1, %2;" : "=l"(wide) : "r"(v), "r"(v));
  out[3 * i] = r;
  out[3 * i + 1] = lane;
  out[3 * i + 2] = (unsigned)(wide >> 32);
}

// --- function pointers and virtual functions ---------------------------------------------------------
typedef float (*unary_t)(float);
__device__ float twice(float v) { return 2.0f * v; }
__device__ float negate(float v) { return -v; }
__device__ unary_t table[2] = {twice, negate};

struct Shape {
  __device__ virtual float area() const = 0;
};
struct Square : Shape {
  float s;
  __device__ explicit Square(float s_) : s(s_) {}
  __device__ float area() const override { return s * s; }
};
struct Rect : Shape {
  float w, h;
  __device__ Rect(float w_, float h_) : w(w_), h(h_) {}
  __device__ float area() const override { return w * h; }
};
__device__ __noinline__ float area_of(const Shape &s) { return s.area(); }  // a real virtual call

extern "C" __global__ void dispatch(const float *in, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  Square sq(in[i]);
  Rect rc(in[i], 3.0f);
  const Shape *shape = (i & 1) ? static_cast<const Shape *>(&rc) : static_cast<const Shape *>(&sq);
  out[2 * i] = table[i & 1](in[i]);
  out[2 * i + 1] = area_of(*shape);
}

// --- 64-bit integers, int types from <cstdint>, unsigned wrap-around ----------------------------------
extern "C" __global__ void int64_mix(const int64_t *a, uint64_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = (uint64_t)(a[i] * 6364136223846793005LL) + (uint64_t)(a[i] >> 3);
}

// --- a dense switch (clang would make a brx.idx jump table without -fno-jump-tables) -------------------
extern "C" __global__ void dense_switch(const int *in, int *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  int r;
  switch (in[i]) {
    case 0: r = 17; break;
    case 1: r = -4; break;
    case 2: r = 99; break;
    case 3: r = 5; break;
    case 4: r = 123; break;
    case 5: r = -77; break;
    case 6: r = 8; break;
    case 7: r = 1000; break;
    default: r = in[i] * 2; break;
  }
  out[i] = r;
}

// Type punning as CUB's warp shuffles do it (a T written through unsigned int words, then read as
// its members): nvcc keeps it working, and so must CuMetal (device code is compiled without
// type-based alias analysis; with it clang forwarded idx's initial value past the word stores).
struct punned {
    int v[3];
    long long idx = 7;
};
extern "C" __global__ void type_punning(const unsigned int *words, long long *out) {
    punned p;
    unsigned int *alias = reinterpret_cast<unsigned int *>(&p);
    for (int i = 0; i < (int)(sizeof(punned) / sizeof(unsigned int)); i++) alias[i] = words[i];
    out[0] = p.idx;
    out[1] = p.v[2];
}
