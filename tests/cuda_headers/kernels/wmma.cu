// nvcuda::wmma (mma.h): one warp multiplies A (MxK) by B (KxN) and adds C (tests/cuda_headers/test_wmma.py).
#include <mma.h>
using namespace nvcuda;

template <int M, int N, int K, class TIn, class TAcc, class LA, class LB>
__device__ void gemm(const void *a, const void *b, const TAcc *c, TAcc *d, int lda, int ldb, wmma::layout_t lc) {
    wmma::fragment<wmma::matrix_a, M, N, K, TIn, LA> fa;
    wmma::fragment<wmma::matrix_b, M, N, K, TIn, LB> fb;
    wmma::fragment<wmma::accumulator, M, N, K, TAcc> acc;
    typedef typename wmma::fragment<wmma::matrix_a, M, N, K, TIn, LA>::element_type E;
    wmma::load_matrix_sync(fa, (const E *)a, lda);
    wmma::load_matrix_sync(fb, (const E *)b, ldb);
    wmma::load_matrix_sync(acc, c, lc == wmma::mem_row_major ? N : M, lc);
    wmma::mma_sync(acc, fa, fb, acc);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = acc.x[i] * (TAcc)2;  // element-wise: d = 2 (ab + c)
    wmma::store_matrix_sync(d, acc, lc == wmma::mem_row_major ? N : M, lc);
}

// a row-major (lda = K), b col-major (ldb = K), c/d row-major
extern "C" __global__ void f16_f32_16x16x16(const __half *a, const __half *b, const float *c, float *d) {
    gemm<16, 16, 16, __half, float, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
// a col-major (lda = M), b row-major (ldb = N), c/d col-major
extern "C" __global__ void f16_f32_16x16x16_cr(const __half *a, const __half *b, const float *c, float *d) {
    gemm<16, 16, 16, __half, float, wmma::col_major, wmma::row_major>(a, b, c, d, 16, 16, wmma::mem_col_major);
}
extern "C" __global__ void f16_f16_32x8x16(const __half *a, const __half *b, const __half *c, __half *d) {
    gemm<32, 8, 16, __half, __half, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
extern "C" __global__ void f16_f32_8x32x16(const __half *a, const __half *b, const float *c, float *d) {
    gemm<8, 32, 16, __half, float, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
extern "C" __global__ void bf16_f32_16x16x16(const __nv_bfloat16 *a, const __nv_bfloat16 *b, const float *c, float *d) {
    gemm<16, 16, 16, __nv_bfloat16, float, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
extern "C" __global__ void tf32_f32_16x16x8(const float *a, const float *b, const float *c, float *d) {
    gemm<16, 16, 8, wmma::precision::tf32, float, wmma::row_major, wmma::col_major>(a, b, c, d, 8, 8, wmma::mem_row_major);
}
extern "C" __global__ void s8_s32_16x16x16(const signed char *a, const signed char *b, const int *c, int *d) {
    gemm<16, 16, 16, signed char, int, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
extern "C" __global__ void u8_s32_16x16x16(const unsigned char *a, const unsigned char *b, const int *c, int *d) {
    gemm<16, 16, 16, unsigned char, int, wmma::row_major, wmma::col_major>(a, b, c, d, 16, 16, wmma::mem_row_major);
}
extern "C" __global__ void f64_8x8x4(const double *a, const double *b, const double *c, double *d) {
    wmma::fragment<wmma::matrix_a, 8, 8, 4, double, wmma::row_major> fa;
    wmma::fragment<wmma::matrix_b, 8, 8, 4, double, wmma::col_major> fb;
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> acc;
    wmma::load_matrix_sync(fa, a, 4);
    wmma::load_matrix_sync(fb, b, 4);
    wmma::fill_fragment(acc, 0.0);
    wmma::mma_sync(acc, fa, fb, acc);
    wmma::load_matrix_sync(fa, a, 4);
    wmma::fragment<wmma::accumulator, 8, 8, 4, double> cf;
    wmma::load_matrix_sync(cf, c, 8, wmma::mem_row_major);
    for (int i = 0; i < acc.num_elements; ++i) acc.x[i] = 2.0 * (acc.x[i] + cf.x[i]);
    wmma::store_matrix_sync(d, acc, 8, wmma::mem_row_major);
}
