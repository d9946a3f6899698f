// CUDA math functions at edge values: signed zeros, infinities, NaN, subnormals, poles, huge
// arguments of the trigonometric functions, overflow thresholds of exp, integer arguments of
// pow/tgamma/lgamma, frexp/ldexp/modf/remquo outputs, float and double. Printed as bit patterns.
#include <cstdio>
#include <cmath>
#include <limits>

#define F1(fn) fn(x)
__global__ void f32(const float *xs, const float *ys, unsigned *out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    float x = xs[i], y = ys[i];
    unsigned *o = out + i * 40;
    int k = 0, e = 0, q = 0;
    float ip;
    o[k++] = __float_as_uint(sinf(x));    o[k++] = __float_as_uint(cosf(x));
    o[k++] = __float_as_uint(tanf(x));    o[k++] = __float_as_uint(expf(x));
    o[k++] = __float_as_uint(exp2f(x));   o[k++] = __float_as_uint(expm1f(x));
    o[k++] = __float_as_uint(logf(x));    o[k++] = __float_as_uint(log1pf(x));
    o[k++] = __float_as_uint(log2f(x));   o[k++] = __float_as_uint(sqrtf(x));
    o[k++] = __float_as_uint(rsqrtf(x));  o[k++] = __float_as_uint(cbrtf(x));
    o[k++] = __float_as_uint(powf(x, y)); o[k++] = __float_as_uint(atan2f(x, y));
    o[k++] = __float_as_uint(hypotf(x, y)); o[k++] = __float_as_uint(fmodf(x, y));
    o[k++] = __float_as_uint(remainderf(x, y)); o[k++] = __float_as_uint(remquof(x, y, &q)); o[k++] = (unsigned)q;
    o[k++] = __float_as_uint(frexpf(x, &e)); o[k++] = (unsigned)e;
    o[k++] = __float_as_uint(ldexpf(x, 100)); o[k++] = __float_as_uint(modff(x, &ip)); o[k++] = __float_as_uint(ip);
    o[k++] = __float_as_uint(tgammaf(x)); o[k++] = __float_as_uint(lgammaf(x));
    o[k++] = __float_as_uint(erff(x));    o[k++] = __float_as_uint(erfcf(x));
    o[k++] = __float_as_uint(asinf(x));   o[k++] = __float_as_uint(acoshf(x));
    o[k++] = __float_as_uint(atanhf(x));  o[k++] = __float_as_uint(sinpif(x));
    o[k++] = __float_as_uint(nextafterf(x, y)); o[k++] = __float_as_uint(fmaf(x, y, -1.0f));
    o[k++] = __float_as_uint(fminf(x, y)); o[k++] = __float_as_uint(copysignf(1.0f, x));
    o[k++] = (unsigned)ilogbf(x);         o[k++] = (unsigned)(isnan(x) | (isinf(x) << 1) | (signbit(x) ? 4 : 0) | (isfinite(x) << 3));
    o[k++] = __float_as_uint(truncf(x) + rintf(x) * 2.0f); o[k++] = (unsigned)lroundf(fminf(fmaxf(x, -1e9f), 1e9f));
}

__global__ void f64(const double *xs, const double *ys, unsigned long long *out, int n) {
    int i = threadIdx.x;
    if (i >= n) return;
    double x = xs[i], y = ys[i];
    unsigned long long *o = out + i * 20;
    int k = 0, e = 0;
    o[k++] = __double_as_longlong(sin(x));  o[k++] = __double_as_longlong(cos(x));
    o[k++] = __double_as_longlong(exp(x));  o[k++] = __double_as_longlong(log(x));
    o[k++] = __double_as_longlong(sqrt(x)); o[k++] = __double_as_longlong(pow(x, y));
    o[k++] = __double_as_longlong(atan2(x, y)); o[k++] = __double_as_longlong(fmod(x, y));
    o[k++] = __double_as_longlong(tgamma(x)); o[k++] = __double_as_longlong(lgamma(x));
    o[k++] = __double_as_longlong(cbrt(x)); o[k++] = __double_as_longlong(rsqrt(x));
    o[k++] = __double_as_longlong(frexp(x, &e)); o[k++] = (unsigned long long)e;
    o[k++] = __double_as_longlong(erfcinv(x)); o[k++] = __double_as_longlong(hypot(x, y));
    o[k++] = __double_as_longlong(x / y);   o[k++] = __double_as_longlong(fma(x, y, x));
    o[k++] = __double_as_longlong(log1p(x)); o[k++] = __double_as_longlong(expm1(x));
}

