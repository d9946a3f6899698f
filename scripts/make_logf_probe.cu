// Records NVIDIA's logf (and samples of log / sincospi in double) on an NVIDIA GPU, as a black box,
// for issue #15 (cuRAND float normals bit for bit): driven by scripts/make_logf_recordings.py.
//
//   probe dense START COUNT      logf of COUNT consecutive float bit patterns from START (u32 out)
//   probe list N                 logf of N float bit patterns read from stdin (u32 out)
//   probe dlog N                 log of N doubles read from stdin (u64 out)
//   probe dsincospi N            sincospi of N doubles read from stdin (sin then cos, u64 out)
//   probe hist                   over all 2^32 inputs: per (sign, exponent) counts of the difference in
//                                ulps between logf and log computed in double rounded to float
//                                (bins <=-2, -1, 0, 1, >=2, both NaN, other), 512 x 7 u64 out
//   probe verify N               logf_h100.h (CuMetal's model, built with -DLOGF_MODEL) against logf
//                                over all 2^32 inputs: the mismatch count and the first N mismatching
//                                inputs (u32 out after a u64 count)
//   probe search SCHEME ITERS SEED C1..C8 [N]
//                                random local search of the coefficients (f32 bit patterns) of the
//                                model's polynomial with evaluation order SCHEME against logf on the
//                                2^24 floats of [0.5, 2) (or the N around 1), run on the GPU:
//                                32 candidates per step; prints the best coefficients and counts
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

__global__ void k_dense(uint32_t start, uint32_t n, uint32_t *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_uint(logf(__uint_as_float(start + i)));
}

__global__ void k_list(const uint32_t *in, uint32_t n, uint32_t *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_uint(logf(__uint_as_float(in[i])));
}

__global__ void k_dlog(const double *in, uint32_t n, double *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = log(in[i]);
}

__global__ void k_dsincospi(const double *in, uint32_t n, double *s, double *c) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) sincospi(in[i], &s[i], &c[i]);
}

__device__ int64_t ordered(uint32_t b) {
    int64_t m = b & 0x7fffffffu;
    return (b >> 31) ? -m : m;
}

__global__ void k_hist(uint32_t hi, unsigned long long *hist) {
    // one launch covers 2^24 inputs: (hi << 24) + i
    __shared__ unsigned long long h[2 * 7];
    if (threadIdx.x < 14) h[threadIdx.x] = 0;
    __syncthreads();
    uint32_t bits = (hi << 24) + blockIdx.x * blockDim.x + threadIdx.x;
    float x = __uint_as_float(bits);
    float r = logf(x);
    float ref = (float)log((double)x);
    int bin;
    uint32_t rb = __float_as_uint(r), fb = __float_as_uint(ref);
    if (r != r && ref != ref) bin = 5;
    else if (r != r || ref != ref) bin = 6;
    else if (rb == fb) bin = 2;
    else {
        int64_t d = ordered(rb) - ordered(fb);
        bin = d <= -2 ? 0 : d == -1 ? 1 : d == 1 ? 3 : d >= 2 ? 4 : 2;
    }
    // inputs of one block share sign and exponent except across the exponent boundary
    uint32_t se = bits >> 23;
    uint32_t se0 = ((hi << 24) + blockIdx.x * blockDim.x) >> 23;
    atomicAdd(&h[(se - se0) * 7 + bin], 1ull);
    __syncthreads();
    if (threadIdx.x < 14) {
        uint32_t s = se0 + threadIdx.x / 7;
        if (h[threadIdx.x] && s < 512) atomicAdd(&hist[s * 7 + threadIdx.x % 7], h[threadIdx.x]);
    }
}


// ---- the model with a parametric polynomial (search mode) and CuMetal's model (verify mode)
struct Coef { float c[9]; };

