// CuMetal's cuBLAS level-1/2 kernels and the f64/complex GEMMs for Apple devices (metal, air-sim,
// msl-sim): plain CUDA C++ compiled by CuMetal's own pipeline like any user kernel, loaded once per
// process (cumetal.libs.cublas.blas_kernels). The CPU devices keep OpenBLAS through numpy.
//
// Types: S = float, D = double, C = float2 (cuComplex), Z = double2 (cuDoubleComplex); column-major
// matrices, vectors with any increment (a negative one walks the vector from its far end, as cuBLAS
// defines). Scalars come by value (real and imaginary part) or, in device pointer mode, as a pointer
// read by the kernel. Rounding: real products accumulate with fma in index order per thread; complex
// products are re = fma(a.re, b.re, fma(-a.im, b.im, acc.re)), im = fma(a.re, b.im, fma(a.im, b.re,
// acc.im)); the reductions (dot, nrm2) add 256 per-thread partial sums in a fixed tree (deterministic,
// not numpy's order). nrm2 keeps a scaled sum of squares (LAPACK's dnrm2 scheme), so it neither
// overflows nor underflows where the norm itself is representable. beta == 0 does not read y or C;
// alpha == 0 does not read A, B or x (cuBLAS's rules). f64 on a Metal GPU is CuMetal's emulation
// (docs/fp64-policy.md): ~2^-45 relative error per operation instead of binary64's 2^-53.
#include "cublas_scalar.cuh"

// ------------------------------------------------------------------ level 1
template <class T>
__device__ void axpy(long long n, double are, double aim, const void *ap, const T *x, long long incx, T *y,
                     long long incy) {
    const T a = scalar<T>(are, aim, ap);
    if (is_zero(a)) return;
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK) {
        T *yi = y + at(i, n, incy);
        *yi = madd(a, x[at(i, n, incx)], *yi);
    }
}

template <class A, class T>
__device__ void scal(long long n, double are, double aim, const void *ap, T *x, long long incx) {
    const A a = scalar<A>(are, aim, ap);
    for (long long i = blockIdx.x * (long long)BLOCK + threadIdx.x; i < n; i += (long long)gridDim.x * BLOCK) {
        T *xi = x + i * incx;
        *xi = mul(a, *xi);
    }
}

// one block: each thread sums a strided part in index order, then a fixed tree over the block
template <class T>
__device__ void dot(long long n, const T *x, long long incx, const T *y, long long incy, int conj, T *result) {
    __shared__ T part[BLOCK];
    T acc = zero<T>();
    for (long long i = threadIdx.x; i < n; i += BLOCK) acc = madd(conj_if(x[at(i, n, incx)], conj), y[at(i, n, incy)], acc);
    part[threadIdx.x] = acc;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) part[threadIdx.x] = add(part[threadIdx.x], part[threadIdx.x + s]);
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = part[0];
}

// scaled sum of squares: the norm is scale * sqrt(ssq), with every |v| <= scale
template <class R> __device__ __forceinline__ void ssq_add(R v, R &scale, R &ssq) {
    v = v < 0 ? -v : v;
    if (v == 0) return;
    if (scale < v) {
        const R r = scale / v;
        ssq = (R)1 + ssq * r * r;
        scale = v;
    } else {
        const R r = v / scale;
        ssq += r * r;
    }
}
template <class R> __device__ __forceinline__ void ssq_merge(R s2, R q2, R &scale, R &ssq) {
    if (s2 == 0) return;
    if (scale < s2) {
        const R r = scale / s2;
        ssq = q2 + ssq * r * r;
        scale = s2;
    } else {
        const R r = s2 / scale;
        ssq += q2 * r * r;
    }
}
__device__ __forceinline__ void ssq_elem(float v, float &s, float &q) { ssq_add(v, s, q); }
__device__ __forceinline__ void ssq_elem(double v, double &s, double &q) { ssq_add(v, s, q); }
__device__ __forceinline__ void ssq_elem(float2 v, float &s, float &q) { ssq_add(v.x, s, q); ssq_add(v.y, s, q); }
__device__ __forceinline__ void ssq_elem(double2 v, double &s, double &q) { ssq_add(v.x, s, q); ssq_add(v.y, s, q); }