int main() {
    const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
    float xs[] = {0.0f, -0.0f, 1.0f, -1.0f, inf, -inf, nan, 1e-45f, -1.17549435e-38f, 88.7228394f, 88.7228470f,
                  -103.97f, 1e30f, 3.14159265f, 1.5707964f, 105414.35f, -2.0f, -2.5f, 0.5f, 2.0f, 1e-7f,
                  0.999999f, 16777217.0f, 100.0f, -170.5f, 35.0f, 1.0e-30f, 126.0f, -0.5f, 7.0f};
    float ys[] = {1.0f, -1.0f, inf, -inf, 0.0f, -0.0f, 2.0f, 0.5f, 3.0f, nan, -2.0f, 1e-45f, 7.5f,
                  -3.0f, 1e30f, 0.25f, inf, 2.5f, -0.5f, 1024.0f, -1e-7f, 3.0f, 1.0f, 0.0f, -inf, 1.0f, 2.0f, -0.0f, 3.0f, 0.3f};
    const int n = sizeof xs / sizeof xs[0];
    float *dx, *dy; unsigned *d_o;
    cudaMalloc(&dx, sizeof xs); cudaMalloc(&dy, sizeof ys); cudaMalloc(&d_o, n * 40 * 4);
    cudaMemcpy(dx, xs, sizeof xs, cudaMemcpyHostToDevice);
    cudaMemcpy(dy, ys, sizeof ys, cudaMemcpyHostToDevice);
    cudaMemset(d_o, 0, n * 40 * 4);
    f32<<<1, 32>>>(dx, dy, d_o, n);
    static unsigned o[n * 40];
    cudaMemcpy(o, d_o, sizeof o, cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) {
        printf("f32 %2d", i);
        for (int j = 0; j < 40; ++j) printf(" %08x", o[i * 40 + j]);
        printf("\n");
    }
    const double dinf = std::numeric_limits<double>::infinity(), dnan = std::numeric_limits<double>::quiet_NaN();
    double dxs[] = {0.0, -0.0, 1.0, -1.0, dinf, -dinf, dnan, 4.9e-324, 709.782712893384, 709.7827128933841,
                    -745.2, 1e300, 3.141592653589793, 1e22, -2.0, -2.5, 0.5, 171.62, 2.0, 1e-300, 1.5, 1.9999999999};
    double dys[] = {1.0, -1.0, dinf, -dinf, 0.0, -0.0, 2.0, 0.5, 3.0, dnan, -2.0, 4.9e-324, 7.5, -3.0, 1e300,
                    0.25, dinf, 2.5, -0.5, 1024.0, -1e-300, 0.3};
    const int m = sizeof dxs / sizeof dxs[0];
    double *ddx, *ddy; unsigned long long *dd_o;
    cudaMalloc(&ddx, sizeof dxs); cudaMalloc(&ddy, sizeof dys); cudaMalloc(&dd_o, m * 20 * 8);
    cudaMemcpy(ddx, dxs, sizeof dxs, cudaMemcpyHostToDevice);
    cudaMemcpy(ddy, dys, sizeof dys, cudaMemcpyHostToDevice);
    f64<<<1, 32>>>(ddx, ddy, dd_o, m);
    static unsigned long long od[m * 20];
    cudaMemcpy(od, dd_o, sizeof od, cudaMemcpyDeviceToHost);
    for (int i = 0; i < m; ++i) {
        printf("f64 %2d", i);
        for (int j = 0; j < 20; ++j) printf(" %016llx", od[i * 20 + j]);
        printf("\n");
    }
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
