// Templates: one kernel template instantiated for float, double, int; a functor template.
template <typename T>
__global__ void axpy(T alpha, const T *x, T *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = alpha * x[i] + y[i];
}

template <typename T> struct Square { __device__ T operator()(T v) const { return v * v; } };
template <typename T> struct Negate { __device__ T operator()(T v) const { return -v; } };

template <typename T, typename Op>
__global__ void transform(const T *in, T *out, int n, Op op) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = op(in[i]);
}

template <int N>
__global__ void unrolled_sum(const float *in, float *out) {
  float acc = 0.f;
#pragma unroll
  for (int k = 0; k < N; ++k) acc += in[threadIdx.x * N + k];
  out[threadIdx.x] = acc;
}

template __global__ void axpy<float>(float, const float *, float *, int);
template __global__ void axpy<double>(double, const double *, double *, int);
template __global__ void axpy<int>(int, const int *, int *, int);
template __global__ void transform<float, Square<float>>(const float *, float *, int, Square<float>);
template __global__ void transform<int, Negate<int>>(const int *, int *, int, Negate<int>);
template __global__ void unrolled_sum<4>(const float *, float *);
template __global__ void unrolled_sum<8>(const float *, float *);
