// Shared-memory tiled SGEMM (C = alpha*A*B + beta*C), plus a register-blocked variant.
#define BS 16
__global__ void matmul_tiled(const float *A, const float *B, float *C, int M, int N, int K, float alpha, float beta) {
  __shared__ float As[BS][BS];
  __shared__ float Bs[BS][BS];
  int row = blockIdx.y * BS + threadIdx.y, col = blockIdx.x * BS + threadIdx.x;
  float acc = 0.f;
  for (int t = 0; t < (K + BS - 1) / BS; ++t) {
    int ak = t * BS + threadIdx.x, bk = t * BS + threadIdx.y;
    As[threadIdx.y][threadIdx.x] = (row < M && ak < K) ? A[row * K + ak] : 0.f;
    Bs[threadIdx.y][threadIdx.x] = (bk < K && col < N) ? B[bk * N + col] : 0.f;
    __syncthreads();
#pragma unroll
    for (int k = 0; k < BS; ++k) acc += As[threadIdx.y][k] * Bs[k][threadIdx.x];
    __syncthreads();
  }
  if (row < M && col < N) C[row * N + col] = alpha * acc + beta * C[row * N + col];
}

template <int TM, int TN>
__global__ void matmul_regblock(const float *A, const float *B, float *C, int N) {
  float acc[TM][TN] = {};
  int r0 = (blockIdx.y * blockDim.y + threadIdx.y) * TM, c0 = (blockIdx.x * blockDim.x + threadIdx.x) * TN;
  for (int k = 0; k < N; ++k) {
    float a[TM], b[TN];
#pragma unroll
    for (int i = 0; i < TM; ++i) a[i] = A[(r0 + i) * N + k];
#pragma unroll
    for (int j = 0; j < TN; ++j) b[j] = B[k * N + c0 + j];
#pragma unroll
    for (int i = 0; i < TM; ++i)
#pragma unroll
      for (int j = 0; j < TN; ++j) acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
  }
#pragma unroll
  for (int i = 0; i < TM; ++i)
#pragma unroll
    for (int j = 0; j < TN; ++j) C[(r0 + i) * N + c0 + j] = acc[i][j];
}
template __global__ void matmul_regblock<4, 4>(const float *, const float *, float *, int);
