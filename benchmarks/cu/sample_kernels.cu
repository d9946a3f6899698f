// A few hundred lines of ordinary CUDA C++ for benchmarks/cu_compile.py: reductions, scans, a
// tiled matrix multiply, a stencil, histograms, sorting networks, templates and device functions.
// Compiles with nvcc and with CuMetal's front end alike.
#include <cstdint>

#define TILE 16
#define BLOCK 256

namespace bench {

template <typename T> struct Sum { __device__ T operator()(T a, T b) const { return a + b; } };
template <typename T> struct Max { __device__ T operator()(T a, T b) const { return a > b ? a : b; } };
template <typename T> struct Min { __device__ T operator()(T a, T b) const { return a < b ? a : b; } };

template <typename T, typename Op> __device__ T warp_reduce(T v, Op op) {
  for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, off));
  return v;
}

template <typename T, typename Op> __device__ T block_reduce(T v, Op op, T identity) {
  __shared__ T warp_results[32];
  int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) warp_results[warp] = v;
  __syncthreads();
  int nwarps = (blockDim.x + 31) >> 5;
  v = threadIdx.x < nwarps ? warp_results[lane] : identity;
  if (warp == 0) v = warp_reduce(v, op);
  return v;
}

template <typename T, typename Op>
__global__ void reduce_kernel(const T *in, T *out, int n, T identity) {
  T acc = identity;
  Op op;
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) acc = op(acc, in[i]);
  acc = block_reduce(acc, op, identity);
  if (threadIdx.x == 0) out[blockIdx.x] = acc;
}

template __global__ void reduce_kernel<float, Sum<float>>(const float *, float *, int, float);
template __global__ void reduce_kernel<float, Max<float>>(const float *, float *, int, float);
template __global__ void reduce_kernel<int, Min<int>>(const int *, int *, int, int);
template __global__ void reduce_kernel<double, Sum<double>>(const double *, double *, int, double);
template __global__ void reduce_kernel<unsigned long long, Sum<unsigned long long>>(
    const unsigned long long *, unsigned long long *, int, unsigned long long);

// Inclusive scan of one block (Hillis-Steele in shared memory).
template <typename T> __global__ void block_scan(const T *in, T *out, int n) {
  extern __shared__ unsigned char smem_raw[];
  T *buf = reinterpret_cast<T *>(smem_raw);
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  buf[threadIdx.x] = i < n ? in[i] : T(0);
  __syncthreads();
  for (int off = 1; off < blockDim.x; off <<= 1) {
    T add = threadIdx.x >= off ? buf[threadIdx.x - off] : T(0);
    __syncthreads();
    buf[threadIdx.x] += add;
    __syncthreads();
  }
  if (i < n) out[i] = buf[threadIdx.x];
}
template __global__ void block_scan<int>(const int *, int *, int);
template __global__ void block_scan<float>(const float *, float *, int);

// Tiled matrix multiply C = A * B (row-major, any size).
template <typename T>
__global__ void matmul_tiled(const T *__restrict__ a, const T *__restrict__ b, T *__restrict__ c, int m, int n,
                             int k) {
  __shared__ T ta[TILE][TILE];
  __shared__ T tb[TILE][TILE + 1];
  int row = blockIdx.y * TILE + threadIdx.y, col = blockIdx.x * TILE + threadIdx.x;
  T acc = 0;
  for (int t = 0; t < (k + TILE - 1) / TILE; ++t) {
    int ka = t * TILE + threadIdx.x, kb = t * TILE + threadIdx.y;
    ta[threadIdx.y][threadIdx.x] = (row < m && ka < k) ? a[row * k + ka] : T(0);
    tb[threadIdx.y][threadIdx.x] = (kb < k && col < n) ? b[kb * n + col] : T(0);
    __syncthreads();
#pragma unroll
    for (int j = 0; j < TILE; ++j) acc += ta[threadIdx.y][j] * tb[j][threadIdx.x];
    __syncthreads();
  }
  if (row < m && col < n) c[row * n + col] = acc;
}
template __global__ void matmul_tiled<float>(const float *, const float *, float *, int, int, int);
template __global__ void matmul_tiled<double>(const double *, const double *, double *, int, int, int);

