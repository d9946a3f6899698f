// cuda_fp8.h through its documented API (CUDA Math API, "FP8 Intrinsics" and the __nv_fp8* types).
// Recorded on an NVIDIA GPU with NVIDIA's own header (scripts/make_cuda_fp8_goldens.py) and run with
// CuMetal's clean-room header (tests/cuda_headers/test_fp8.py). Plain CUDA: nothing CuMetal-specific.
#include <cuda_fp8.h>

#define NF8 8   // bytes per float/double/half/bf16 input
#define NF16 6  // 16-bit results per input (x2 conversions)

template <typename C4, typename C5>
__device__ void classes(float x, unsigned char *o) {
    o[0] = C4(x).__x;
    o[1] = C5(x).__x;
}

// f, g: two inputs (g = another element, for the pair forms)
extern "C" __global__ void fp8_from_float(const float *fs, unsigned char *o, unsigned short *o2, unsigned int *o4,
                                          int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float f = fs[i], g = fs[(i * 7 + 1) % n], h = fs[(i * 13 + 5) % n], k = fs[(i * 31 + 3) % n];
    unsigned char *r = o + NF8 * i;
    r[0] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
    r[1] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
    r[2] = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E4M3);
    r[3] = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E5M2);
    r[4] = __nv_fp8_e4m3(f).__x;
    r[5] = __nv_fp8_e5m2(f).__x;
    r[6] = 0;
    r[7] = 0;
    unsigned short *r2 = o2 + NF16 * i;
    const float2 p = make_float2(f, g);
    r2[0] = __nv_cvt_float2_to_fp8x2(p, __NV_SATFINITE, __NV_E4M3);
    r2[1] = __nv_cvt_float2_to_fp8x2(p, __NV_SATFINITE, __NV_E5M2);
    r2[2] = __nv_cvt_float2_to_fp8x2(p, __NV_NOSAT, __NV_E4M3);
    r2[3] = __nv_cvt_float2_to_fp8x2(p, __NV_NOSAT, __NV_E5M2);
    r2[4] = __nv_fp8x2_e4m3(p).__x;
    r2[5] = __nv_fp8x2_e5m2(p).__x;
    const float4 q = make_float4(f, g, h, k);
    o4[2 * i] = __nv_fp8x4_e4m3(q).__x;
    o4[2 * i + 1] = __nv_fp8x4_e5m2(q).__x;
}

extern "C" __global__ void fp8_from_double(const double *ds, unsigned char *o, unsigned short *o2, unsigned int *o4,
                                           int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const double f = ds[i], g = ds[(i * 7 + 1) % n], h = ds[(i * 13 + 5) % n], k = ds[(i * 31 + 3) % n];
    unsigned char *r = o + NF8 * i;
    r[0] = __nv_cvt_double_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
    r[1] = __nv_cvt_double_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
    r[2] = __nv_cvt_double_to_fp8(f, __NV_NOSAT, __NV_E4M3);
    r[3] = __nv_cvt_double_to_fp8(f, __NV_NOSAT, __NV_E5M2);
    r[4] = __nv_fp8_e4m3(f).__x;
    r[5] = __nv_fp8_e5m2(f).__x;
    r[6] = 0;
    r[7] = 0;
    unsigned short *r2 = o2 + NF16 * i;
    const double2 p = make_double2(f, g);
    r2[0] = __nv_cvt_double2_to_fp8x2(p, __NV_SATFINITE, __NV_E4M3);
    r2[1] = __nv_cvt_double2_to_fp8x2(p, __NV_SATFINITE, __NV_E5M2);
    r2[2] = __nv_cvt_double2_to_fp8x2(p, __NV_NOSAT, __NV_E4M3);
    r2[3] = __nv_cvt_double2_to_fp8x2(p, __NV_NOSAT, __NV_E5M2);
    r2[4] = __nv_fp8x2_e4m3(p).__x;
    r2[5] = __nv_fp8x2_e5m2(p).__x;
    const double4 q = make_double4(f, g, h, k);
    o4[2 * i] = __nv_fp8x4_e4m3(q).__x;
    o4[2 * i + 1] = __nv_fp8x4_e5m2(q).__x;
}