__device__ inline float poly_tail(const float *c, int scheme, float f) {
    float s = f * f, q;
    if (scheme == 10) {        // (c8 f + c7) s + (c6 f + c5), then Horner c4..c0
        q = fmaf(fmaf(c[8], f, c[7]), s, fmaf(c[6], f, c[5]));
        for (int k = 4; k >= 0; --k) q = fmaf(q, f, c[k]);
    } else if (scheme == 12) { // (c8 s + c6) f + (c7 s + c5), then Horner c4..c0
        q = fmaf(fmaf(c[8], s, c[6]), f, fmaf(c[7], s, c[5]));
        for (int k = 4; k >= 0; --k) q = fmaf(q, f, c[k]);
    } else if (scheme == 13) { // c8 s + (c7 f + c6), then Horner c5..c0
        q = fmaf(c[8], s, fmaf(c[7], f, c[6]));
        for (int k = 5; k >= 0; --k) q = fmaf(q, f, c[k]);
    } else {                   // Horner c8..c0
        q = c[8];
        for (int k = 7; k >= 0; --k) q = fmaf(q, f, c[k]);
    }
    float t = __fmul_rn(q, f);
    return fmaf(t, f, f);
}

__device__ inline float model_logf(const float *c, int scheme, float a) {
    if (!(a > 0.0f) || a == __int_as_float(0x7f800000)) {
        if (a == 0.0f) return __int_as_float(0xff800000);
        if (a == __int_as_float(0x7f800000)) return a;
        return __int_as_float(0x7fffffff);
    }
    float x = a, ebias = 0.0f;
    if (x < 0x1p-126f) { x = x * 0x1p23f; ebias = -23.0f; }
    unsigned bits = __float_as_uint(x);
    unsigned e = (bits - 0x3f2aaaabu) & 0xff800000u;
    float m = __uint_as_float(bits - e);
    float i = (float)((int)e >> 23) + ebias;
    float r = poly_tail(c, scheme, __fsub_rn(m, 1.0f));
    return fmaf(i, 0x1.62e430p-1f, r);
}

#define NCAND 32
__constant__ Coef d_cands[NCAND];

__global__ void k_ref(uint32_t start, uint32_t n, float *y) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = logf(__uint_as_float(start + i));
}

__global__ void k_eval(uint32_t start, uint32_t n, const float *y, int scheme, unsigned long long *counts) {
    unsigned cnt[NCAND];
    for (int k = 0; k < NCAND; ++k) cnt[k] = 0;
    for (uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float x = __uint_as_float(start + i), yi = y[i];
#pragma unroll
        for (int k = 0; k < NCAND; ++k) cnt[k] += model_logf(d_cands[k].c, scheme, x) != yi;
    }
#pragma unroll
    for (int k = 0; k < NCAND; ++k) {
        unsigned v = cnt[k];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_down_sync(0xffffffffu, v, o);
        if ((threadIdx.x & 31) == 0 && v) atomicAdd(&counts[k], (unsigned long long)v);
    }
}

#ifdef LOGF_MODEL
#define LOGF_H100_FMA(a, b, c) fmaf(a, b, c)
#define LOGF_H100_MUL_RN(a, b) __fmul_rn(a, b)
#define LOGF_H100_F2U(x) __float_as_uint(x)
#define LOGF_H100_U2F(u) __uint_as_float(u)
#define LOGF_H100_FN __device__ inline
#define LOGF_H100_INF __int_as_float(0x7f800000)
#include "logf_h100.h"

__global__ void k_verify(uint32_t hi, unsigned long long *count, uint32_t *list, uint32_t cap) {
    uint32_t bits = (hi << 24) + blockIdx.x * blockDim.x + threadIdx.x;
    float x = __uint_as_float(bits);
    if (__float_as_uint(logf_h100(x)) != __float_as_uint(logf(x))) {
        unsigned long long k = atomicAdd(count, 1ull);
        if (k < cap) list[k] = bits;
    }
}
#endif