template <class T>
__device__ void nrm2(long long n, const T *x, long long incx, typename Real<T>::type *result) {
    typedef typename Real<T>::type R;
    __shared__ R scales[BLOCK], sums[BLOCK];
    R scale = 0, ssq = 0;  // scale == 0: nothing non-zero seen yet
    for (long long i = threadIdx.x; i < n; i += BLOCK) ssq_elem(x[i * incx], scale, ssq);
    scales[threadIdx.x] = scale;
    sums[threadIdx.x] = ssq;
    __syncthreads();
    for (int s = BLOCK / 2; s > 0; s >>= 1) {
        if (threadIdx.x < s) {
            R sc = scales[threadIdx.x], q = sums[threadIdx.x];
            ssq_merge(scales[threadIdx.x + s], sums[threadIdx.x + s], sc, q);
            scales[threadIdx.x] = sc;
            sums[threadIdx.x] = q;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) *result = scales[0] == 0 ? (R)0 : scales[0] * sqrt(sums[0]);
}

// ------------------------------------------------------------------ level 2
// y = alpha op(A) x + beta y, one thread per element of y; trans 0 = N, 1 = T, 2 = C
template <class T>
__device__ void gemv(int trans, int m, int n, double are, double aim, const void *ap, const T *A, long long lda,
                     const T *x, long long incx, double bre, double bim, const void *bp, T *y, long long incy) {
    const long long i = blockIdx.x * (long long)BLOCK + threadIdx.x;
    const long long ly = trans == 0 ? m : n, lx = trans == 0 ? n : m;
    if (i >= ly) return;
    const T alpha = scalar<T>(are, aim, ap), beta = scalar<T>(bre, bim, bp);
    T acc = zero<T>();
    if (!is_zero(alpha)) {
        if (trans == 0) {
            for (long long j = 0; j < lx; ++j) acc = madd(A[i + j * lda], x[at(j, lx, incx)], acc);
        } else {
            for (long long j = 0; j < lx; ++j) acc = madd(conj_if(A[j + i * lda], trans == 2), x[at(j, lx, incx)], acc);
        }
    }
    T *yi = y + at(i, ly, incy);
    T r = mul(alpha, acc);
    if (!is_zero(beta)) r = madd(beta, *yi, r);
    *yi = r;
}

// A += alpha x y^T (y^H when conj), one thread per element of A
template <class T>
__device__ void ger(int m, int n, double are, double aim, const void *ap, const T *x, long long incx, const T *y,
                    long long incy, T *A, long long lda, int conj) {
    const int i = blockIdx.x * TILE + threadIdx.x, j = blockIdx.y * TILE + threadIdx.y;
    if (i >= m || j >= n) return;
    const T alpha = scalar<T>(are, aim, ap);
    if (is_zero(alpha)) return;
    T *a = A + i + j * (long long)lda;
    *a = madd(mul(alpha, x[at(i, m, incx)]), conj_if(y[at(j, n, incy)], conj), *a);
}

// ------------------------------------------------------------------ level 3: D, C, Z GEMM
// C = alpha op(A) op(B) + beta C; 16 x 16 tiles staged through shared memory, accumulated in k order
template <class T>
__device__ void gemm(int ta, int tb, int m, int n, int k, double are, double aim, const void *ap, const T *A,
                     long long lda, const T *B, long long ldb, double bre, double bim, const void *bp, T *C,
                     long long ldc) {
    __shared__ T As[TILE][TILE + 1], Bs[TILE][TILE + 1];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int row = blockIdx.x * TILE + tx, col = blockIdx.y * TILE + ty;
    const T alpha = scalar<T>(are, aim, ap), beta = scalar<T>(bre, bim, bp);
    T acc = zero<T>();
    if (!is_zero(alpha)) {
        for (int k0 = 0; k0 < k; k0 += TILE) {
            const int ka = k0 + ty, kb = k0 + tx;  // As[ty][tx] = op(A)(row, ka); Bs[ty][tx] = op(B)(kb, col)
            T a = zero<T>(), b = zero<T>();
            if (row < m && ka < k) a = conj_if(ta == 0 ? A[row + ka * lda] : A[ka + row * lda], ta == 2);
            if (kb < k && col < n) b = conj_if(tb == 0 ? B[kb + col * ldb] : B[col + kb * ldb], tb == 2);
            As[ty][tx] = a;
            Bs[ty][tx] = b;
            __syncthreads();
            for (int kk = 0; kk < TILE; ++kk) acc = madd(As[kk][tx], Bs[ty][kk], acc);
            __syncthreads();
        }
    }
    if (row < m && col < n) {
        T *c = C + row + col * ldc;
        T r = mul(alpha, acc);
        if (!is_zero(beta)) r = madd(beta, *c, r);
        *c = r;
    }
}

// ------------------------------------------------------------------ entry points, one per type
#define CM_BLAS_KERNELS(L, T)                                                                                       \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_axpy_##L(long long n, double are, double aim,            \
                                                                    const void *ap, const T *x, long long incx,     \
                                                                    T *y, long long incy) {                         \
        axpy<T>(n, are, aim, ap, x, incx, y, incy);                                                                 \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_scal_##L(long long n, double are, double aim,            \
                                                                    const void *ap, T *x, long long incx) {         \
        scal<T, T>(n, are, aim, ap, x, incx);                                                                       \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_dot_##L(long long n, const T *x, long long incx,          \
                                                                   const T *y, long long incy, int conj,            \
                                                                   T *result) {                                     \
        dot<T>(n, x, incx, y, incy, conj, result);                                                                  \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_nrm2_##L(long long n, const T *x, long long incx,         \
                                                                    Real<T>::type *result) {                        \
        nrm2<T>(n, x, incx, result);                                                                                \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(BLOCK) cm_gemv_##L(                                                \
        int trans, int m, int n, double are, double aim, const void *ap, const T *A, long long lda, const T *x,      \
        long long incx, double bre, double bim, const void *bp, T *y, long long incy) {                             \
        gemv<T>(trans, m, n, are, aim, ap, A, lda, x, incx, bre, bim, bp, y, incy);                                 \
    }                                                                                                               \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_ger_##L(                                           \
        int m, int n, double are, double aim, const void *ap, const T *x, long long incx, const T *y,               \
        long long incy, T *A, long long lda, int conj) {                                                            \
        ger<T>(m, n, are, aim, ap, x, incx, y, incy, A, lda, conj);                                                 \
    }

