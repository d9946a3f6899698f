// Records NVIDIA's special-function unit (MUFU) results for the f32 .approx instructions (issues #15,
// #8), built and run by scripts/make_mufu_tables.py on an H100.
//
//   probe table OP OUTFILE          sin (OP 0) / cos (OP 1) of every positive float x < 2pi+, stored at
//                                   k = floor(frac(RZ(x * 0.15915494f)) * 2^25) (0xFFFFFFFF: no x gives k);
//                                   prints how many x disagree with the value kept for their k, how many
//                                   negative x follow the odd/even mirror, and how many x in [2pi, 2^20)
//                                   equal the table at their k.
//   probe range OP BASE COUNT OUT   OP of the COUNT consecutive float bit patterns from BASE (hex).
//   probe sample OP COUNT SEED OUT  OP of COUNT pseudo-random float bit patterns.
// OP: 0 sin, 1 cos, 2 ex2, 3 ex2.ftz, 4 lg2, 5 rsqrt, 6 rcp, 7 sqrt, 8 tanh (all .approx.f32).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#define CHECK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
    fprintf(stderr, "%s:%d %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

__device__ __forceinline__ float approx(int op, float x) {
    float r = 0.0f;
    switch (op) {
    case 0: asm("sin.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 1: asm("cos.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 2: asm("ex2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 3: asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 4: asm("lg2.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 5: asm("rsqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 6: asm("rcp.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 7: asm("sqrt.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    case 8: asm("tanh.approx.f32 %0, %1;" : "=f"(r) : "f"(x)); break;
    }
    return r;
}

// the argument in turns as ptxas reduces it (FMUL.RZ by f32(1/2pi)), as a 25-bit fraction of a turn
__device__ __forceinline__ uint32_t turn_index(float x) {
    float t = __fmul_rz(x, 0.15915494f);
    float f = t - floorf(t);
    return (uint32_t)(f * 33554432.0f) & 0x1FFFFFFu;
}

__global__ void build(int op, uint32_t lo, uint64_t n, uint32_t *table) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(lo + (uint32_t)i);
    table[turn_index(x)] = __float_as_uint(approx(op, x));
}

// counters: 0 disagree with table, 1 negative x mirrors (sin odd / cos even, bit for bit),
// 2 negative x equal table[2^25 - k] (two's complement turn), 3 big x equal, 4 big x unknown k, 5 big x differ
__global__ void check(int op, uint32_t lo, uint64_t n, const uint32_t *table, int mode,
                      unsigned long long *counters) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    float x = __uint_as_float(lo + (uint32_t)i);
    uint32_t k = turn_index(x);
    uint32_t r = __float_as_uint(approx(op, x));
    if (mode == 0) {
        if (r != table[k]) atomicAdd(&counters[0], 1ull);
    } else if (mode == 1) {
        uint32_t m = __float_as_uint(approx(op, -x));
        uint32_t want = op == 0 ? (r ^ 0x80000000u) : r;
        if (m == want) atomicAdd(&counters[1], 1ull);
        uint32_t kn = turn_index(-x);
        if (m == table[kn]) atomicAdd(&counters[2], 1ull);
    } else {
        uint32_t t = table[k];
        if (t == 0xFFFFFFFFu) atomicAdd(&counters[4], 1ull);
        else if (t == r) atomicAdd(&counters[3], 1ull);
        else atomicAdd(&counters[5], 1ull);
    }
}

__global__ void range(int op, uint32_t base, uint64_t n, uint32_t *out) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i < n) out[i] = __float_as_uint(approx(op, __uint_as_float(base + (uint32_t)i)));
}

__host__ __device__ uint32_t mix(uint64_t z) {  // splitmix64, upper word
    z += 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return (uint32_t)((z ^ (z >> 31)) >> 32);
}

__global__ void sample(int op, uint64_t seed, uint64_t n, uint32_t *in, uint32_t *out) {
    uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x;
    if (i >= n) return;
    uint32_t b = mix(seed * 0x100000000ull + i);
    in[i] = b;
    out[i] = __float_as_uint(approx(op, __uint_as_float(b)));
}

// one kernel per instruction, so the SASS around each MUFU can be read (cuobjdump -sass -fun one_<op>)
#define ONE(name, op) extern "C" __global__ void one_##name(float *o, const float *i) { \
    o[threadIdx.x] = approx(op, i[threadIdx.x]); }
