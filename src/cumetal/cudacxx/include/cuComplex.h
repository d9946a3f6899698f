/* CuMetal clean-room CUDA headers: cuComplex.h — single and double precision complex numbers as
 * the CUDA libraries use them (cuFloatComplex is float2, cuDoubleComplex is double2), with the
 * documented helper functions. Written from the cuBLAS documentation. */
#ifndef CUMETAL_CUCOMPLEX_H
#define CUMETAL_CUCOMPLEX_H

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

#endif
