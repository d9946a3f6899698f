// Records NVIDIA's erfcinvf / erfcinv on an NVIDIA GPU as a black box, for issue #15 (cuRAND MT19937
// normals bit for bit); driven by scripts/make_erfcinv_recordings.py. Nothing of NVIDIA's is read
// here but the functions' outputs.
//
//   probe fdense START COUNT     erfcinvf of COUNT consecutive float bit patterns from START (u32 out)
//   probe flist N                erfcinvf of N float bit patterns from stdin (u32 out)
//   probe filist N               erfinvf of N float bit patterns from stdin (u32 out)
//   probe dlist N                erfcinv of N doubles from stdin (u64 out; dilist: erfinv, dnlist: normcdfinv)
//   probe hist                   over every float c in [0, 2]: per bucket (c's bits >> 19) counts of
//                                erfcinvf(c) minus erfcinv((double)c) rounded to float, in ulps (bins
//                                <=-2, -1, 0, +1, >=2), of erfcinvf(c) == erfinvf(1 - c) and of
//                                erfcinvf(c) == -erfcinvf(2 - c) where 2 - c is exact; 2049 x 8 u64 out
//   probe verify                 CuMetal's model (erfcinvf_h100.h, built with -DERFCINVF_MODEL) against
//                                erfcinvf on every float in [0, 2]: per bucket mismatch counts (2049
//                                u64) then up to 2^20 mismatching inputs (u32)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#ifdef ERFCINVF_MODEL
#define ERFCINVF_H100_FN __device__ __forceinline__
#define ERFCINVF_H100_FMA(a, b, c) __fmaf_rn(a, b, c)
#define ERFCINVF_H100_MUL_RN(a, b) __fmul_rn(a, b)
#define ERFCINVF_H100_ADD_RN(a, b) __fadd_rn(a, b)
#define ERFCINVF_H100_F2U(x) __float_as_uint(x)
#define ERFCINVF_H100_U2F(u) __uint_as_float(u)
#define ERFCINVF_H100_LG2(x) lg2_approx_(x)
#define ERFCINVF_H100_TAIL(c) erfcinvf(c)
__device__ __forceinline__ float lg2_approx_(float x) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}
#include "../src/cumetal/libdevice/src/erfcinvf_h100.h"
#endif

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void k_fdense(uint32_t start, uint32_t n, uint32_t *out) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_uint(erfcinvf(__uint_as_float(start + i)));
}

__global__ void k_flist(const uint32_t *in, uint32_t n, uint32_t *out, int which) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(in[i]);
    out[i] = __float_as_uint(which ? erfinvf(x) : erfcinvf(x));
}

__global__ void k_dlist(const double *in, uint32_t n, double *out, int which) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = which == 0 ? erfcinv(in[i]) : which == 1 ? erfinv(in[i]) : normcdfinv(in[i]);
}

__device__ int64_t ordered(uint32_t b) {
    int64_t m = b & 0x7fffffffu;
    return (b >> 31) ? -m : m;
}

#define NB 2049  // buckets: bits >> 19 for bits in [0, 0x40000000] (the last holds c = 2 alone)

__global__ void k_hist(uint32_t base, unsigned long long *hist) {
    uint32_t bits = base + blockIdx.x * blockDim.x + threadIdx.x;
    if (bits > 0x40000000u) return;
    float c = __uint_as_float(bits);
    float r = erfcinvf(c);
    float ref = (float)erfcinv((double)c);
    unsigned long long *h = hist + (size_t)(bits >> 19) * 8;
    uint32_t rb = __float_as_uint(r), fb = __float_as_uint(ref);
    int bin;
    if (rb == fb || (r != r && ref != ref)) bin = 2;
    else if (r != r || ref != ref) bin = 0;
    else {
        int64_t d = ordered(rb) - ordered(fb);
        bin = d <= -2 ? 0 : d == -1 ? 1 : d == 1 ? 3 : 4;
    }
    atomicAdd(&h[bin], 1ull);
    if (__float_as_uint(erfinvf(1.0f - c)) == rb) atomicAdd(&h[5], 1ull);
    float m = 2.0f - c;
    if (2.0f - m == c && __float_as_uint(-erfcinvf(m)) == rb) atomicAdd(&h[6], 1ull);
    atomicAdd(&h[7], 1ull);
}

#ifdef ERFCINVF_MODEL
__global__ void k_verify(uint32_t base, unsigned long long *hist, uint32_t *bad, unsigned long long *nbad,
                         uint32_t cap) {
    uint32_t bits = base + blockIdx.x * blockDim.x + threadIdx.x;
    if (bits > 0x40000000u) return;
    float c = __uint_as_float(bits);
    if (__float_as_uint(erfcinvf(c)) != __float_as_uint(erfcinvf_h100(c))) {
        atomicAdd(&hist[bits >> 19], 1ull);
        unsigned long long k = atomicAdd(nbad, 1ull);
        if (k < cap) bad[k] = bits;
    }
}
#endif

