// cuda_fp8.h / cuda_fp6.h / cuda_fp4.h in host code: built with --cuda-host-only into a shared library
// (tests/cuda_headers/test_fp8.py) and compared with the results of NVIDIA's headers on the H100.
#include <cuda_fp8.h>
#include <cuda_fp6.h>
#include <cuda_fp4.h>

template <typename T>
static unsigned long long bits_of(T v) {
    unsigned long long r = 0;
    __builtin_memcpy(&r, &v, sizeof(T));
    return r;
}

// the columns of fp8_goldens.cu's fp8_from_float / fp8_from_double (scalars) and fp8_from_16
extern "C" void host_from_float(const float *fs, unsigned char *o, int n) {
    for (int i = 0; i < n; ++i) {
        const float f = fs[i];
        unsigned char *r = o + 8 * i;
        r[0] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        r[1] = __nv_cvt_float_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
        r[2] = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E4M3);
        r[3] = __nv_cvt_float_to_fp8(f, __NV_NOSAT, __NV_E5M2);
        r[4] = __nv_fp8_e4m3(f).__x;
        r[5] = __nv_fp8_e5m2(f).__x;
        r[6] = r[7] = 0;
    }
}
extern "C" void host_from_double(const double *ds, unsigned char *o, int n) {
    for (int i = 0; i < n; ++i) {
        const double f = ds[i];
        unsigned char *r = o + 8 * i;
        r[0] = __nv_cvt_double_to_fp8(f, __NV_SATFINITE, __NV_E4M3);
        r[1] = __nv_cvt_double_to_fp8(f, __NV_SATFINITE, __NV_E5M2);
        r[2] = __nv_cvt_double_to_fp8(f, __NV_NOSAT, __NV_E4M3);
        r[3] = __nv_cvt_double_to_fp8(f, __NV_NOSAT, __NV_E5M2);
        r[4] = __nv_fp8_e4m3(f).__x;
        r[5] = __nv_fp8_e5m2(f).__x;
        r[6] = r[7] = 0;
    }
}
extern "C" void host_from_16(unsigned char *o, int n) {
    for (int i = 0; i < n; ++i) {
        __half_raw h;
        h.x = (unsigned short)i;
        __nv_bfloat16_raw b;
        b.x = (unsigned short)i;
        unsigned char *r = o + 8 * i;
        r[0] = __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E4M3);
        r[1] = __nv_cvt_halfraw_to_fp8(h, __NV_SATFINITE, __NV_E5M2);
        r[2] = __nv_cvt_halfraw_to_fp8(h, __NV_NOSAT, __NV_E4M3);
        r[3] = __nv_cvt_halfraw_to_fp8(h, __NV_NOSAT, __NV_E5M2);
        r[4] = __nv_cvt_bfloat16raw_to_fp8(b, __NV_SATFINITE, __NV_E4M3);
        r[5] = __nv_cvt_bfloat16raw_to_fp8(b, __NV_SATFINITE, __NV_E5M2);
        r[6] = __nv_cvt_bfloat16raw_to_fp8(b, __NV_NOSAT, __NV_E4M3);
        r[7] = __nv_cvt_bfloat16raw_to_fp8(b, __NV_NOSAT, __NV_E5M2);
    }
}

// fp8_to's scalar operators (20 results per pattern and format, the last 4 left 0 here)
template <typename C>
static void from_fp8(unsigned char x, unsigned long long *r) {
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
    r[16] = r[17] = r[18] = r[19] = 0;
}
extern "C" void host_to_scalar(unsigned long long *o) {
    for (int i = 0; i < 256; ++i) {
        from_fp8<__nv_fp8_e4m3>((unsigned char)i, o + 40 * i);
        from_fp8<__nv_fp8_e5m2>((unsigned char)i, o + 40 * i + 20);
    }
}

// fp6fp4_goldens.cu's small_from_float and small_to
extern "C" void host_small(const float *fs, unsigned char *o, unsigned short *to, int n) {
    for (int i = 0; i < n; ++i) {
        const float f = fs[i];
        unsigned char *r = o + 16 * i;
        const cudaRoundMode modes[2] = {cudaRoundNearest, cudaRoundZero};
        for (int m = 0; m < 2; ++m) {
            r[m] = __nv_cvt_float_to_fp6(f, __NV_E2M3, modes[m]);
            r[2 + m] = __nv_cvt_float_to_fp6(f, __NV_E3M2, modes[m]);
            r[4 + m] = __nv_cvt_float_to_fp4(f, __NV_E2M1, modes[m]);
            r[6 + m] = r[8 + m] = r[10 + m] = 0;
        }
        r[12] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundZero);
        r[13] = __nv_cvt_float_to_e8m0(f, __NV_SATFINITE, cudaRoundPosInf);
        r[14] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundZero);
        r[15] = __nv_cvt_float_to_e8m0(f, __NV_NOSAT, cudaRoundPosInf);
    }
    for (int i = 0; i < 256; ++i) {
        const unsigned char x = (unsigned char)i;
        to[4 * i] = __nv_cvt_fp6_to_halfraw(x, __NV_E2M3).x;
        to[4 * i + 1] = __nv_cvt_fp6_to_halfraw(x, __NV_E3M2).x;
        to[4 * i + 2] = __nv_cvt_fp4_to_halfraw(x, __NV_E2M1).x;
        to[4 * i + 3] = __nv_cvt_e8m0_to_bf16raw(x).x;
    }
}
