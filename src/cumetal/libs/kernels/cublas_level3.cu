// CuMetal's cuBLAS level-3 kernels beyond GEMM for Apple devices (metal, air-sim, msl-sim): symm/hemm,
// syrk/herk/syr2k/her2k, trmm, trsm, geam and dgmm in S, D, C, Z. Plain CUDA C++ compiled by CuMetal's
// own pipeline, loaded once per process (cumetal.libs.cublas.level3_kernels); the CPU devices keep
// numpy/OpenBLAS.
//
// Column-major matrices. One thread per element of the result (trsm: one thread per right-hand side,
// a column for side LEFT, a row for side RIGHT, solved by substitution in place). Sums run in index
// order with fma (complex: see cublas_scalar.cuh). cuBLAS's reading rules: alpha == 0 reads neither A
// nor B, beta == 0 does not read C; only the uplo triangle of a symmetric/Hermitian/triangular A is
// read; syrk-type updates write only the uplo triangle of C, and the Hermitian ones set the imaginary
// part of C's diagonal to zero. trmm's C may be B (the caller then gives a scratch C).
#include "cublas_scalar.cuh"

// C = alpha A B + beta C (side 0, A m x m) or alpha B A + beta C (side 1, A n x n)
template <class T>
__device__ void symm(int side, int upper, int herm, int m, int n, double are, double aim, const void *ap, const T *A,
                     long long lda, const T *B, long long ldb, double bre, double bim, const void *bp, T *C,
                     long long ldc) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= m || j >= n) return;
    const T alpha = scalar<T>(are, aim, ap), beta = scalar<T>(bre, bim, bp);
    T acc = zero<T>();
    if (!is_zero(alpha)) {
        if (side == 0) {
            for (long long k = 0; k < m; ++k) acc = madd(sym_at(A, lda, upper, herm, i, k), B[k + j * ldb], acc);
        } else {
            for (long long k = 0; k < n; ++k) acc = madd(B[i + k * ldb], sym_at(A, lda, upper, herm, k, j), acc);
        }
    }
    T *c = C + i + j * ldc;
    T r = mul(alpha, acc);
    if (!is_zero(beta)) r = madd(beta, *c, r);
    *c = r;
}

// sum over l of op(X)(i, l) * h(op(Y)(j, l)), h = conj for the Hermitian updates
template <class T>
__device__ __forceinline__ T rank_sum(const T *X, long long ldx, const T *Y, long long ldy, int trans, int herm,
                                      int k, long long i, long long j) {
    T acc = zero<T>();
    for (long long l = 0; l < k; ++l) acc = madd(op_at(X, ldx, trans, i, l), conj_if(op_at(Y, ldy, trans, j, l), herm), acc);
    return acc;
}

// kind 0 syrk: C = alpha op(A) op(A)^T + beta C; 1 herk: alpha op(A) op(A)^H + beta C (alpha, beta real);
// 2 syr2k: alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C; 3 her2k: alpha op(A) op(B)^H + conj(alpha)
// op(B) op(A)^H + beta C (beta real). C is n x n, only its uplo triangle is written.
template <class T>
__device__ void rank_k(int kind, int upper, int trans, int n, int k, double are, double aim, const void *ap,
                       const T *A, long long lda, const T *B, long long ldb, double bre, double bim, const void *bp,
                       T *C, long long ldc) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= n || j >= n || (upper ? i > j : i < j)) return;
    const int herm = kind == 1 || kind == 3;
    const T alpha = kind == 1 ? real_scalar<T>(are, ap) : scalar<T>(are, aim, ap);
    const T beta = herm ? real_scalar<T>(bre, bp) : scalar<T>(bre, bim, bp);
    T r = zero<T>();
    if (!is_zero(alpha) && k > 0) {
        if (kind < 2) {
            r = mul(alpha, rank_sum(A, lda, A, lda, trans, herm, k, i, j));
        } else {
            r = mul(alpha, rank_sum(A, lda, B, ldb, trans, herm, k, i, j));
            r = madd(conj_if(alpha, herm), rank_sum(B, ldb, A, lda, trans, herm, k, i, j), r);
        }
    }
    T *c = C + i + j * ldc;
    if (!is_zero(beta)) r = madd(beta, *c, r);
    if (herm && i == j) r = real_only(r);
    *c = r;
}

// C = alpha op(tri(A)) B (side 0, A m x m) or alpha B op(tri(A)) (side 1, A n x n); C is not B
template <class T>
__device__ void trmm(int side, int upper, int trans, int unit, int m, int n, double are, double aim, const void *ap,
                     const T *A, long long lda, const T *B, long long ldb, T *C, long long ldc) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= m || j >= n) return;
    const T alpha = scalar<T>(are, aim, ap);
    T acc = zero<T>();
    if (!is_zero(alpha)) {
        const bool lower = (upper == 0) == (trans == 0);  // op(tri(A)) is lower triangular
        if (side == 0) {
            const long long lo = lower ? 0 : i, hi = lower ? i : m - 1;
            for (long long k = lo; k <= hi; ++k) acc = madd(tri_at(A, lda, upper, trans, unit, i, k), B[k + j * ldb], acc);
        } else {
            const long long lo = lower ? j : 0, hi = lower ? n - 1 : j;
            for (long long k = lo; k <= hi; ++k) acc = madd(B[i + k * ldb], tri_at(A, lda, upper, trans, unit, k, j), acc);
        }
    }
    C[i + j * ldc] = mul(alpha, acc);
}