static std::vector<char> read_stdin(size_t n) {
    std::vector<char> buf(n);
    size_t got = fread(buf.data(), 1, n, stdin);
    if (got != n) {
        fprintf(stderr, "stdin: %zu of %zu bytes\n", got, n);
        exit(2);
    }
    return buf;
}

int main(int argc, char **argv) {
    if (argc < 2) return 2;
    const char *mode = argv[1];
    if (!strcmp(mode, "fdense")) {
        uint32_t start = strtoul(argv[2], 0, 0), n = strtoul(argv[3], 0, 0);
        uint32_t *d;
        CHECK(cudaMalloc(&d, (size_t)n * 4));
        k_fdense<<<(n + 255) / 256, 256>>>(start, n, d);
        std::vector<uint32_t> h(n);
        CHECK(cudaMemcpy(h.data(), d, (size_t)n * 4, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 4, n, stdout);
    } else if (!strcmp(mode, "flist") || !strcmp(mode, "filist")) {
        uint32_t n = strtoul(argv[2], 0, 0);
        std::vector<char> in = read_stdin((size_t)n * 4);
        uint32_t *di, *dout;
        CHECK(cudaMalloc(&di, (size_t)n * 4 + 4));
        CHECK(cudaMalloc(&dout, (size_t)n * 4 + 4));
        CHECK(cudaMemcpy(di, in.data(), (size_t)n * 4, cudaMemcpyHostToDevice));
        k_flist<<<(n + 255) / 256, 256>>>(di, n, dout, !strcmp(mode, "filist"));
        std::vector<uint32_t> h(n);
        CHECK(cudaMemcpy(h.data(), dout, (size_t)n * 4, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 4, n, stdout);
    } else if (!strcmp(mode, "dlist") || !strcmp(mode, "dilist") || !strcmp(mode, "dnlist")) {
        uint32_t n = strtoul(argv[2], 0, 0);
        std::vector<char> in = read_stdin((size_t)n * 8);
        double *di, *dout;
        CHECK(cudaMalloc(&di, (size_t)n * 8 + 8));
        CHECK(cudaMalloc(&dout, (size_t)n * 8 + 8));
        CHECK(cudaMemcpy(di, in.data(), (size_t)n * 8, cudaMemcpyHostToDevice));
        k_dlist<<<(n + 255) / 256, 256>>>(di, n, dout, !strcmp(mode, "dlist") ? 0 : !strcmp(mode, "dilist") ? 1 : 2);
        std::vector<double> h(n);
        CHECK(cudaMemcpy(h.data(), dout, (size_t)n * 8, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 8, n, stdout);
    } else if (!strcmp(mode, "hist")) {
        unsigned long long *d;
        CHECK(cudaMalloc(&d, NB * 8 * 8));
        CHECK(cudaMemset(d, 0, NB * 8 * 8));
        for (uint32_t base = 0; base <= 0x40000000u; base += 1u << 24)
            k_hist<<<(1u << 24) / 256, 256>>>(base, d);
        std::vector<unsigned long long> h(NB * 8);
        CHECK(cudaMemcpy(h.data(), d, NB * 8 * 8, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 8, h.size(), stdout);
#ifdef ERFCINVF_MODEL
    } else if (!strcmp(mode, "verify")) {
        const uint32_t cap = 1u << 20;
        unsigned long long *d, *nbad;
        uint32_t *bad;
        CHECK(cudaMalloc(&d, NB * 8));
        CHECK(cudaMalloc(&nbad, 8));
        CHECK(cudaMalloc(&bad, cap * 4));
        CHECK(cudaMemset(d, 0, NB * 8));
        CHECK(cudaMemset(nbad, 0, 8));
        for (uint32_t base = 0; base <= 0x40000000u; base += 1u << 24)
            k_verify<<<(1u << 24) / 256, 256>>>(base, d, bad, nbad, cap);
        std::vector<unsigned long long> h(NB);
        unsigned long long nb;
        CHECK(cudaMemcpy(h.data(), d, NB * 8, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&nb, nbad, 8, cudaMemcpyDeviceToHost));
        std::vector<uint32_t> b(nb < cap ? nb : cap);
        CHECK(cudaMemcpy(b.data(), bad, b.size() * 4, cudaMemcpyDeviceToHost));
        fwrite(h.data(), 8, NB, stdout);
        fwrite(b.data(), 4, b.size(), stdout);
#endif
    } else {
        fprintf(stderr, "unknown mode %s\n", mode);
        return 2;
    }
    CHECK(cudaDeviceSynchronize());
    return 0;
}