ONE(sin, 0) ONE(cos, 1) ONE(ex2, 2) ONE(ex2_ftz, 3) ONE(lg2, 4) ONE(rsqrt, 5) ONE(rcp, 6) ONE(sqrt, 7) ONE(tanh, 8)

static unsigned blocks(uint64_t n) { return (unsigned)((n + 255) / 256); }

static void save(const char *path, const void *p, size_t bytes) {
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, bytes, f) != bytes) { fprintf(stderr, "cannot write %s\n", path); exit(2); }
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 4) { fprintf(stderr, "usage: probe table|range|sample OP ...\n"); return 2; }
    int op = atoi(argv[2]);
    if (!strcmp(argv[1], "table")) {
        const uint64_t size = 1ull << 25;
        const uint32_t lo = 0, hi = 0x40C91000u;  // every positive float up to just past 2pi
        uint32_t *table;
        unsigned long long *cnt;
        CHECK(cudaMalloc(&table, size * 4));
        CHECK(cudaMalloc(&cnt, 8 * sizeof(unsigned long long)));
        CHECK(cudaMemset(table, 0xFF, size * 4));
        CHECK(cudaMemset(cnt, 0, 8 * sizeof(unsigned long long)));
        build<<<blocks(hi - lo), 256>>>(op, lo, hi - lo, table);
        check<<<blocks(hi - lo), 256>>>(op, lo, hi - lo, table, 0, cnt);
        check<<<blocks(hi - lo), 256>>>(op, lo, hi - lo, table, 1, cnt);
        const uint32_t big_hi = 0x49800000u;  // 2^20
        check<<<blocks(big_hi - hi), 256>>>(op, hi, big_hi - hi, table, 2, cnt);
        CHECK(cudaDeviceSynchronize());
        std::vector<uint32_t> h(size);
        unsigned long long c[8];
        CHECK(cudaMemcpy(h.data(), table, size * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(c, cnt, sizeof c, cudaMemcpyDeviceToHost));
        save(argv[3], h.data(), size * 4);
        printf("table op %d: x %u..%u; disagree %llu; negative mirror %llu, negative=table[k(-x)] %llu of %u; "
               "x in [2pi,2^20): equal %llu, unknown k %llu, differ %llu\n", op, lo, hi, c[0], c[1], c[2], hi - lo,
               c[3], c[4], c[5]);
    } else if (!strcmp(argv[1], "range")) {
        uint32_t base = (uint32_t)strtoul(argv[3], 0, 16);
        uint64_t n = strtoull(argv[4], 0, 10);
        uint32_t *d;
        CHECK(cudaMalloc(&d, n * 4));
        range<<<blocks(n), 256>>>(op, base, n, d);
        std::vector<uint32_t> h(n);
        CHECK(cudaMemcpy(h.data(), d, n * 4, cudaMemcpyDeviceToHost));
        save(argv[5], h.data(), n * 4);
    } else if (!strcmp(argv[1], "sample")) {
        uint64_t n = strtoull(argv[3], 0, 10), seed = strtoull(argv[4], 0, 10);
        uint32_t *din, *dout;
        CHECK(cudaMalloc(&din, n * 4));
        CHECK(cudaMalloc(&dout, n * 4));
        sample<<<blocks(n), 256>>>(op, seed, n, din, dout);
        std::vector<uint32_t> h(2 * n);
        CHECK(cudaMemcpy(h.data(), din, n * 4, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(h.data() + n, dout, n * 4, cudaMemcpyDeviceToHost));
        save(argv[5], h.data(), n * 8);
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    return 0;
}