// 2-D five-point stencil with halo in shared memory.
__global__ void stencil5(const float *in, float *out, int w, int h, float c0, float c1) {
  __shared__ float tile[TILE + 2][TILE + 2];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  auto at = [&](int xx, int yy) {
    xx = xx < 0 ? 0 : (xx >= w ? w - 1 : xx);
    yy = yy < 0 ? 0 : (yy >= h ? h - 1 : yy);
    return in[yy * w + xx];
  };
  tile[threadIdx.y + 1][threadIdx.x + 1] = at(x, y);
  if (threadIdx.x == 0) tile[threadIdx.y + 1][0] = at(x - 1, y);
  if (threadIdx.x == TILE - 1) tile[threadIdx.y + 1][TILE + 1] = at(x + 1, y);
  if (threadIdx.y == 0) tile[0][threadIdx.x + 1] = at(x, y - 1);
  if (threadIdx.y == TILE - 1) tile[TILE + 1][threadIdx.x + 1] = at(x, y + 1);
  __syncthreads();
  if (x < w && y < h) {
    float v = tile[threadIdx.y + 1][threadIdx.x + 1];
    float s = tile[threadIdx.y][threadIdx.x + 1] + tile[threadIdx.y + 2][threadIdx.x + 1] +
              tile[threadIdx.y + 1][threadIdx.x] + tile[threadIdx.y + 1][threadIdx.x + 2];
    out[y * w + x] = c0 * v + c1 * s;
  }
}

// Histogram with privatised shared-memory bins.
__global__ void histogram256(const uint8_t *data, unsigned *bins, int n) {
  __shared__ unsigned local[256];
  for (int b = threadIdx.x; b < 256; b += blockDim.x) local[b] = 0;
  __syncthreads();
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
    atomicAdd(&local[data[i]], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < 256; b += blockDim.x)
    if (local[b]) atomicAdd(&bins[b], local[b]);
}

// Bitonic sort of one block of keys with their values.
template <typename K, typename V> __device__ void compare_swap(K &ka, V &va, K &kb, V &vb, bool up) {
  if ((ka > kb) == up) {
    K tk = ka; ka = kb; kb = tk;
    V tv = va; va = vb; vb = tv;
  }
}
template <typename K, typename V> __global__ void bitonic_block(K *keys, V *vals) {
  __shared__ K sk[BLOCK];
  __shared__ V sv[BLOCK];
  int t = threadIdx.x, base = blockIdx.x * BLOCK;
  sk[t] = keys[base + t];
  sv[t] = vals[base + t];
  __syncthreads();
  for (int size = 2; size <= BLOCK; size <<= 1) {
    for (int stride = size >> 1; stride > 0; stride >>= 1) {
      int partner = t ^ stride;
      if (partner > t) compare_swap(sk[t], sv[t], sk[partner], sv[partner], (t & size) == 0);
      __syncthreads();
    }
  }
  keys[base + t] = sk[t];
  vals[base + t] = sv[t];
}
template __global__ void bitonic_block<int, int>(int *, int *);
template __global__ void bitonic_block<float, unsigned>(float *, unsigned *);
template __global__ void bitonic_block<unsigned long long, int>(unsigned long long *, int *);

// Element-wise kernels through a functor template.
struct Saxpy { float a; __device__ float operator()(float x, float y) const { return a * x + y; } };
struct Relu { __device__ float operator()(float x, float) const { return x > 0.f ? x : 0.f; } };
struct Lerp { float t; __device__ float operator()(float x, float y) const { return x + t * (y - x); } };
template <typename F> __global__ void map2(F f, const float *x, const float *y, float *out, int n) {
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) out[i] = f(x[i], y[i]);
}
template __global__ void map2<Saxpy>(Saxpy, const float *, const float *, float *, int);
template __global__ void map2<Relu>(Relu, const float *, const float *, float *, int);
template __global__ void map2<Lerp>(Lerp, const float *, const float *, float *, int);

