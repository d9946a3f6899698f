// Tensor cores through nvcuda::wmma: half inputs, float accumulate, 16x16x16 tiles (mma.sync / wmma.*).
#include <mma.h>
#include <cuda_fp16.h>
using namespace nvcuda;
__global__ void wmma_gemm(const half *a, const half *b, float *c, int M, int N, int K) {
  int warpM = (blockIdx.x * blockDim.x + threadIdx.x) / 32;
  int warpN = blockIdx.y * blockDim.y + threadIdx.y;
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  for (int k = 0; k < K; k += 16) {
    int ar = warpM * 16, bc = warpN * 16;
    if (ar < M && bc < N) {
      wmma::load_matrix_sync(fa, a + ar * K + k, K);
      wmma::load_matrix_sync(fb, b + bc * K + k, K);
      wmma::mma_sync(acc, fa, fb, acc);
    }
  }
  for (int e = 0; e < acc.num_elements; ++e) acc.x[e] *= 0.5f;
  if (warpM * 16 < M && warpN * 16 < N) wmma::store_matrix_sync(c + warpM * 16 * N + warpN * 16, acc, N, wmma::mem_row_major);
}

__global__ void wmma_half_acc(const half *a, const half *b, half *c) {
  wmma::fragment<wmma::matrix_a, 32, 8, 16, half, wmma::col_major> fa;
  wmma::fragment<wmma::matrix_b, 32, 8, 16, half, wmma::row_major> fb;
  wmma::fragment<wmma::accumulator, 32, 8, 16, half> acc;
  wmma::load_matrix_sync(fa, a, 32);
  wmma::load_matrix_sync(fb, b, 8);
  wmma::fill_fragment(acc, __float2half(1.f));
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 8, wmma::mem_col_major);
}

__global__ void wmma_int8(const signed char *a, const signed char *b, int *c) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, signed char, wmma::row_major> fa;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, signed char, wmma::col_major> fb;
  wmma::fragment<wmma::accumulator, 16, 16, 16, int> acc;
  wmma::fill_fragment(acc, 0);
  wmma::load_matrix_sync(fa, a, 16);
  wmma::load_matrix_sync(fb, b, 16);
  wmma::mma_sync(acc, fa, fb, acc);
  wmma::store_matrix_sync(c, acc, 16, wmma::mem_row_major);
}
