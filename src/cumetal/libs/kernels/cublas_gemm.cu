// CuMetal's cuBLAS GEMM kernels for Apple devices (metal, air-sim, msl-sim): one CUDA C++ source
// compiled by CuMetal's own pipeline (clang -> PTX -> AIR/MSL) like any user kernel, loaded once per
// process (cumetal.libs.cublas.kernels). The CPU devices keep OpenBLAS through numpy.
//
// D = epilogue(alpha op(A) op(B) + beta C + bias), column-major, for one matrix, strided batches or
// pointer arrays (gridDim.z = batch); cuBLAS passes D = C and no bias or epilogue, cuBLASLt's matmul
// its own D, a bias per row and ReLU or GELU (tanh approximation, as cuBLASLt's). 16 x 16 output tiles, A and B staged through 2 KiB of shared memory (well
// under an Apple GPU's 32 KiB); inputs converted to float (f16/bf16 storage), optionally rounded to
// the compute type's input precision (TF32, FAST_16F, FAST_16BF), accumulated in float with fma in k
// order, scaled in float and rounded once to C's type. beta == 0 does not read C; alpha == 0 does not
// read A or B (cuBLAS's rules).
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#define TILE 16

enum { ROUND_NONE = 0, ROUND_TF32 = 1, ROUND_F16 = 2, ROUND_BF16 = 3 };
enum { SCALE_VALUE = 0, SCALE_F32_POINTER = 1, SCALE_F16_POINTER = 2 };
enum { OUT_AS_IS = 0, OUT_VIA_F16 = 1 };  // COMPUTE_16F: the float result is rounded to half first
enum { BIAS_NONE = 0, BIAS_F32 = 1, BIAS_F16 = 2, BIAS_BF16 = 3 };
enum { EPILOGUE_NONE = 0, EPILOGUE_RELU = 1, EPILOGUE_GELU = 2 };

__device__ __forceinline__ float load(const float *p) { return *p; }
__device__ __forceinline__ float load(const __half *p) { return __half2float(*p); }
__device__ __forceinline__ float load(const __nv_bfloat16 *p) { return __bfloat162float(*p); }
__device__ __forceinline__ void store(float *p, float v) { *p = v; }
__device__ __forceinline__ void store(__half *p, float v) { *p = __float2half_rn(v); }
__device__ __forceinline__ void store(__nv_bfloat16 *p, float v) { *p = __float2bfloat16_rn(v); }

// round a float to the compute type's input precision, to nearest even (TF32: 10 mantissa bits)
__device__ __forceinline__ float round_input(float x, int mode) {
    if (mode == ROUND_TF32) {
        unsigned u = __float_as_uint(x);
        if ((u & 0x7f800000u) == 0x7f800000u) return x;  // inf, NaN
        u = (u + 0xfffu + ((u >> 13) & 1u)) & 0xffffe000u;
        return __uint_as_float(u);
    }
    if (mode == ROUND_F16) return __half2float(__float2half_rn(x));
    if (mode == ROUND_BF16) return __bfloat162float(__float2bfloat16_rn(x));
    return x;
}

__device__ __forceinline__ float bias_value(const void *bias, long long i, int kind) {
    if (kind == BIAS_F32) return ((const float *)bias)[i];
    if (kind == BIAS_F16) return __half2float(((const __half *)bias)[i]);
    return __bfloat162float(((const __nv_bfloat16 *)bias)[i]);
}

__device__ __forceinline__ float epilogue(float x, int kind) {
    if (kind == EPILOGUE_RELU) return x < 0.0f ? 0.0f : x;  // NaN stays NaN
    if (kind == EPILOGUE_GELU) return 0.5f * x * (1.0f + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)));
    return x;
}

__device__ __forceinline__ float scale_value(float by_value, const void *ptr, int kind) {
    if (kind == SCALE_F32_POINTER) return *(const float *)ptr;
    if (kind == SCALE_F16_POINTER) return __half2float(*(const __half *)ptr);
    return by_value;
}

