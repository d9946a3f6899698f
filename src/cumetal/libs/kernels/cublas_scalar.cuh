// Scalar arithmetic shared by CuMetal's cuBLAS kernels (cublas_blas.cu, cublas_level3.cu), one
// overload per BLAS type: S = float, D = double, C = float2 (cuComplex), Z = double2 (cuDoubleComplex).
// Complex products are re = fma(a.re, b.re, fma(-a.im, b.im, acc.re)), im = fma(a.re, b.im,
// fma(a.im, b.re, acc.im)).
#pragma once
#include <cuda_runtime.h>

#define BLOCK 256
#define TILE 16

__device__ __forceinline__ float madd(float a, float b, float acc) { return fmaf(a, b, acc); }
__device__ __forceinline__ double madd(double a, double b, double acc) { return fma(a, b, acc); }
__device__ __forceinline__ float2 madd(float2 a, float2 b, float2 acc) {
    return make_float2(fmaf(a.x, b.x, fmaf(-a.y, b.y, acc.x)), fmaf(a.x, b.y, fmaf(a.y, b.x, acc.y)));
}
__device__ __forceinline__ double2 madd(double2 a, double2 b, double2 acc) {
    return make_double2(fma(a.x, b.x, fma(-a.y, b.y, acc.x)), fma(a.x, b.y, fma(a.y, b.x, acc.y)));
}
template <class T> __device__ __forceinline__ T zero();
template <> __device__ __forceinline__ float zero<float>() { return 0.0f; }
template <> __device__ __forceinline__ double zero<double>() { return 0.0; }
template <> __device__ __forceinline__ float2 zero<float2>() { return make_float2(0.0f, 0.0f); }
template <> __device__ __forceinline__ double2 zero<double2>() { return make_double2(0.0, 0.0); }
__device__ __forceinline__ float mul(float a, float b) { return a * b; }
__device__ __forceinline__ double mul(double a, double b) { return a * b; }
__device__ __forceinline__ float2 mul(float2 a, float2 b) { return madd(a, b, zero<float2>()); }
__device__ __forceinline__ double2 mul(double2 a, double2 b) { return madd(a, b, zero<double2>()); }
__device__ __forceinline__ float add(float a, float b) { return a + b; }
__device__ __forceinline__ double add(double a, double b) { return a + b; }
__device__ __forceinline__ float2 add(float2 a, float2 b) { return make_float2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ double2 add(double2 a, double2 b) { return make_double2(a.x + b.x, a.y + b.y); }
__device__ __forceinline__ float conj_if(float a, int) { return a; }
__device__ __forceinline__ double conj_if(double a, int) { return a; }
__device__ __forceinline__ float2 conj_if(float2 a, int c) { return c ? make_float2(a.x, -a.y) : a; }
__device__ __forceinline__ double2 conj_if(double2 a, int c) { return c ? make_double2(a.x, -a.y) : a; }
__device__ __forceinline__ bool is_zero(float a) { return a == 0.0f; }
__device__ __forceinline__ bool is_zero(double a) { return a == 0.0; }
__device__ __forceinline__ bool is_zero(float2 a) { return a.x == 0.0f && a.y == 0.0f; }
__device__ __forceinline__ bool is_zero(double2 a) { return a.x == 0.0 && a.y == 0.0; }
// a real scalar times an element (Csscal, Zdscal)
__device__ __forceinline__ float2 mul(float a, float2 b) { return make_float2(a * b.x, a * b.y); }
__device__ __forceinline__ double2 mul(double a, double2 b) { return make_double2(a * b.x, a * b.y); }

template <class T> struct Real { typedef T type; };
template <> struct Real<float2> { typedef float type; };
template <> struct Real<double2> { typedef double type; };

// alpha/beta: by value (re, im), or read through a device pointer when one is given
template <class T> __device__ __forceinline__ T scalar(double re, double im, const void *p);
template <> __device__ __forceinline__ float scalar<float>(double re, double, const void *p) {
    return p ? *(const float *)p : (float)re;
}
template <> __device__ __forceinline__ double scalar<double>(double re, double, const void *p) {
    return p ? *(const double *)p : re;
}
template <> __device__ __forceinline__ float2 scalar<float2>(double re, double im, const void *p) {
    return p ? *(const float2 *)p : make_float2((float)re, (float)im);
}
template <> __device__ __forceinline__ double2 scalar<double2>(double re, double im, const void *p) {
    return p ? *(const double2 *)p : make_double2(re, im);
}

// element i of an n-vector with increment inc (negative: from the far end)
__device__ __forceinline__ long long at(long long i, long long n, long long inc) {
    return inc >= 0 ? i * inc : (n - 1 - i) * -inc;
}


// a real scalar (herk's alpha and beta, her2k's beta): by value, or a real read through a device pointer
template <class T> __device__ __forceinline__ T real_scalar(double re, const void *p) {
    typedef typename Real<T>::type R;
    return scalar<T>(p ? (double)*(const R *)p : re, 0.0, nullptr);
}

__device__ __forceinline__ float neg(float a) { return -a; }
__device__ __forceinline__ double neg(double a) { return -a; }
__device__ __forceinline__ float2 neg(float2 a) { return make_float2(-a.x, -a.y); }
__device__ __forceinline__ double2 neg(double2 a) { return make_double2(-a.x, -a.y); }
__device__ __forceinline__ float real_only(float a) { return a; }
__device__ __forceinline__ double real_only(double a) { return a; }
__device__ __forceinline__ float2 real_only(float2 a) { return make_float2(a.x, 0.0f); }
__device__ __forceinline__ double2 real_only(double2 a) { return make_double2(a.x, 0.0); }
template <class T> __device__ __forceinline__ T one();
template <> __device__ __forceinline__ float one<float>() { return 1.0f; }
template <> __device__ __forceinline__ double one<double>() { return 1.0; }
template <> __device__ __forceinline__ float2 one<float2>() { return make_float2(1.0f, 0.0f); }
template <> __device__ __forceinline__ double2 one<double2>() { return make_double2(1.0, 0.0); }

// a / b; complex by Smith's scaling, which neither overflows nor underflows where the quotient is representable
__device__ __forceinline__ float quot(float a, float b) { return a / b; }
__device__ __forceinline__ double quot(double a, double b) { return a / b; }
template <class C, class R> __device__ __forceinline__ C smith(C a, C b) {
    if ((b.x < 0 ? -b.x : b.x) >= (b.y < 0 ? -b.y : b.y)) {
        const R r = b.y / b.x, d = b.x + b.y * r;
        C q;
        q.x = (a.x + a.y * r) / d;
        q.y = (a.y - a.x * r) / d;
        return q;
    }
    const R r = b.x / b.y, d = b.y + b.x * r;
    C q;
    q.x = (a.x * r + a.y) / d;
    q.y = (a.y * r - a.x) / d;
    return q;
}
__device__ __forceinline__ float2 quot(float2 a, float2 b) { return smith<float2, float>(a, b); }
__device__ __forceinline__ double2 quot(double2 a, double2 b) { return smith<double2, double>(a, b); }

// ------------------------------------------------------------------ matrix elements (column-major)
// element (r, c) of op(X) for a trans code 0 = N, 1 = T, 2 = C
template <class T> __device__ __forceinline__ T op_at(const T *X, long long ld, int trans, long long r, long long c) {
    return trans == 0 ? X[r + c * ld] : conj_if(X[c + r * ld], trans == 2);
}

// element (r, c) of the symmetric (Hermitian) matrix whose uplo triangle A holds; uplo 0 = lower, 1 = upper
template <class T>
__device__ __forceinline__ T sym_at(const T *A, long long lda, int upper, int herm, long long r, long long c) {
    if (r == c) return herm ? real_only(A[r + r * lda]) : A[r + r * lda];
    const bool stored = upper ? r < c : r > c;
    return stored ? A[r + c * lda] : conj_if(A[c + r * lda], herm);
}

// element (r, c) of op(tri(A)): uplo triangle, unit diagonal when unit
template <class T>
__device__ __forceinline__ T tri_at(const T *A, long long lda, int upper, int trans, int unit, long long r,
                                    long long c) {
    if (trans != 0) {
        const long long t = r;
        r = c;
        c = t;
    }
    if (r == c) return unit ? one<T>() : conj_if(A[r + r * lda], trans == 2);
    const bool stored = upper ? r < c : r > c;
    return stored ? conj_if(A[r + c * lda], trans == 2) : zero<T>();
}