// Every 16-bit pattern, read as __half and as __nv_bfloat16.
extern "C" __global__ void fp8_from_16(const unsigned short *xs, unsigned char *o, unsigned short *o2,
                                       unsigned int *o4, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned short x = xs[i], y = xs[(i * 7 + 1) % n];
    __half_raw hx, hy;
    hx.x = x;
    hy.x = y;
    __nv_bfloat16_raw bx, by;
    bx.x = x;
    by.x = y;
    unsigned char *r = o + NF8 * i;
    r[0] = __nv_cvt_halfraw_to_fp8(hx, __NV_SATFINITE, __NV_E4M3);
    r[1] = __nv_cvt_halfraw_to_fp8(hx, __NV_SATFINITE, __NV_E5M2);
    r[2] = __nv_cvt_halfraw_to_fp8(hx, __NV_NOSAT, __NV_E4M3);
    r[3] = __nv_cvt_halfraw_to_fp8(hx, __NV_NOSAT, __NV_E5M2);
    r[4] = __nv_cvt_bfloat16raw_to_fp8(bx, __NV_SATFINITE, __NV_E4M3);
    r[5] = __nv_cvt_bfloat16raw_to_fp8(bx, __NV_SATFINITE, __NV_E5M2);
    r[6] = __nv_cvt_bfloat16raw_to_fp8(bx, __NV_NOSAT, __NV_E4M3);
    r[7] = __nv_cvt_bfloat16raw_to_fp8(bx, __NV_NOSAT, __NV_E5M2);
    __half2_raw h2;
    h2.x = x;
    h2.y = y;
    __nv_bfloat162_raw b2;
    b2.x = x;
    b2.y = y;
    unsigned short *r2 = o2 + NF16 * i;
    r2[0] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_SATFINITE, __NV_E4M3);
    r2[1] = __nv_cvt_halfraw2_to_fp8x2(h2, __NV_NOSAT, __NV_E5M2);
    r2[2] = __nv_cvt_bfloat16raw2_to_fp8x2(b2, __NV_SATFINITE, __NV_E5M2);
    r2[3] = __nv_cvt_bfloat16raw2_to_fp8x2(b2, __NV_NOSAT, __NV_E4M3);
    r2[4] = __nv_fp8x2_e4m3(__half2(h2)).__x;
    r2[5] = __nv_fp8x2_e5m2(__nv_bfloat162(b2)).__x;
    o4[4 * i] = __nv_fp8_e4m3(__half(hx)).__x | __nv_fp8_e5m2(__half(hx)).__x << 8 |
                __nv_fp8_e4m3(__nv_bfloat16(bx)).__x << 16 | (unsigned)__nv_fp8_e5m2(__nv_bfloat16(bx)).__x << 24;
    o4[4 * i + 1] = __nv_fp8x4_e4m3(__half2(h2), __half2(h2)).__x;
    o4[4 * i + 2] = __nv_fp8x4_e5m2(__nv_bfloat162(b2), __nv_bfloat162(b2)).__x;
    o4[4 * i + 3] = 0;
}

template <typename T>
__device__ unsigned long long bits_of(T v) {
    if (sizeof(T) == 1) return *reinterpret_cast<const unsigned char *>(&v);
    if (sizeof(T) == 2) return *reinterpret_cast<const unsigned short *>(&v);
    if (sizeof(T) == 4) return *reinterpret_cast<const unsigned int *>(&v);
    return *reinterpret_cast<const unsigned long long *>(&v);
}

#define NTO 20  // results per fp8 pattern and format
template <typename C>
__device__ void from_fp8(unsigned char x, unsigned long long *r) {
    C c;
    c.__x = x;
    r[0] = bits_of(static_cast<float>(c));
    r[1] = bits_of(static_cast<double>(c));
    r[2] = bits_of(static_cast<__half>(c));
    r[3] = bits_of(static_cast<__nv_bfloat16>(c));
    r[4] = static_cast<bool>(c);
    r[5] = bits_of(static_cast<char>(c));
    r[6] = bits_of(static_cast<signed char>(c));
    r[7] = bits_of(static_cast<unsigned char>(c));
    r[8] = bits_of(static_cast<short>(c));
    r[9] = bits_of(static_cast<unsigned short>(c));
    r[10] = bits_of(static_cast<int>(c));
    r[11] = bits_of(static_cast<unsigned int>(c));
    r[12] = bits_of(static_cast<long>(c));
    r[13] = bits_of(static_cast<unsigned long>(c));
    r[14] = bits_of(static_cast<long long>(c));
    r[15] = bits_of(static_cast<unsigned long long>(c));
    r[16] = 0;
    r[17] = 0;
    r[18] = 0;
    r[19] = 0;
}

