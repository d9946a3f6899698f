/* CuMetal clean-room CUDA headers: host definitions of CUDA's inverse error functions (erfinv,
 * erfcinv, normcdfinv and their float forms), which CUDA's Math API lets host code call too (CCCL's
 * thrust::random::normal_distribution does, from a __host__ __device__ function). The device forms
 * are libdevice's (cumetal/math.h); these start from Giles' published single-precision
 * approximation ("Approximating the erfinv function", GPU Computing Gems, 2011) and refine it with
 * Newton steps on the C library's erf/erfc, so they are within a few ulp in double. */
#ifndef CUMETAL_HOST_INVERSE_ERF_H
#define CUMETAL_HOST_INVERSE_ERF_H

/* Giles' approximation of erfinv(1 - c) for c in [1e-10, 1] (float precision; it fails further out) */
static __host__ inline double __cm_erfcinv_guess(double c) {
    double w = -log(c * (2.0 - c)), p;
    if (w < 5.0) {
        w -= 2.5;
        p = 2.81022636e-08;
        p = 3.43273939e-07 + p * w;
        p = -3.5233877e-06 + p * w;
        p = -4.39150654e-06 + p * w;
        p = 0.00021858087 + p * w;
        p = -0.00125372503 + p * w;
        p = -0.00417768164 + p * w;
        p = 0.246640727 + p * w;
        p = 1.50140941 + p * w;
    } else {
        w = sqrt(w) - 3.0;
        p = -0.000200214257;
        p = 0.000100950558 + p * w;
        p = 0.00134934322 + p * w;
        p = -0.00367342844 + p * w;
        p = 0.00573950773 + p * w;
        p = -0.0076224613 + p * w;
        p = 0.00943887047 + p * w;
        p = 1.00167406 + p * w;
        p = 2.83297682 + p * w;
    }
    return p * (1.0 - c);
}

static __host__ inline double erfcinv(double c) {
    if (c != c) return c;
    if (c <= 0.0) return c == 0.0 ? HUGE_VAL : NAN;
    if (c >= 2.0) return c == 2.0 ? -HUGE_VAL : NAN;
    if (c > 1.0) return -erfcinv(2.0 - c); /* 2 - c is exact for c in [1, 2] */
    if (c < 1e-10) { /* the far tail: erfc(x) ~ e^(-x^2) / (x sqrt(pi)), then Newton on log erfc */
        const double l = -log(c);
        double x = sqrt(l);
        for (int i = 0; i < 3; i++) x = sqrt(l - log(x * 1.7724538509055159));
        for (int i = 0; i < 5; i++) {
            double e = erfc(x), step = (log(e) + l) * e / (-1.1283791670955126 * exp(-x * x));
            x -= step;
            if (fabs(step) <= 1e-17 * x) break;
        }
        return x;
    }
    double x = __cm_erfcinv_guess(c);
    for (int i = 0; i < 4; i++) { /* Newton on erfc(x) = c: erfc'(x) = -2/sqrt(pi) e^(-x^2) */
        double step = (erfc(x) - c) / (-1.1283791670955126 * exp(-x * x));
        x -= step;
        if (fabs(step) <= 1e-17 * fabs(x)) break;
    }
    return x;
}

static __host__ inline double erfinv(double y) {
    if (y != y) return y;
    if (y <= -1.0 || y >= 1.0) return y == 1.0 ? HUGE_VAL : y == -1.0 ? -HUGE_VAL : NAN;
    if (y == 0.0) return y;
    if (fabs(y) >= 0.5) return copysign(erfcinv(1.0 - fabs(y)), y); /* 1 - |y| is exact there */
    double x = __cm_erfcinv_guess(1.0 - y);
    for (int i = 0; i < 4; i++) { /* Newton on erf(x) = y */
        double step = (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
        x -= step;
        if (fabs(step) <= 1e-17 * fabs(x)) break;
    }
    return x;
}

static __host__ inline double normcdfinv(double p) { return -1.4142135623730951 * erfcinv(2.0 * p); }
static __host__ inline float erfcinvf(float c) { return (float)erfcinv((double)c); }
static __host__ inline float erfinvf(float y) { return (float)erfinv((double)y); }
static __host__ inline float normcdfinvf(float p) { return (float)normcdfinv((double)p); }

#endif
