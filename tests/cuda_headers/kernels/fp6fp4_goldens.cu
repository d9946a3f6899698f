// cuda_fp6.h, cuda_fp4.h and the e8m0 part of cuda_fp8.h (CUDA 12.8+) through their documented API.
// Recorded on an NVIDIA GPU with NVIDIA's headers (scripts/make_cuda_fp8_goldens.py): on sm_90 those
// conversions are the headers' own arithmetic, the reference for CuMetal's fp6/fp4/ue8m0 cvt and headers.
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

#define NSMALL 16
extern "C" __global__ void small_from_float(const float *fs, unsigned char *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float f = fs[i];
    // the fp6/fp4 conversions take cudaRoundNearest and cudaRoundZero (others assert), e8m0 Zero and PosInf
    const cudaRoundMode modes[2] = {cudaRoundNearest, cudaRoundZero};
    unsigned char *r = o + NSMALL * i;
    for (int m = 0; m < 2; ++m) {
        r[m] = __nv_cvt_float_to_fp6(f, __NV_E2M3, modes[m]);
        r[2 + m] = __nv_cvt_float_to_fp6(f, __NV_E3M2, modes[m]);
        r[4 + m] = __nv_cvt_float_to_fp4(f, __NV_E2M1, modes[m]);
        r[6 + m] = 0;
        r[8 + m] = 0;
        r[10 + m] = 0;
    }
    r[12] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
    r[13] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
    r[14] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
    r[15] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
}

extern "C" __global__ void small_to(unsigned short *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned char x = (unsigned char)i;
    o[4 * i] = __nv_cvt_fp6_to_halfraw(x, __NV_E2M3).x;
    o[4 * i + 1] = __nv_cvt_fp6_to_halfraw(x, __NV_E3M2).x;
    o[4 * i + 2] = __nv_cvt_fp4_to_halfraw(x, __NV_E2M1).x;
    o[4 * i + 3] = __nv_cvt_e8m0_to_bf16raw(x).x;
}
