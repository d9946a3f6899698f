// Records NVIDIA's expf on an NVIDIA GPU as a black box and checks CuMetal's model of it
// (src/cumetal/libdevice/src/expf_h100.h) on all 2^32 inputs, for issue #15 (cuRAND log-normals bit
// for bit): driven by scripts/make_expf_recordings.py.
//
//   probe list N        expf of N float bit patterns read from stdin (u32 out)
//   probe verify V N    model variant V (0: expf_h100.h; 1: its split constant rounded to nearest;
//                       2: without the low part of log2(e)) against expf over all 2^32 inputs: the
//                       mismatch count, then up to N mismatching inputs (u64 count, u32 inputs out)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

__device__ float ex2_ftz(float x) {
    float r;
    asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

#define EXPF_H100_FMA(a, b, c) __fmaf_rn(a, b, c)
#define EXPF_H100_MUL_RN(a, b) __fmul_rn(a, b)
#define EXPF_H100_EX2(x) ex2_ftz(x)
#define EXPF_H100_U2F(u) __uint_as_float(u)
#define EXPF_H100_FN __device__
#include "expf_h100.h"

__device__ float variant(int v, float x) {
    if (v == 0) return expf_h100(x);
    float split = v == 1 ? 0x1.77313cp-8f : EXPF_H100_SPLIT;
    float t = __saturatef(__fmaf_rn(x, split, 0.5f));
    float j = __fmaf_rd(t, 252.0f, 12582913.0f);
    float k = j - 12583039.0f;
    float r = __fmaf_rn(x, EXPF_H100_L2E, -k);
    if (v != 2) r = __fmaf_rn(x, EXPF_H100_L2E_LO, r);
    return __fmul_rn(ex2_ftz(r), __uint_as_float(__float_as_uint(j) << 23));
}

__global__ void k_list(const uint32_t *in, uint32_t n, uint32_t *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_uint(expf(__uint_as_float(in[i])));
}

__global__ void k_verify(int v, uint32_t hi, unsigned long long *count, uint32_t *bad, uint32_t cap) {
    uint32_t b = (hi << 24) + blockIdx.x * blockDim.x + threadIdx.x;
    float x = __uint_as_float(b);
    uint32_t want = __float_as_uint(expf(x)), got = __float_as_uint(variant(v, x));
    if (want != got && !((want & 0x7fffffffu) > 0x7f800000u && (got & 0x7fffffffu) > 0x7f800000u)) {
        unsigned long long slot = atomicAdd(count, 1ull);
        if (slot < cap) bad[slot] = b;
    }
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: probe list N | probe verify V N\n");
        return 1;
    }
    if (!strcmp(argv[1], "list")) {
        uint32_t n = (uint32_t)strtoul(argv[2], 0, 0);
        std::vector<uint32_t> h(n);
        if (fread(h.data(), 4, n, stdin) != n) return 3;
        uint32_t *din, *dout;
        CHECK(cudaMalloc(&din, 4ull * n + 4));
        CHECK(cudaMalloc(&dout, 4ull * n + 4));
        CHECK(cudaMemcpy(din, h.data(), 4ull * n, cudaMemcpyHostToDevice));
        k_list<<<(n + 255) / 256, 256>>>(din, n, dout);
        CHECK(cudaMemcpy(h.data(), dout, 4ull * n, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 4, n, stdout);
        return 0;
    }
    if (!strcmp(argv[1], "verify") && argc >= 4) {
        int v = atoi(argv[2]);
        uint32_t cap = (uint32_t)strtoul(argv[3], 0, 0);
        unsigned long long *dcount;
        uint32_t *dbad;
        CHECK(cudaMalloc(&dcount, 8));
        CHECK(cudaMalloc(&dbad, 4ull * cap + 4));
        CHECK(cudaMemset(dcount, 0, 8));
        for (uint32_t hi = 0; hi < 256; hi++) k_verify<<<(1u << 24) / 256, 256>>>(v, hi, dcount, dbad, cap);
        unsigned long long count = 0;
        CHECK(cudaMemcpy(&count, dcount, 8, cudaMemcpyDeviceToHost));
        uint32_t m = count < cap ? (uint32_t)count : cap;
        std::vector<uint32_t> bad(m);
        CHECK(cudaMemcpy(bad.data(), dbad, 4ull * m, cudaMemcpyDeviceToHost));
        fwrite(&count, 8, 1, stdout);
        fwrite(bad.data(), 4, m, stdout);
        return 0;
    }
    fprintf(stderr, "unknown mode %s\n", argv[1]);
    return 1;
}
