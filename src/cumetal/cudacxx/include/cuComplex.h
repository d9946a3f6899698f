/* CuMetal clean-room CUDA headers: cuComplex.h — single and double precision complex numbers as
 * the CUDA libraries use them (cuFloatComplex is float2, cuDoubleComplex is double2), with the
 * documented helper functions. Written from the cuBLAS documentation. */
#ifndef CUMETAL_CUCOMPLEX_H
#define CUMETAL_CUCOMPLEX_H

#include <math.h>
#if defined(__cplusplus)
#include "vector_types.h"
#endif

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#if defined(__cplusplus)
#define CUMETAL_CX_FN static inline __host__ __device__
#else
#define CUMETAL_CX_FN static inline
#endif

#if defined(__cplusplus)
typedef float2 cuFloatComplex;
typedef double2 cuDoubleComplex;
#else
/* C: the same layout as float2 / double2 (8- and 16-byte aligned pairs) */
typedef struct __attribute__((aligned(8))) { float x, y; } cuFloatComplex;
typedef struct __attribute__((aligned(16))) { double x, y; } cuDoubleComplex;
#endif
typedef cuFloatComplex cuComplex;

CUMETAL_CX_FN float cuCrealf(cuFloatComplex x) { return x.x; }
CUMETAL_CX_FN float cuCimagf(cuFloatComplex x) { return x.y; }
CUMETAL_CX_FN cuFloatComplex make_cuFloatComplex(float r, float i) { cuFloatComplex z; z.x = r; z.y = i; return z; }
CUMETAL_CX_FN cuComplex make_cuComplex(float r, float i) { return make_cuFloatComplex(r, i); }
CUMETAL_CX_FN cuFloatComplex cuConjf(cuFloatComplex x) { return make_cuFloatComplex(x.x, -x.y); }
CUMETAL_CX_FN cuFloatComplex cuCaddf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x + b.x, a.y + b.y); }
CUMETAL_CX_FN cuFloatComplex cuCsubf(cuFloatComplex a, cuFloatComplex b) { return make_cuFloatComplex(a.x - b.x, a.y - b.y); }
CUMETAL_CX_FN cuFloatComplex cuCmulf(cuFloatComplex a, cuFloatComplex b) {
    return make_cuFloatComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}
CUMETAL_CX_FN double cuCreal(cuDoubleComplex x) { return x.x; }
CUMETAL_CX_FN double cuCimag(cuDoubleComplex x) { return x.y; }
CUMETAL_CX_FN cuDoubleComplex make_cuDoubleComplex(double r, double i) { cuDoubleComplex z; z.x = r; z.y = i; return z; }
CUMETAL_CX_FN cuDoubleComplex cuConj(cuDoubleComplex x) { return make_cuDoubleComplex(x.x, -x.y); }
CUMETAL_CX_FN cuDoubleComplex cuCadd(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x + b.x, a.y + b.y); }
CUMETAL_CX_FN cuDoubleComplex cuCsub(cuDoubleComplex a, cuDoubleComplex b) { return make_cuDoubleComplex(a.x - b.x, a.y - b.y); }
CUMETAL_CX_FN cuDoubleComplex cuCmul(cuDoubleComplex a, cuDoubleComplex b) {
    return make_cuDoubleComplex(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}

/* |z| without overflow or underflow in the squares: the larger part times sqrt(1 + (smaller/larger)^2) */
CUMETAL_CX_FN float cuCabsf(cuFloatComplex x) {
    float a = x.x < 0.0f ? -x.x : x.x, b = x.y < 0.0f ? -x.y : x.y;
    float hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == 0.0f || hi > 3.402823466e+38f || lo > 3.402823466e+38f) return hi + lo;
    float q = lo / hi;
    return hi * sqrtf(1.0f + q * q);
}
/* a / b with both scaled by 1/(|b.x| + |b.y|) first, keeping the intermediate squares in range */
CUMETAL_CX_FN cuFloatComplex cuCdivf(cuFloatComplex a, cuFloatComplex b) {
    float s = (b.x < 0.0f ? -b.x : b.x) + (b.y < 0.0f ? -b.y : b.y), r = 1.0f / s;
    float ar = a.x * r, ai = a.y * r, br = b.x * r, bi = b.y * r, d = 1.0f / (br * br + bi * bi);
    return make_cuFloatComplex((ar * br + ai * bi) * d, (ai * br - ar * bi) * d);
}
/* x * y + d */
CUMETAL_CX_FN cuFloatComplex cuCfmaf(cuFloatComplex x, cuFloatComplex y, cuFloatComplex d) {
    return make_cuFloatComplex(-(x.y * y.y) + (x.x * y.x + d.x), x.y * y.x + (x.x * y.y + d.y));
}
CUMETAL_CX_FN double cuCabs(cuDoubleComplex x) {
    double a = x.x < 0.0 ? -x.x : x.x, b = x.y < 0.0 ? -x.y : x.y;
    double hi = a > b ? a : b, lo = a > b ? b : a;
    if (hi == 0.0 || hi > 1.7976931348623157e+308 || lo > 1.7976931348623157e+308) return hi + lo;
    double q = lo / hi;
    return hi * sqrt(1.0 + q * q);
}
CUMETAL_CX_FN cuDoubleComplex cuCdiv(cuDoubleComplex a, cuDoubleComplex b) {
    double s = (b.x < 0.0 ? -b.x : b.x) + (b.y < 0.0 ? -b.y : b.y), r = 1.0 / s;
    double ar = a.x * r, ai = a.y * r, br = b.x * r, bi = b.y * r, d = 1.0 / (br * br + bi * bi);
    return make_cuDoubleComplex((ar * br + ai * bi) * d, (ai * br - ar * bi) * d);
}
CUMETAL_CX_FN cuDoubleComplex cuCfma(cuDoubleComplex x, cuDoubleComplex y, cuDoubleComplex d) {
    return make_cuDoubleComplex(-(x.y * y.y) + (x.x * y.x + d.x), x.y * y.x + (x.x * y.y + d.y));
}
CUMETAL_CX_FN cuDoubleComplex cuComplexFloatToDouble(cuFloatComplex c) {
    return make_cuDoubleComplex((double)c.x, (double)c.y);
}
CUMETAL_CX_FN cuFloatComplex cuComplexDoubleToFloat(cuDoubleComplex c) {
    return make_cuFloatComplex((float)c.x, (float)c.y);
}

#endif