// Every fp8x2 pattern: the pair conversions; the low byte: every conversion operator of the scalar types.
extern "C" __global__ void fp8_to(const unsigned short *xs, unsigned int *o2, unsigned long long *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const unsigned short x = xs[i];
    __half2_raw a = __nv_cvt_fp8x2_to_halfraw2(x, __NV_E4M3), b = __nv_cvt_fp8x2_to_halfraw2(x, __NV_E5M2);
    o2[8 * i] = a.x | (unsigned)a.y << 16;
    o2[8 * i + 1] = b.x | (unsigned)b.y << 16;
    o2[8 * i + 2] = __nv_cvt_fp8_to_halfraw(x & 0xFF, __NV_E4M3).x | (unsigned)__nv_cvt_fp8_to_halfraw(x >> 8, __NV_E5M2).x << 16;
    __nv_fp8x2_e4m3 c4;
    c4.__x = x;
    __nv_fp8x2_e5m2 c5;
    c5.__x = x;
    const float2 f4 = static_cast<float2>(c4), f5 = static_cast<float2>(c5);
    o2[8 * i + 3] = __float_as_uint(f4.x);
    o2[8 * i + 4] = __float_as_uint(f4.y);
    o2[8 * i + 5] = __float_as_uint(f5.x) ^ __float_as_uint(f5.y);
    const __half2 h4 = static_cast<__half2>(c4), h5 = static_cast<__half2>(c5);
    o2[8 * i + 6] = bits_of(h4);
    o2[8 * i + 7] = bits_of(h5);
    if (i < 256) {
        from_fp8<__nv_fp8_e4m3>(x & 0xFF, o + 2 * NTO * i);
        from_fp8<__nv_fp8_e5m2>(x & 0xFF, o + 2 * NTO * i + NTO);
        __nv_fp8x4_e4m3 q4;
        q4.__x = 0x01020300u | x;
        __nv_fp8x4_e5m2 q5;
        q5.__x = 0x3C004000u | x << 8;
        const float4 g4 = static_cast<float4>(q4), g5 = static_cast<float4>(q5);
        o[2 * NTO * i + 16] = __float_as_uint(g4.x) | (unsigned long long)__float_as_uint(g4.y) << 32;
        o[2 * NTO * i + 17] = __float_as_uint(g4.z) | (unsigned long long)__float_as_uint(g4.w) << 32;
        o[2 * NTO * i + 18] = __float_as_uint(g5.x) | (unsigned long long)__float_as_uint(g5.y) << 32;
        o[2 * NTO * i + 19] = __float_as_uint(g5.z) | (unsigned long long)__float_as_uint(g5.w) << 32;
    }
}

// Integer constructors.
#define NINT8 16
extern "C" __global__ void fp8_from_int(const long long *vs, unsigned char *o, int n) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const long long v = vs[i];
    unsigned char *r = o + NINT8 * i;
    r[0] = __nv_fp8_e4m3((short)v).__x;
    r[1] = __nv_fp8_e4m3((unsigned short)v).__x;
    r[2] = __nv_fp8_e4m3((int)v).__x;
    r[3] = __nv_fp8_e4m3((unsigned int)v).__x;
    r[4] = __nv_fp8_e4m3((long)v).__x;
    r[5] = __nv_fp8_e4m3((unsigned long)v).__x;
    r[6] = __nv_fp8_e4m3((long long)v).__x;
    r[7] = __nv_fp8_e4m3((unsigned long long)v).__x;
    r[8] = __nv_fp8_e5m2((short)v).__x;
    r[9] = __nv_fp8_e5m2((unsigned short)v).__x;
    r[10] = __nv_fp8_e5m2((int)v).__x;
    r[11] = __nv_fp8_e5m2((unsigned int)v).__x;
    r[12] = __nv_fp8_e5m2((long)v).__x;
    r[13] = __nv_fp8_e5m2((unsigned long)v).__x;
    r[14] = __nv_fp8_e5m2((long long)v).__x;
    r[15] = __nv_fp8_e5m2((unsigned long long)v).__x;
}
