// CuMetal's remaining cuBLAS level-1/2 kernels for Apple devices (metal, air-sim, msl-sim): copy, swap,
// asum, amax/amin, rot (level 1) and symv/hemv, syr/her/syr2/her2, trmv/trsv (level 2) in S, D, C, Z,
// loaded once per process (cumetal.libs.cublas.blas_more_kernels); the CPU devices keep numpy.
//
// Vectors take any increment (negative: from the far end; 0: one element repeated). Reductions (asum,
// amax/amin) are one block of 256: each thread scans a strided part in index order, then a fixed tree.
// amax/amin use |re| + |im| as cuBLAS does, return the 1-based index of the first extreme element, and
// treat NaN as numpy's argmax/argmin do (the first NaN wins), so every CuMetal device answers alike.
// Level 2: one thread per element of the result; the Hermitian updates leave A's diagonal real; trsv
// is one block solving column by column (x_r /= M(r,r), then every later x_c -= M(c,r) x_r in parallel),
// so each x_c accumulates its terms in index order.
#include "cublas_scalar.cuh"

__device__ __forceinline__ float magnitude(float a) { return fabsf(a); }
__device__ __forceinline__ double magnitude(double a) { return fabs(a); }
__device__ __forceinline__ float magnitude(float2 a) { return fabsf(a.x) + fabsf(a.y); }
__device__ __forceinline__ double magnitude(double2 a) { return fabs(a.x) + fabs(a.y); }

// ------------------------------------------------------------------ level 1
template <class T>
__device__ void copy(long long n, const T *x, long long incx, T *y, long long incy) {
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK)
        y[at(i, n, incy)] = x[at(i, n, incx)];
}

template <class T>
__device__ void swap(long long n, T *x, long long incx, T *y, long long incy) {
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK) {
        T *a = x + at(i, n, incx), *b = y + at(i, n, incy);
        const T t = *a;
        *a = *b;
        *b = t;
    }
}

template <class T>
__device__ void asum(long long n, const T *x, long long incx, typename Real<T>::type *result) {
    typedef typename Real<T>::type R;
    __shared__ R part[BLOCK];
    R acc = 0;
    for (long long i = threadIdx.x; i < n; i += BLOCK) acc += magnitude(x[i * incx]);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = part[0];
}

// whether (v, i) beats the best (b, j) so far: NaN first, then larger (smaller) magnitude, then the lower index
template <class R> __device__ __forceinline__ bool better(R v, long long i, R b, long long j, int smallest) {
    if (j < 0) return true;
    const bool vn = v != v, bn = b != b;
    if (vn || bn) return vn && (!bn || i < j);
    if (v != b) return smallest ? v < b : v > b;
    return i < j;
}

template <class T>
__device__ void amax(long long n, const T *x, long long incx, int smallest, int *result) {
    typedef typename Real<T>::type R;
    __shared__ R vals[BLOCK];
    __shared__ long long idx[BLOCK];
    R best = 0;
    long long at_best = -1;
    for (long long i = threadIdx.x; i < n; i += BLOCK) {
        const R v = magnitude(x[i * incx]);
        if (better(v, i, best, at_best, smallest)) {
            best = v;
            at_best = i;
        }
    }
    vals[threadIdx.x] = best;
    idx[threadIdx.x] = at_best;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s && idx[threadIdx.x + s] >= 0 &&
            better(vals[threadIdx.x + s], idx[threadIdx.x + s], vals[threadIdx.x], idx[threadIdx.x], smallest)) {
            vals[threadIdx.x] = vals[threadIdx.x + s];
            idx[threadIdx.x] = idx[threadIdx.x + s];
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = (int)(idx[0] + 1);  // 0 when n == 0
}

// x, y := c x + s y, c y - conj(s) x; c real, s real (real_s) or of the vectors' type
template <class T>
__device__ void rot(long long n, T *x, long long incx, T *y, long long incy, double cre, const void *cp, double sre,
                    double sim, const void *sp, int real_s) {
    const T c = real_scalar<T>(cre, cp);
    const T s = real_s ? real_scalar<T>(sre, sp) : scalar<T>(sre, sim, sp);
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK) {
        T *a = x + at(i, n, incx), *b = y + at(i, n, incy);
        const T xv = *a, yv = *b;
        *a = madd(s, yv, mul(c, xv));
        *b = madd(neg(conj_if(s, 1)), xv, mul(c, yv));
    }
}

// ------------------------------------------------------------------ level 2
// y = alpha A x + beta y, A symmetric (Hermitian), one thread per element of y
template <class T>
__device__ void symv(int upper, int herm, int n, double are, double aim, const void *ap, const T *A, long long lda,
                     const T *x, long long incx, double bre, double bim, const void *bp, T *y, long long incy) {
    const long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    if (i >= n) return;
    const T alpha = scalar<T>(are, aim, ap), beta = scalar<T>(bre, bim, bp);
    T acc = zero<T>();
    if (!is_zero(alpha))
        for (long long j = 0; j < n; ++j) acc = madd(sym_at(A, lda, upper, herm, i, j), x[at(j, n, incx)], acc);
    T *yi = y + at(i, n, incy);
    T r = mul(alpha, acc);
    if (!is_zero(beta)) r = madd(beta, *yi, r);
    *yi = r;
}