static std::vector<uint8_t> read_stdin(size_t bytes) {
    std::vector<uint8_t> v(bytes);
    if (fread(v.data(), 1, bytes, stdin) != bytes) {
        fprintf(stderr, "short input\n");
        exit(2);
    }
    return v;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "dense")) {
        uint32_t start = (uint32_t)strtoul(argv[2], 0, 0), n = (uint32_t)strtoul(argv[3], 0, 0);
        uint32_t *d;
        CHECK(cudaMalloc(&d, n * 4ull));
        k_dense<<<(n + 255) / 256, 256>>>(start, n, d);
        std::vector<uint32_t> h(n);
        CHECK(cudaMemcpy(h.data(), d, n * 4ull, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 4, n, stdout);
    } else if (!strcmp(mode, "list")) {
        uint32_t n = (uint32_t)strtoul(argv[2], 0, 0);
        std::vector<uint8_t> in = read_stdin(n * 4ull);
        uint32_t *di, *d;
        CHECK(cudaMalloc(&di, n * 4ull));
        CHECK(cudaMalloc(&d, n * 4ull));
        CHECK(cudaMemcpy(di, in.data(), n * 4ull, cudaMemcpyHostToDevice));
        k_list<<<(n + 255) / 256, 256>>>(di, n, d);
        std::vector<uint32_t> h(n);
        CHECK(cudaMemcpy(h.data(), d, n * 4ull, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 4, n, stdout);
    } else if (!strcmp(mode, "dlog") || !strcmp(mode, "dsincospi")) {
        uint32_t n = (uint32_t)strtoul(argv[2], 0, 0);
        std::vector<uint8_t> in = read_stdin(n * 8ull);
        double *di, *d1, *d2;
        CHECK(cudaMalloc(&di, n * 8ull));
        CHECK(cudaMalloc(&d1, n * 8ull));
        CHECK(cudaMalloc(&d2, n * 8ull));
        CHECK(cudaMemcpy(di, in.data(), n * 8ull, cudaMemcpyHostToDevice));
        bool sc = !strcmp(mode, "dsincospi");
        if (sc) k_dsincospi<<<(n + 255) / 256, 256>>>(di, n, d1, d2);
        else k_dlog<<<(n + 255) / 256, 256>>>(di, n, d1);
        std::vector<double> h(n);
        CHECK(cudaMemcpy(h.data(), d1, n * 8ull, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 8, n, stdout);
        if (sc) {
            CHECK(cudaMemcpy(h.data(), d2, n * 8ull, cudaMemcpyDeviceToHost));
            fwrite(h.data(), 8, n, stdout);
        }
    } else if (!strcmp(mode, "hist")) {
        unsigned long long *d;
        CHECK(cudaMalloc(&d, 512 * 7 * 8));
        CHECK(cudaMemset(d, 0, 512 * 7 * 8));
        for (uint32_t hi = 0; hi < 256; ++hi) k_hist<<<(1u << 24) / 256, 256>>>(hi, d);
        std::vector<unsigned long long> h(512 * 7);
        CHECK(cudaMemcpy(h.data(), d, 512 * 7 * 8, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 8, h.size(), stdout);
    } else if (!strcmp(mode, "search")) {
        int scheme = atoi(argv[2]), iters = atoi(argv[3]);
        uint64_t rng = strtoull(argv[4], 0, 0) * 0x9E3779B97F4A7C15ull + 1;
        Coef cur;
        cur.c[0] = -0.5f;
        for (int k = 1; k <= 8; ++k) { uint32_t b = (uint32_t)strtoul(argv[4 + k], 0, 0); memcpy(&cur.c[k], &b, 4); }
        uint32_t n = argc > 13 ? (uint32_t)strtoul(argv[13], 0, 0) : (1u << 24);
        uint32_t start = 0x3f800000u - n / 2;   // n floats around 1 (all of [0.5, 2) for 2^24)
        float *y;
        unsigned long long *counts;
        CHECK(cudaMalloc(&y, n * 4ull));
        CHECK(cudaMalloc(&counts, NCAND * 8));
        k_ref<<<(n + 255) / 256, 256>>>(start, n, y);
        auto next = [&]() { rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17; return rng; };
        auto gauss = [&]() { double s = 0; for (int j = 0; j < 12; ++j) s += (next() >> 11) * 0x1p-53; return s - 6.0; };
        const double scale[9] = {0, 0.3, 0.5, 1.5, 4, 12, 36, 110, 330};
        Coef cand[NCAND];
        unsigned long long h[NCAND];
        unsigned long long best = ~0ull;
        Coef bestc = cur;
        unsigned long long curv = ~0ull;
        for (int it = 0; it <= iters; ++it) {
            for (int k = 0; k < NCAND; ++k) {
                cand[k] = cur;
                if (it == 0 && k == 0) continue;   // the start point itself
                if (next() & 1) {   // compensated move: c_k up, c_k+1 down by about 3x the value (f ~ 1/3)
                    int idx = 2 + (int)(next() % 6);
                    double d = gauss() * scale[idx] * 2;
                    int32_t b;
                    memcpy(&b, &cand[k].c[idx], 4);
                    float old = cand[k].c[idx];
                    b += (int32_t)lround(d == 0 ? 1 : d);
                    memcpy(&cand[k].c[idx], &b, 4);
                    double kappa = 2.0 + (next() % 5) * 0.5;
                    cand[k].c[idx + 1] = (float)((double)cand[k].c[idx + 1] - ((double)cand[k].c[idx] - old) * kappa);
                    continue;
                }
                int moves = 1 + (int)(next() % 3);
                for (int j = 0; j < moves; ++j) {
                    int idx = 2 + (int)(next() % 7);
                    if (next() % 16 == 0) idx = 1;
                    static const double mults[3] = {0.3, 1, 3};
                    double mult = mults[next() % 3];
                    long d = lround(gauss() * scale[idx] * mult);
                    if (d == 0) d = (next() & 1) ? 1 : -1;
                    int32_t b;
                    memcpy(&b, &cand[k].c[idx], 4);
                    b += (int32_t)d;
                    memcpy(&cand[k].c[idx], &b, 4);
                }
            }
            CHECK(cudaMemcpyToSymbol(d_cands, cand, sizeof(cand)));
            CHECK(cudaMemset(counts, 0, NCAND * 8));
            k_eval<<<n / 256 < 1024 ? (n + 255) / 256 : 1024, 256>>>(start, n, y, scheme, counts);
            CHECK(cudaMemcpy(h, counts, sizeof(h), cudaMemcpyDeviceToHost));
            int bk = 0;
            for (int k = 1; k < NCAND; ++k) if (h[k] < h[bk]) bk = k;
            if (it == 0) curv = h[0];
            if (h[bk] <= curv) { cur = cand[bk]; curv = h[bk]; }
            if (curv < best) {
                best = curv; bestc = cur;
                printf("it %d scheme %d count %llu coef", it, scheme, best);
                for (int k = 1; k <= 8; ++k) { uint32_t b; memcpy(&b, &bestc.c[k], 4); printf(" 0x%08x", b); }
                printf("\n");
                fflush(stdout);
            }
            if (best == 0) break;
        }
        printf("best scheme %d count %llu coef", scheme, best);
        for (int k = 1; k <= 8; ++k) { uint32_t b; memcpy(&b, &bestc.c[k], 4); printf(" 0x%08x", b); }
        printf("\n");
#ifdef LOGF_MODEL
    } else if (!strcmp(mode, "verify")) {
        uint32_t cap = (uint32_t)strtoul(argv[2], 0, 0);
        unsigned long long *count;
        uint32_t *list;
        CHECK(cudaMalloc(&count, 8));
        CHECK(cudaMemset(count, 0, 8));
        CHECK(cudaMalloc(&list, cap * 4ull + 4));
        for (uint32_t hi = 0; hi < 256; ++hi) k_verify<<<(1u << 24) / 256, 256>>>(hi, count, list, cap);
        unsigned long long c;
        CHECK(cudaMemcpy(&c, count, 8, cudaMemcpyDeviceToHost));
        uint32_t k = c < cap ? (uint32_t)c : cap;
        std::vector<uint32_t> h(k + 1);
        CHECK(cudaMemcpy(h.data(), list, k * 4ull, cudaMemcpyDeviceToHost));
        fwrite(&c, 8, 1, stdout);
        fwrite(h.data(), 4, k, stdout);
#endif
    } else {
        return 2;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return 0;
}