// op(tri(A)) X = alpha B (side 0) or X op(tri(A)) = alpha B (side 1); X overwrites B
template <class T>
__device__ void trsm(int side, int upper, int trans, int unit, int m, int n, double are, double aim, const void *ap,
                     const T *A, long long lda, T *B, long long ldb) {
    const long long v = blockIdx.x * (long long)BLOCK + threadIdx.x;  // a column (side 0) or a row (side 1) of B
    const long long count = side == 0 ? n : m, len = side == 0 ? m : n;
    if (v >= count) return;
    const T alpha = scalar<T>(are, aim, ap);
    const long long step = side == 0 ? 1 : ldb;  // consecutive unknowns of this right-hand side
    T *x = side == 0 ? B + v * ldb : B + v;
    if (is_zero(alpha)) {
        for (long long r = 0; r < len; ++r) x[r * step] = zero<T>();
        return;
    }
    const bool lower = (upper == 0) == (trans == 0);
    // side 0 solves M x = b forward when M is lower; side 1 solves x M = b, i.e. M^T x = b: forward when M is upper
    const bool forward = side == 0 ? lower : !lower;
    for (long long s = 0; s < len; ++s) {
        const long long r = forward ? s : len - 1 - s;
        T acc = mul(alpha, x[r * step]);
        const long long lo = forward ? 0 : r + 1, hi = forward ? r : len;
        for (long long c = lo; c < hi; ++c) {
            const T a = side == 0 ? tri_at(A, lda, upper, trans, unit, r, c) : tri_at(A, lda, upper, trans, unit, c, r);
            acc = madd(neg(a), x[c * step], acc);
        }
        x[r * step] = unit ? acc : quot(acc, tri_at(A, lda, upper, trans, 0, r, r));
    }
}

// C = alpha op(A) + beta op(B), m x n
template <class T>
__device__ void geam(int ta, int tb, int m, int n, double are, double aim, const void *ap, const T *A, long long lda,
                     double bre, double bim, const void *bp, const T *B, long long ldb, T *C, long long ldc) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= m || j >= n) return;
    const T alpha = scalar<T>(are, aim, ap), beta = scalar<T>(bre, bim, bp);
    T r = zero<T>();
    if (!is_zero(alpha)) r = mul(alpha, op_at(A, lda, ta, i, j));
    if (!is_zero(beta)) r = madd(beta, op_at(B, ldb, tb, i, j), r);
    C[i + j * ldc] = r;
}

// C = diag(x) A (side 0) or A diag(x) (side 1); incx 0 repeats x[0], a negative one walks x from its end
template <class T>
__device__ void dgmm(int side, int m, int n, const T *A, long long lda, const T *x, long long incx, T *C,
                     long long ldc) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= m || j >= n) return;
    const T d = side == 0 ? x[at(i, m, incx)] : x[at(j, n, incx)];
    C[i + j * ldc] = mul(A[i + j * lda], d);
}

#define CM_LEVEL3_KERNELS(L, T)                                                                                     \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_symm_##L(                                          \
        int side, int upper, int herm, int m, int n, double are, double aim, const void *ap, const T *A,            \
        long long lda, const T *B, long long ldb, double bre, double bim, const void *bp, T *C, long long ldc) {    \
        symm<T>(side, upper, herm, m, n, are, aim, ap, A, lda, B, ldb, bre, bim, bp, C, ldc);                       \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_rank_k_##L(                                        \
        int kind, int upper, int trans, int n, int k, double are, double aim, const void *ap, const T *A,           \
        long long lda, const T *B, long long ldb, double bre, double bim, const void *bp, T *C, long long ldc) {    \
        rank_k<T>(kind, upper, trans, n, k, are, aim, ap, A, lda, B, ldb, bre, bim, bp, C, ldc);                    \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_trmm_##L(                                          \
        int side, int upper, int trans, int unit, int m, int n, double are, double aim, const void *ap,             \
        const T *A, long long lda, const T *B, long long ldb, T *C, long long ldc) {                                \
        trmm<T>(side, upper, trans, unit, m, n, are, aim, ap, A, lda, B, ldb, C, ldc);                              \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_trsm_##L(                                                \
        int side, int upper, int trans, int unit, int m, int n, double are, double aim, const void *ap,             \
        const T *A, long long lda, T *B, long long ldb) {                                                           \
        trsm<T>(side, upper, trans, unit, m, n, are, aim, ap, A, lda, B, ldb);                                      \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_geam_##L(                                          \
        int ta, int tb, int m, int n, double are, double aim, const void *ap, const T *A, long long lda,            \
        double bre, double bim, const void *bp, const T *B, long long ldb, T *C, long long ldc) {                   \
        geam<T>(ta, tb, m, n, are, aim, ap, A, lda, bre, bim, bp, B, ldb, C, ldc);                                  \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_dgmm_##L(                                          \
        int side, int m, int n, const T *A, long long lda, const T *x, long long incx, T *C, long long ldc) {       \
        dgmm<T>(side, m, n, A, lda, x, incx, C, ldc);                                                               \
    }

CM_LEVEL3_KERNELS(s, float)
CM_LEVEL3_KERNELS(d, double)
CM_LEVEL3_KERNELS(c, float2)
CM_LEVEL3_KERNELS(z, double2)
