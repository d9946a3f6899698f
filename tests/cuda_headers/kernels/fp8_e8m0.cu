// The e8m0 part of CuMetal's cuda_fp8.h and the PTX fp6/fp4/ue8m0 conversions (cvt .e2m3x2 .e3m2x2
// .e2m1x2 .ue8m0x2, sm_100a), on the inputs whose results NVIDIA's headers gave on an H100
// (tests/cuda_headers/data/cuda_fp8_goldens.npz, keys f_small and small_to).
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

extern "C" __global__ void e8m0_from_float(const float *fs, unsigned char *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float f = fs[i];
    unsigned char *r = o + 4 * i;
    r[0] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
    r[1] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
    r[2] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
    r[3] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
}

extern "C" __global__ void e8m0_to(unsigned short *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    o[i] = __nv_cvt_e8m0_to_bf16raw((__nv_fp8_storage_t)i).x;
}

// PTX cvt of a pair (1, f) to each narrow format (e2m1x2 takes and gives .b8 registers, as ptxas wants): results in the low byte (fp6/ue8m0) or nibble (fp4)
extern "C" __global__ void ptx_narrow_from_float(const float *fs, unsigned short *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float f = fs[i], g = 1.0f;
    unsigned short *r = o + 8 * i;
    asm("cvt.rn.satfinite.e2m3x2.f32 %0, %1, %2;" : "=h"(r[0]) : "f"(g), "f"(f));
    asm("cvt.rn.satfinite.e3m2x2.f32 %0, %1, %2;" : "=h"(r[1]) : "f"(g), "f"(f));
    asm("{ .reg .b8 t; cvt.rn.satfinite.e2m1x2.f32 t, %1, %2; cvt.u16.u8 %0, t; }" : "=h"(r[2]) : "f"(g), "f"(f));
    asm("cvt.rz.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r[3]) : "f"(g), "f"(f));
    asm("cvt.rp.satfinite.ue8m0x2.f32 %0, %1, %2;" : "=h"(r[4]) : "f"(g), "f"(f));
    asm("cvt.rz.ue8m0x2.f32 %0, %1, %2;" : "=h"(r[5]) : "f"(g), "f"(f));
    asm("cvt.rn.satfinite.relu.e2m3x2.f32 %0, %1, %2;" : "=h"(r[6]) : "f"(g), "f"(f));
    r[7] = 0;
}

// PTX cvt of every pattern back: f16x2 from e2m3x2 / e3m2x2 / e2m1x2, bf16x2 from ue8m0x2
extern "C" __global__ void ptx_narrow_to(unsigned int *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned short x = (unsigned short)(i | 0x3800); /* high element: 1.0 in e2m3/e3m2 terms varies */
    asm("cvt.rn.f16x2.e2m3x2 %0, %1;" : "=r"(o[4 * i]) : "h"(x));
    asm("cvt.rn.f16x2.e3m2x2 %0, %1;" : "=r"(o[4 * i + 1]) : "h"(x));
    asm("{ .reg .b8 t; cvt.u8.u16 t, %1; cvt.rn.f16x2.e2m1x2 %0, t; }" : "=r"(o[4 * i + 2]) : "h"((unsigned short)(i & 0xFF)));
    asm("cvt.rn.bf16x2.ue8m0x2 %0, %1;" : "=r"(o[4 * i + 3]) : "h"(x));
}

// cuda_fp6.h / cuda_fp4.h types: packing of x4 and conversion back to float
extern "C" __global__ void fp6fp4_types(const float *fs, unsigned int *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float4 q = make_float4(fs[i], fs[(i * 7 + 1) % n], fs[(i * 13 + 5) % n], fs[(i * 31 + 3) % n]);
    o[4 * i] = __nv_fp6x4_e2m3(q).__x;
    o[4 * i + 1] = __nv_fp4x4_e2m1(q).__x;
    o[4 * i + 2] = __float_as_uint(static_cast<float>(__nv_fp6_e3m2(fs[i])));
    o[4 * i + 3] = __nv_fp8x4_e8m0(q).__x;  // cudaRoundPosInf, __NV_SATFINITE per element
}