template <class TA, class TC>
__device__ void gemm(int ta, int tb, int m, int n, int k, float alpha_v, const void *alpha_p, float beta_v,
                     const void *beta_p, int scale_kind, const void *a_, long long lda, long long stride_a,
                     const void *b_, long long ldb, long long stride_b, void *c_, long long ldc, long long stride_c,
                     int arrays, int round, int out, void *d_, long long ldd, long long stride_d, const void *bias,
                     long long stride_bias, int bias_kind, int epi) {
    __shared__ float As[TILE][TILE + 1], Bs[TILE][TILE + 1];
    const int z = blockIdx.z, tx = threadIdx.x, ty = threadIdx.y;
    const TA *A;
    const TA *B;
    TC *C;
    TC *D;
    if (arrays) {
        A = ((const TA *const *)a_)[z];
        B = ((const TA *const *)b_)[z];
        C = ((TC *const *)c_)[z];
        D = C;
    } else {
        A = (const TA *)a_ + z * stride_a;
        B = (const TA *)b_ + z * stride_b;
        C = (TC *)c_ + z * stride_c;
        D = (TC *)d_ + z * stride_d;
    }
    const float alpha = scale_value(alpha_v, alpha_p, scale_kind);
    const float beta = scale_value(beta_v, beta_p, scale_kind);
    const int row = blockIdx.x * TILE + tx, col = blockIdx.y * TILE + ty;
    float acc = 0.0f;
    if (alpha != 0.0f) {
        for (int k0 = 0; k0 < k; k0 += TILE) {
            const int ka = k0 + ty, kb = k0 + tx;  // As[ty][tx] = op(A)(row, ka); Bs[ty][tx] = op(B)(kb, col)
            float a = 0.0f, b = 0.0f;
            if (row < m && ka < k) a = load(ta == 0 ? A + row + ka * lda : A + ka + row * lda);
            if (kb < k && col < n) b = load(tb == 0 ? B + kb + col * ldb : B + col + kb * ldb);
            As[ty][tx] = round_input(a, round);
            Bs[ty][tx] = round_input(b, round);
            __syncthreads();
            for (int kk = 0; kk < TILE; ++kk) acc = fmaf(As[kk][tx], Bs[ty][kk], acc);
            __syncthreads();
        }
    }
    if (row < m && col < n) {
        float r = alpha * acc;
        if (beta != 0.0f) r = fmaf(beta, load(C + row + col * ldc), r);
        if (bias_kind != BIAS_NONE) r += bias_value(bias, z * stride_bias + row, bias_kind);
        r = epilogue(r, epi);
        if (out == OUT_VIA_F16) r = __half2float(__float2half_rn(r));
        store(D + row + col * ldd, r);
    }
}

#define CUMETAL_GEMM_KERNEL(NAME, TA, TC)                                                                            \
    extern "C" __global__ void __launch_bounds__(TILE * TILE)                                                        \
        NAME(int ta, int tb, int m, int n, int k, float alpha_v, const void *alpha_p, float beta_v,                  \
             const void *beta_p, int scale_kind, const void *a, long long lda, long long stride_a, const void *b,    \
             long long ldb, long long stride_b, void *c, long long ldc, long long stride_c, int arrays, int round,   \
             int out, void *d, long long ldd, long long stride_d, const void *bias, long long stride_bias,           \
             int bias_kind, int epi) {                                                                               \
        gemm<TA, TC>(ta, tb, m, n, k, alpha_v, alpha_p, beta_v, beta_p, scale_kind, a, lda, stride_a, b, ldb,       \
                     stride_b, c, ldc, stride_c, arrays, round, out, d, ldd, stride_d, bias, stride_bias, bias_kind, \
                     epi);                                                                                           \
    }

CUMETAL_GEMM_KERNEL(cm_gemm_f32_f32, float, float)
CUMETAL_GEMM_KERNEL(cm_gemm_f32_f16, float, __half)
CUMETAL_GEMM_KERNEL(cm_gemm_f32_bf16, float, __nv_bfloat16)
CUMETAL_GEMM_KERNEL(cm_gemm_f16_f32, __half, float)
CUMETAL_GEMM_KERNEL(cm_gemm_f16_f16, __half, __half)
CUMETAL_GEMM_KERNEL(cm_gemm_f16_bf16, __half, __nv_bfloat16)
CUMETAL_GEMM_KERNEL(cm_gemm_bf16_f32, __nv_bfloat16, float)
CUMETAL_GEMM_KERNEL(cm_gemm_bf16_f16, __nv_bfloat16, __half)
CUMETAL_GEMM_KERNEL(cm_gemm_bf16_bf16, __nv_bfloat16, __nv_bfloat16)