// Integer hashing and bit manipulation.
__device__ __forceinline__ uint32_t murmur_mix(uint32_t h) {
  h ^= h >> 16; h *= 0x85ebca6bu; h ^= h >> 13; h *= 0xc2b2ae35u; h ^= h >> 16;
  return h;
}
__device__ __noinline__ uint64_t splitmix64(uint64_t z) {
  z += 0x9e3779b97f4a7c15ull;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}
__global__ void hash_keys(const uint32_t *keys, uint64_t *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t h = murmur_mix(keys[i]);
  uint64_t s = splitmix64(((uint64_t)h << 32) | keys[i]);
  out[i] = s ^ (uint64_t)__popc(h) ^ ((uint64_t)__clz(keys[i] | 1) << 56) ^ (uint64_t)__brev(h);
}

// Sparse matrix-vector product (CSR), one warp per row.
__global__ void spmv_csr_warp(const int *row_ptr, const int *cols, const float *vals, const float *x, float *y,
                              int rows) {
  int warp = (blockIdx.x * blockDim.x + threadIdx.x) >> 5, lane = threadIdx.x & 31;
  if (warp >= rows) return;
  float acc = 0.f;
  for (int j = row_ptr[warp] + lane; j < row_ptr[warp + 1]; j += 32) acc += vals[j] * x[cols[j]];
  acc = warp_reduce(acc, Sum<float>());
  if (lane == 0) y[warp] = acc;
}

// Transpose with a padded shared tile.
template <typename T> __global__ void transpose(const T *in, T *out, int w, int h) {
  __shared__ T tile[TILE][TILE + 1];
  int x = blockIdx.x * TILE + threadIdx.x, y = blockIdx.y * TILE + threadIdx.y;
  if (x < w && y < h) tile[threadIdx.y][threadIdx.x] = in[y * w + x];
  __syncthreads();
  x = blockIdx.y * TILE + threadIdx.x;
  y = blockIdx.x * TILE + threadIdx.y;
  if (x < h && y < w) out[y * h + x] = tile[threadIdx.x][threadIdx.y];
}
template __global__ void transpose<float>(const float *, float *, int, int);
template __global__ void transpose<double>(const double *, double *, int, int);
template __global__ void transpose<int16_t>(const int16_t *, int16_t *, int, int);

// Softmax of each row (one block per row), numerically stable.
__global__ void softmax_rows(const float *in, float *out, int cols) {
  const float *row = in + blockIdx.x * cols;
  float *dst = out + blockIdx.x * cols;
  float m = -3.402823466e38f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) m = fmaxf(m, row[j]);
  m = block_reduce(m, Max<float>(), -3.402823466e38f);
  __shared__ float bcast;
  if (threadIdx.x == 0) bcast = m;
  __syncthreads();
  m = bcast;
  float s = 0.f;
  for (int j = threadIdx.x; j < cols; j += blockDim.x) s += __expf(row[j] - m);
  __syncthreads();
  s = block_reduce(s, Sum<float>(), 0.f);
  if (threadIdx.x == 0) bcast = s;
  __syncthreads();
  for (int j = threadIdx.x; j < cols; j += blockDim.x) dst[j] = __expf(row[j] - m) / bcast;
}

// Compaction with warp ballots.
__global__ void compact_positive(const int *in, int *out, unsigned *count, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int v = i < n ? in[i] : 0;
  bool keep = v > 0;
  unsigned mask = __ballot_sync(0xffffffffu, keep);
  int lane = threadIdx.x & 31;
  unsigned base = 0;
  if (lane == 0 && mask) base = atomicAdd(count, (unsigned)__popc(mask));
  base = __shfl_sync(0xffffffffu, base, 0);
  if (keep) out[base + __popc(mask & ((1u << lane) - 1))] = v;
}

}  // namespace bench
