/* A plain C++ file (no CUDA): __half and __nv_bfloat16 come with cublas_v2.h, as with NVIDIA's. */
#include <cublas_v2.h>

int host_half_roundtrip(float value, float *half_back, float *bf16_back) {
    __half h = __float2half(value);
    __nv_bfloat16 b = __float2bfloat16(value);
    *half_back = __half2float(h);
    *bf16_back = __bfloat162float(b);
    return 0;
}
