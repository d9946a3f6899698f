// Fits the constants of CuMetal's erfcinvf model (src/cumetal/libdevice/src/erfcinvf_h100.h) to the
// GPU's own erfcinvf, on the GPU (issue #15); driven by scripts/make_erfcinv_fit.py. Only the
// function's outputs are used: every float c in [LO, HI) (bit patterns) is scored by whether
//     p = c * (2 - c),  w = -lg2.approx(p)  [WMODE 1: w = w * f32(ln 2); WMODE 2: w = w - $SHIFT],
//     q = Horner(coefficients, w) with fma,  fma(q, -c, q)
// equals erfcinvf(c); WMODE 3, the tail's form (make_erfcinv_fit.py step 7): z = -lg2.approx(c),
//     r = rsqrt.approx(z),  q = Horner(coefficients, r),  RN(RN(z r) q). A greedy search moves one coefficient by +-2^k ulps at a time (all of them
// scored in one launch), then random moves of two or three coefficients when that stalls.
//
// With ERFINV_LO / ERFINV_HI set (bit patterns of y), erfinvf(y) on [LO, HI) is scored too, as
// RN(q y) with w = -lg2.approx(fma(-y, y, 1)) (the H100's erfinvf takes the same q further out).
//
//   search LO HI WMODE SECONDS SEED C_top ... C_0     (f32 bit patterns, highest degree first)
// prints the best coefficients and their score, and per unit of w the mismatches.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <random>
#include <vector>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
            exit(2);                                                                      \
        }                                                                                 \
    } while (0)

#define MAXNC 16
#define MAXK 512

__device__ __forceinline__ float lg2a(float x) {
    float r;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__device__ __forceinline__ float rsqa(float x) {
    float r;
    asm("rsqrt.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(x));
    return r;
}

__global__ void k_ref(uint32_t lo, uint32_t n, float *r, float *w, int wmode, float shift) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float c = __uint_as_float(lo + i);
    r[i] = erfcinvf(c);
    float ww = -lg2a(__fmul_rn(c, __fadd_rn(2.0f, -c)));
    if (wmode == 1) ww = __fmul_rn(ww, 0x1.62e430p-1f);
    if (wmode == 2) ww = __fadd_rn(ww, -shift);
    if (wmode == 3) ww = rsqa(-lg2a(c));
    w[i] = ww;
}

__global__ void k_ab_tail(uint32_t lo, uint32_t n, const float *w, float *a, float *b) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = __fmul_rn(-lg2a(__uint_as_float(lo + i)), w[i]);
    b[i] = 0.0f;
}

__global__ void k_ref_inv(uint32_t lo, uint32_t n, float *r, float *w, float *a, float *b) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float y = __uint_as_float(lo + i);
    r[i] = erfinvf(y);
    w[i] = -lg2a(__fmaf_rn(-y, y, 1.0f));
    a[i] = y;
    b[i] = 0.0f;
}

__global__ void k_ab(uint32_t lo, uint32_t n, float *a, float *b) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    a[i] = -__uint_as_float(lo + i);
    b[i] = 1.0f;
}

__global__ void k_score(uint32_t lo, uint32_t n, const float *r, const float *w, const float *fa, const float *fb,
                        const float *cand, int K, int NC, unsigned long long *score) {
    __shared__ float sc[MAXK * MAXNC];
    __shared__ unsigned cnt[MAXK];
    for (int t = threadIdx.x; t < K * NC; t += blockDim.x) sc[t] = cand[t];
    for (int t = threadIdx.x; t < K; t += blockDim.x) cnt[t] = 0;
    __syncthreads();
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    bool live = i < n;
    float aa = live ? fa[i] : 0.5f, bb = live ? fb[i] : 0.0f, rr = live ? r[i] : 0.0f, ww = live ? w[i] : 0.0f;
    for (int k = 0; k < K; ++k) {
        const float *co = sc + k * NC;
        float q = co[0];
        for (int j = 1; j < NC; ++j) q = __fmaf_rn(q, ww, co[j]);
        bool ok = live && __fmaf_rn(q, aa, bb * q) == rr;
        unsigned b = __ballot_sync(0xffffffffu, ok);
        if ((threadIdx.x & 31) == 0 && b) atomicAdd(&cnt[k], __popc(b));
    }
    __syncthreads();
    for (int t = threadIdx.x; t < K; t += blockDim.x)
        if (cnt[t]) atomicAdd(&score[t], (unsigned long long)cnt[t]);
}

__global__ void k_bins(uint32_t lo, uint32_t n, const float *r, const float *w, const float *fa, const float *fb,
                       const float *co, int NC, unsigned long long *bins) {
    uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float ww = w[i];
    float q = co[0];
    for (int j = 1; j < NC; ++j) q = __fmaf_rn(q, ww, co[j]);
    if (__fmaf_rn(q, fa[i], fb[i] * q) != r[i]) atomicAdd(&bins[max(0, min(15, (int)(ww * 2.0f)))], 1ull);
}

static float bump(float v, int d) {
    uint32_t b;
    memcpy(&b, &v, 4);
    b += d;
    memcpy(&v, &b, 4);
    return v;
}