CM_BLAS_KERNELS(s, float)
CM_BLAS_KERNELS(d, double)
CM_BLAS_KERNELS(c, float2)
CM_BLAS_KERNELS(z, double2)

// Csscal, Zdscal: a real alpha
extern "C" __global__ void __launch_bounds__(BLOCK) cm_scal_cs(long long n, double are, double aim, const void *ap,
                                                               float2 *x, long long incx) {
    scal<float, float2>(n, are, aim, ap, x, incx);
}
extern "C" __global__ void __launch_bounds__(BLOCK) cm_scal_zd(long long n, double are, double aim, const void *ap,
                                                               double2 *x, long long incx) {
    scal<double, double2>(n, are, aim, ap, x, incx);
}

#define CM_GEMM_KERNEL(L, T)                                                                                        \
    extern "C" __global__ void __launch_bounds__(TILE * TILE) cm_gemm_##L(                                          \
        int ta, int tb, int m, int n, int k, double are, double aim, const void *ap, const T *A, long long lda,      \
        const T *B, long long ldb, double bre, double bim, const void *bp, T *C, long long ldc) {                   \
        gemm<T>(ta, tb, m, n, k, are, aim, ap, A, lda, B, ldb, bre, bim, bp, C, ldc);                               \
    }

CM_GEMM_KERNEL(d, double)
CM_GEMM_KERNEL(c, float2)
CM_GEMM_KERNEL(z, double2)
