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
//   probe cand FILE              candidate models (see make_logf_recordings.py) against logf over all
//                                2^32 inputs: per candidate the mismatch count and the first 64
//                                mismatching inputs (text out)
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
    } else {
        return 2;
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    return 0;
}