int main(int argc, char **argv) {
    if (argc < 8 || strcmp(argv[1], "search")) {
        fprintf(stderr, "usage: search LO HI WMODE SECONDS SEED C_top ... C_0\n");
        return 2;
    }
    uint32_t lo = strtoul(argv[2], 0, 0), hi = strtoul(argv[3], 0, 0);
    int wmode = atoi(argv[4]);
    double seconds = atof(argv[5]);
    unsigned seed = strtoul(argv[6], 0, 0);
    int NC = argc - 7;
    std::vector<float> best(NC);
    for (int j = 0; j < NC; ++j) {
        uint32_t b = strtoul(argv[7 + j], 0, 0);
        memcpy(&best[j], &b, 4);
    }
    uint32_t n1 = hi - lo, ilo = 0, n2 = 0;
    if (getenv("ERFINV_LO") && getenv("ERFINV_HI")) {
        ilo = strtoul(getenv("ERFINV_LO"), 0, 0);
        n2 = strtoul(getenv("ERFINV_HI"), 0, 0) - ilo;
    }
    uint32_t n = n1 + n2;
    float *r, *w, *dc, *fa, *fb;
    unsigned long long *ds;
    CHECK(cudaMalloc(&r, (size_t)n * 4));
    CHECK(cudaMalloc(&w, (size_t)n * 4));
    CHECK(cudaMalloc(&fa, (size_t)n * 4));
    CHECK(cudaMalloc(&fb, (size_t)n * 4));
    CHECK(cudaMalloc(&dc, MAXK * MAXNC * 4));
    CHECK(cudaMalloc(&ds, MAXK * 8));
    const char *sh = getenv("SHIFT");
    k_ref<<<(n1 + 255) / 256, 256>>>(lo, n1, r, w, wmode, sh ? (float)atof(sh) : 0.0f);
    if (wmode == 3) k_ab_tail<<<(n1 + 255) / 256, 256>>>(lo, n1, w, fa, fb);
    else k_ab<<<(n1 + 255) / 256, 256>>>(lo, n1, fa, fb);
    if (n2) k_ref_inv<<<(n2 + 255) / 256, 256>>>(ilo, n2, r + n1, w + n1, fa + n1, fb + n1);
    auto eval = [&](const std::vector<std::vector<float>> &cands) {
        std::vector<float> flat;
        for (auto &c : cands) flat.insert(flat.end(), c.begin(), c.end());
        CHECK(cudaMemcpy(dc, flat.data(), flat.size() * 4, cudaMemcpyHostToDevice));
        CHECK(cudaMemset(ds, 0, cands.size() * 8));
        k_score<<<(n + 255) / 256, 256>>>(lo, n, r, w, fa, fb, dc, (int)cands.size(), NC, ds);
        std::vector<unsigned long long> s(cands.size());
        CHECK(cudaMemcpy(s.data(), ds, s.size() * 8, cudaMemcpyDeviceToHost));
        return s;
    };
    unsigned long long bs = eval({best})[0];
    printf("start %llu / %u\n", bs, n);
    std::mt19937 rng(seed);
    clock_t t0 = clock();
    int stall = 0, round = 0;
    while ((double)(clock() - t0) / CLOCKS_PER_SEC < seconds) {
        std::vector<std::vector<float>> cands;
        if (stall == 0) {
            for (int j = 0; j < NC; ++j)
                for (int e = 0; e < 14; ++e)
                    for (int s = -1; s <= 1; s += 2) {
                        auto c = best;
                        c[j] = bump(c[j], s * (1 << e));
                        cands.push_back(c);
                    }
        }
        while (cands.size() < (stall ? 256u : (size_t)NC * 28 + 64)) {
            auto c = best;
            int m = 2 + rng() % 2;
            for (int t = 0; t < m; ++t) {
                int j = rng() % NC, e = rng() % 10;
                c[j] = bump(c[j], (int)(rng() % (2u << e)) - (1 << e));
            }
            cands.push_back(c);
        }
        auto s = eval(cands);
        size_t arg = 0;
        for (size_t k = 1; k < s.size(); ++k)
            if (s[k] > s[arg]) arg = k;
        ++round;
        if (s[arg] > bs) {
            bs = s[arg];
            best = cands[arg];
            stall = 0;
            printf("round %d score %llu (%.6f)\n", round, bs, (double)bs / n);
            fflush(stdout);
        } else {
            ++stall;
        }
    }
    unsigned long long *db, hb[16];
    CHECK(cudaMalloc(&db, 16 * 8));
    CHECK(cudaMemset(db, 0, 16 * 8));
    CHECK(cudaMemcpy(dc, best.data(), NC * 4, cudaMemcpyHostToDevice));
    k_bins<<<(n + 255) / 256, 256>>>(lo, n, r, w, fa, fb, dc, NC, db);
    CHECK(cudaMemcpy(hb, db, 16 * 8, cudaMemcpyDeviceToHost));
    printf("rounds %d best %llu / %u (%.6f)\ncoeffs", round, bs, n, (double)bs / n);
    for (int j = 0; j < NC; ++j) {
        uint32_t b;
        memcpy(&b, &best[j], 4);
        printf(" 0x%08x", b);
    }
    printf("\nmismatches per half unit of w:");
    for (int k = 0; k < 16; ++k) printf(" %llu", hb[k]);
    printf("\n");
    return 0;
}