// syr: A += alpha x x^T; her: alpha x x^H (alpha real); syr2: alpha (x y^T + y x^T); her2: alpha x y^H +
// conj(alpha) y x^H. Only the uplo triangle is written; one thread per element of A.
template <class T>
__device__ void syr(int upper, int two, int herm, int n, double are, double aim, const void *ap, const T *x,
                    long long incx, const T *y, long long incy, T *A, long long lda) {
    const long long i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= n || j >= n || (upper ? i > j : i < j)) return;
    const T alpha = herm && !two ? real_scalar<T>(are, ap) : scalar<T>(are, aim, ap);
    T *a = A + i + j * lda;
    T r = *a;
    if (!is_zero(alpha)) {
        const T xi = x[at(i, n, incx)], xj = x[at(j, n, incx)];
        if (!two) {
            r = madd(mul(alpha, xi), conj_if(xj, herm), r);
        } else {
            const T yi = y[at(i, n, incy)], yj = y[at(j, n, incy)];
            r = madd(mul(alpha, xi), conj_if(yj, herm), r);
            r = madd(mul(conj_if(alpha, herm), yi), conj_if(xj, herm), r);
        }
    }
    if (herm && i == j) r = real_only(r);
    *a = r;
}

// out = op(tri(A)) x (trmv's product into a scratch vector; the caller copies it back into x)
template <class T>
__device__ void trmv(int upper, int trans, int unit, int n, const T *A, long long lda, const T *x, long long incx,
                     T *out) {
    const long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    if (i >= n) return;
    const bool lower = (upper == 0) == (trans == 0);
    const long long lo = lower ? 0 : i, hi = lower ? i : n - 1;
    T acc = zero<T>();
    for (long long k = lo; k <= hi; ++k) acc = madd(tri_at(A, lda, upper, trans, unit, i, k), x[at(k, n, incx)], acc);
    out[i] = acc;
}

// x := op(tri(A))^-1 x, one block of BLOCK threads
template <class T>
__device__ void trsv(int upper, int trans, int unit, int n, const T *A, long long lda, T *x, long long incx) {
    const bool forward = (upper == 0) == (trans == 0);  // op(tri(A)) lower: forward substitution
    for (long long s = 0; s < n; ++s) {
        const long long r = forward ? s : n - 1 - s;
        T *xr = x + at(r, n, incx);
        if (threadIdx.x == 0 && !unit) *xr = quot(*xr, tri_at(A, lda, upper, trans, 0, r, r));
        __syncthreads();
        const T v = *xr;
        const long long lo = forward ? r + 1 : 0, hi = forward ? n : r;
        for (long long c = lo + threadIdx.x; c < hi; c += BLOCK) {
            T *xc = x + at(c, n, incx);
            *xc = madd(neg(tri_at(A, lda, upper, trans, unit, c, r)), v, *xc);
        }
        __syncthreads();
    }
}

#define CM_BLAS_MORE_KERNELS(L, T)                                                                                  \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_copy_##L(long long n, const T *x, long long incx, T *y,   \
                                                                    long long incy) {                               \
        copy<T>(n, x, incx, y, incy);                                                                               \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_swap_##L(long long n, T *x, long long incx, T *y,         \
                                                                    long long incy) {                               \
        swap<T>(n, x, incx, y, incy);                                                                               \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_asum_##L(long long n, const T *x, long long incx,         \
                                                                    Real<T>::type *result) {                        \
        asum<T>(n, x, incx, result);                                                                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_amax_##L(long long n, const T *x, long long incx,         \
                                                                    int smallest, int *result) {                    \
        amax<T>(n, x, incx, smallest, result);                                                                      \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_rot_##L(long long n, T *x, long long incx, T *y,          \
                                                                   long long incy, double cre, const void *cp,      \
                                                                   double sre, double sim, const void *sp,          \
                                                                   int real_s) {                                    \
        rot<T>(n, x, incx, y, incy, cre, cp, sre, sim, sp, real_s);                                                 \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_symv_##L(                                                \
        int upper, int herm, int n, double are, double aim, const void *ap, const T *A, long long lda, const T *x,  \
        long long incx, double bre, double bim, const void *bp, T *y, long long incy) {                             \
        symv<T>(upper, herm, n, are, aim, ap, A, lda, x, incx, bre, bim, bp, y, incy);                              \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_syr_##L(                                           \
        int upper, int two, int herm, int n, double are, double aim, const void *ap, const T *x, long long incx,    \
        const T *y, long long incy, T *A, long long lda) {                                                          \
        syr<T>(upper, two, herm, n, are, aim, ap, x, incx, y, incy, A, lda);                                        \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_trmv_##L(int upper, int trans, int unit, int n,          \
                                                                    const T *A, long long lda, const T *x,          \
                                                                    long long incx, T *out) {                       \
        trmv<T>(upper, trans, unit, n, A, lda, x, incx, out);                                                       \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_trsv_##L(int upper, int trans, int unit, int n,          \
                                                                    const T *A, long long lda, T *x,                \
                                                                    long long incx) {                               \
        trsv<T>(upper, trans, unit, n, A, lda, x, incx);                                                            \
    }

CM_BLAS_MORE_KERNELS(s, float)
CM_BLAS_MORE_KERNELS(d, double)
CM_BLAS_MORE_KERNELS(c, float2)
CM_BLAS_MORE_KERNELS(z, double2)
