// The kinds of kernels and library calls llm.c's fp32 GPT-2 trainer is made of, in CuMetal's own
// code: float4 embedding loads, warp-per-row LayerNorm with cooperative_groups reductions and
// streaming loads/stores, a shared-memory tiled matmul with __launch_bounds__, attention through
// cublasSgemmStridedBatched and a causal softmax, tanh GELU forward/backward, a block-wide fused
// softmax + cross-entropy writing its gradient in place, cublasSgemm backward passes (beta = 0 and
// beta = 1 accumulation), a bias gradient in dynamic shared memory, LayerNorm backward and the
// embedding backward with float atomics, and an AdamW update.
//
// usage: mini_gpt IN OUT. IN holds int32 tokens[B*T], targets[B*T], then float32 wte[VP*C],
// wpe[T*C], lnw[C], lnb[C], wqkv[3C*C], bqkv[3C], wfc[4C*C], bfc[4C], dfc[B*T*4C] (the gradient
// arriving at the GELU output), params/grads/m/v[NA]. OUT gets the float32 results listed in
// main(), in that order (tests/llmc/test_mini_gpt.py recomputes each with numpy).
#include <cooperative_groups.h>
#include <cooperative_groups/reduce.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace cg = cooperative_groups;

constexpr int B = 2, T = 16, C = 64, NH = 4, HS = C / NH, V = 100, VP = 128, NA = 1000;
constexpr int BT = B * T;

#define CHECK(x)                                                                            \
    do {                                                                                    \
        cudaError_t e_ = (x);                                                               \
        if (e_ != cudaSuccess) {                                                            \
            fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));     \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)
#define CHECK_BLAS(x)                                                                       \
    do {                                                                                    \
        cublasStatus_t s_ = (x);                                                            \
        if (s_ != CUBLAS_STATUS_SUCCESS) {                                                  \
            fprintf(stderr, "%s:%d: cuBLAS status %d\n", __FILE__, __LINE__, (int)s_);      \
            exit(1);                                                                        \
        }                                                                                   \
    } while (0)

__global__ void embed(float4* out, const int* tok, const float4* wte, const float4* wpe) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;  // one float4 of one (b, t) row
    constexpr int C4 = C / 4;
    if (i >= BT * C4) return;
    int bt = i / C4, c4 = i % C4, t = bt % T;
    float4 a = wte[tok[bt] * C4 + c4], p = wpe[t * C4 + c4];
    out[i] = make_float4(a.x + p.x, a.y + p.y, a.z + p.z, a.w + p.w);
}

__global__ void layernorm(float* out, float* mean, float* rstd, const float* x, const float* w,
                          const float* b, int rows) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= rows) return;
    const float* xr = x + row * C;
    float s = 0.f;
    for (int c = warp.thread_rank(); c < C; c += 32) s += xr[c];
    float m = cg::reduce(warp, s, cg::plus<float>{}) / C;
    float q = 0.f;
    for (int c = warp.thread_rank(); c < C; c += 32) q += (xr[c] - m) * (xr[c] - m);
    float r = rsqrtf(cg::reduce(warp, q, cg::plus<float>{}) / C + 1e-5f);
    if (warp.thread_rank() == 0) {
        __stcs(mean + row, m);
        __stcs(rstd + row, r);
    }
    for (int c = warp.thread_rank(); c < C; c += 32) __stcs(out + row * C + c, (__ldcs(xr + c) - m) * r * w[c] + b[c]);
}

// out[r][o] = sum_k in[r][k] w[o][k] + bias[o]; 16x16 tiles, K a multiple of 16
__global__ void __launch_bounds__(256) matmul(float* out, const float* in, const float* w, const float* bias,
                                              int rows, int K, int O) {
    __shared__ float a[16][17], bt[16][17];
    int r = blockIdx.y * 16 + threadIdx.y, o = blockIdx.x * 16 + threadIdx.x;
    float acc = 0.f;
    for (int k0 = 0; k0 < K; k0 += 16) {
        int ar = blockIdx.y * 16 + threadIdx.y, wo = blockIdx.x * 16 + threadIdx.y;
        a[threadIdx.y][threadIdx.x] = ar < rows ? in[ar * K + k0 + threadIdx.x] : 0.f;
        bt[threadIdx.y][threadIdx.x] = wo < O ? w[wo * K + k0 + threadIdx.x] : 0.f;
        __syncthreads();
#pragma unroll
        for (int k = 0; k < 16; k++) acc = fmaf(a[threadIdx.y][k], bt[threadIdx.x][k], acc);
        __syncthreads();
    }
    if (r < rows && o < O) out[r * O + o] = acc + (bias ? bias[o] : 0.f);
}

// (B, T, 3, NH, HS) -> q, k, v each (B, NH, T, HS)
__global__ void split_heads(float* q, float* k, float* v, const float* qkv) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * NH * T * HS) return;
    int d = i % HS, t = (i / HS) % T, h = (i / (HS * T)) % NH, b = i / (HS * T * NH);
    const float* src = qkv + (b * T + t) * 3 * C + h * HS + d;
    q[i] = __ldcs(src);
    k[i] = __ldcs(src + C);
    v[i] = __ldcs(src + 2 * C);
}

__global__ void merge_heads(float* out, const float* y) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= B * NH * T * HS) return;
    int d = i % HS, t = (i / HS) % T, h = (i / (HS * T)) % NH, b = i / (HS * T * NH);
    out[(b * T + t) * C + h * HS + d] = y[i];
}

// one warp per (head, query) row: causal softmax of scale * pre over keys 0..t
__global__ void causal_softmax(float* att, const float* pre, float scale) {
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row >= B * NH * T) return;
    int t = row % T;
    const float* x = pre + row * T;
    float mx = -INFINITY;
    for (int j = warp.thread_rank(); j <= t; j += 32) mx = fmaxf(mx, x[j]);
    mx = cg::reduce(warp, mx, cg::greater<float>{});
    float s = 0.f;
    for (int j = warp.thread_rank(); j <= t; j += 32) s += expf(scale * (x[j] - mx));
    s = cg::reduce(warp, s, cg::plus<float>{});
    for (int j = warp.thread_rank(); j < T; j += 32) att[row * T + j] = j <= t ? expf(scale * (x[j] - mx)) / s : 0.f;
}

__device__ float gelu(float x) {
    const float k = sqrtf(2.0f / M_PI);
    return 0.5f * x * (1.0f + tanhf(k * (x + 0.044715f * x * x * x)));
}

__global__ void gelu_forward(float* out, const float* in, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = gelu(in[i]);
}

__global__ void gelu_backward(float* din, const float* in, const float* dout, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    const float k = sqrtf(2.0f / M_PI);
    float x = in[i], u = k * (x + 0.044715f * x * x * x), th = tanhf(u);
    float du = k * (1.0f + 3.0f * 0.044715f * x * x);
    din[i] = dout[i] * (0.5f * (1.0f + th) + 0.5f * x * (1.0f - th * th) * du);
}

// one block per row: softmax over the V real logits, loss = -log p[target], and the logits
// replaced by d(mean loss)/d(logits); the padded columns V..VP-1 are left alone
__global__ void softmax_xent(float* logits, float* losses, const int* targets) {
    __shared__ float part[32];
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    float* x = logits + blockIdx.x * VP;
    float mx = -INFINITY;
    for (int i = threadIdx.x; i < V; i += blockDim.x) mx = fmaxf(mx, x[i]);
    mx = cg::reduce(warp, mx, cg::greater<float>{});
    if (warp.thread_rank() == 0) part[warp.meta_group_rank()] = mx;
    block.sync();
    mx = warp.thread_rank() < warp.meta_group_size() ? part[warp.thread_rank()] : -INFINITY;
    mx = cg::reduce(warp, mx, cg::greater<float>{});
    block.sync();
    float s = 0.f;
    for (int i = threadIdx.x; i < V; i += blockDim.x) s += expf(x[i] - mx);
    s = cg::reduce(warp, s, cg::plus<float>{});
    if (warp.thread_rank() == 0) part[warp.meta_group_rank()] = s;
    block.sync();
    s = warp.thread_rank() < warp.meta_group_size() ? part[warp.thread_rank()] : 0.f;
    s = cg::reduce(warp, s, cg::plus<float>{});
    int tgt = targets[blockIdx.x];
    if (threadIdx.x == 0) losses[blockIdx.x] = logf(s) + mx - x[tgt];
    block.sync();  // everyone has read x[tgt] before it is overwritten
    for (int i = threadIdx.x; i < V; i += blockDim.x) {
        float p = expf(x[i] - mx) / s;
        x[i] = (p - (i == tgt ? 1.f : 0.f)) * (1.0f / BT);
    }
}

__global__ void bias_backward(float* dbias, const float* dout, int rows, int O) {
    extern __shared__ float acc[];
    int o = blockIdx.x;
    float s = 0.f;
    for (int r = threadIdx.x; r < rows; r += blockDim.x) s += dout[r * O + o];
    acc[threadIdx.x] = s;
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (threadIdx.x < stride) acc[threadIdx.x] += acc[threadIdx.x + stride];
        __syncthreads();
    }
    if (threadIdx.x == 0) dbias[o] += acc[0];
}

// one warp per row; parameter gradients gathered in shared memory, then added atomically
__global__ void layernorm_backward(float* dx, float* dw, float* db, const float* dout, const float* x,
                                   const float* w, const float* mean, const float* rstd) {
    extern __shared__ float sh[];  // dw[C], db[C]
    cg::thread_block block = cg::this_thread_block();
    cg::thread_block_tile<32> warp = cg::tiled_partition<32>(block);
    for (int c = threadIdx.x; c < 2 * C; c += blockDim.x) sh[c] = 0.f;
    block.sync();
    int row = blockIdx.x * warp.meta_group_size() + warp.meta_group_rank();
    if (row < BT) {
        float m = mean[row], r = rstd[row];
        float a = 0.f, b = 0.f;
        for (int c = warp.thread_rank(); c < C; c += 32) {
            float dn = w[c] * dout[row * C + c];
            a += dn;
            b += dn * (x[row * C + c] - m) * r;
        }
        a = cg::reduce(warp, a, cg::plus<float>{}) / C;
        b = cg::reduce(warp, b, cg::plus<float>{}) / C;
        for (int c = warp.thread_rank(); c < C; c += 32) {
            float n = (x[row * C + c] - m) * r, g = dout[row * C + c];
            atomicAdd(&sh[c], n * g);
            atomicAdd(&sh[C + c], g);
            dx[row * C + c] += (w[c] * g - a - n * b) * r;
        }
    }
    block.sync();
    for (int c = threadIdx.x; c < C; c += blockDim.x) {
        atomicAdd(&dw[c], sh[c]);
        atomicAdd(&db[c], sh[C + c]);
    }
}

__global__ void embed_backward(float* dwte, float* dwpe, const float* dout, const int* tok) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= BT * C) return;
    int bt = i / C, c = i % C, t = bt % T;
    atomicAdd(&dwte[tok[bt] * C + c], dout[i]);
    atomicAdd(&dwpe[t * C + c], dout[i]);
}

__global__ void adamw(float* p, const float* g, float* m, float* v, int n, float lr, float b1, float b2,
                      float c1, float c2, float eps, float wd) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    float mi = b1 * m[i] + (1 - b1) * g[i], vi = b2 * v[i] + (1 - b2) * g[i] * g[i];
    m[i] = mi;
    v[i] = vi;
    p[i] -= lr * ((mi / c1) / (sqrtf(vi / c2) + eps) + wd * p[i]);
}

__global__ void fill(float* x, float value, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] = value;
}

struct Buf {
    float* d;
    int n;
};

int main(int argc, char** argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: %s IN OUT\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "rb");
    if (!f) return 2;
    std::vector<int> itok(2 * BT);
    const int nin = VP * C + T * C + 2 * C + 3 * C * C + 3 * C + 4 * C * C + 4 * C + BT * 4 * C + 4 * NA;
    std::vector<float> in(nin);
    if (fread(itok.data(), 4, 2 * BT, f) != (size_t)(2 * BT) || fread(in.data(), 4, nin, f) != (size_t)nin) return 2;
    fclose(f);
    float* din;
    int* dtok;
    CHECK(cudaMalloc(&din, nin * sizeof(float)));
    CHECK(cudaMalloc(&dtok, 2 * BT * sizeof(int)));
    CHECK(cudaMemcpy(din, in.data(), nin * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dtok, itok.data(), 2 * BT * sizeof(int), cudaMemcpyHostToDevice));
    float *wte = din, *wpe = wte + VP * C, *lnw = wpe + T * C, *lnb = lnw + C, *wqkv = lnb + C;
    float *bqkv = wqkv + 3 * C * C, *wfc = bqkv + 3 * C, *bfc = wfc + 4 * C * C, *dfc = bfc + 4 * C;
    float *ap = dfc + BT * 4 * C, *ag = ap + NA, *am = ag + NA, *av = am + NA;
    int *tok = dtok, *tgt = dtok + BT;

    std::vector<Buf> outs;
    auto alloc = [&](int n) {
        float* p;
        CHECK(cudaMalloc(&p, n * sizeof(float)));
        CHECK(cudaMemset(p, 0, n * sizeof(float)));
        outs.push_back({p, n});
        return p;
    };
    float *x = alloc(BT * C), *ln = alloc(BT * C), *mean = alloc(BT), *rstd = alloc(BT);
    float *qkv = alloc(BT * 3 * C), *att = alloc(B * NH * T * T), *y = alloc(BT * C);
    float *fc = alloc(BT * 4 * C), *act = alloc(BT * 4 * C), *logits = alloc(BT * VP), *losses = alloc(BT);
    float *dpre = alloc(BT * 4 * C), *dln = alloc(BT * C), *dwfc = alloc(4 * C * C), *dbfc = alloc(4 * C);
    float *dx = alloc(BT * C), *dlnw = alloc(C), *dlnb = alloc(C), *dwte = alloc(VP * C), *dwpe = alloc(T * C);
    float *q, *k, *v, *pre, *yh;
    for (float** p : {&q, &k, &v, &yh}) CHECK(cudaMalloc(p, B * NH * T * HS * sizeof(float)));
    CHECK(cudaMalloc(&pre, B * NH * T * T * sizeof(float)));

    cublasHandle_t h;
    CHECK_BLAS(cublasCreate(&h));
    CHECK_BLAS(cublasSetMathMode(h, CUBLAS_DEFAULT_MATH));
    const float one = 1.f, zero = 0.f;

    // forward
    embed<<<(BT * C / 4 + 127) / 128, 128>>>((float4*)x, tok, (const float4*)wte, (const float4*)wpe);
    layernorm<<<(BT + 3) / 4, 128>>>(ln, mean, rstd, x, lnw, lnb, BT);
    matmul<<<dim3(3 * C / 16, (BT + 15) / 16), dim3(16, 16)>>>(qkv, ln, wqkv, bqkv, BT, C, 3 * C);
    int nh = B * NH * T * HS;
    split_heads<<<(nh + 255) / 256, 256>>>(q, k, v, qkv);
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_T, CUBLAS_OP_N, T, T, HS, &one, k, HS, T * HS, q, HS, T * HS,
                                         &zero, pre, T, T * T, B * NH));
    causal_softmax<<<(B * NH * T + 7) / 8, 256>>>(att, pre, 1.0f / sqrtf((float)HS));
    CHECK_BLAS(cublasSgemmStridedBatched(h, CUBLAS_OP_N, CUBLAS_OP_N, HS, T, T, &one, v, HS, T * HS, att, T, T * T,
                                         &zero, yh, HS, T * HS, B * NH));
    merge_heads<<<(nh + 255) / 256, 256>>>(y, yh);
    matmul<<<dim3(4 * C / 16, (BT + 15) / 16), dim3(16, 16)>>>(fc, ln, wfc, bfc, BT, C, 4 * C);
    gelu_forward<<<(BT * 4 * C + 255) / 256, 256>>>(act, fc, BT * 4 * C);
    matmul<<<dim3(VP / 16, (BT + 15) / 16), dim3(16, 16)>>>(logits, ln, wte, nullptr, BT, C, VP);
    softmax_xent<<<BT, 128>>>(logits, losses, tgt);

    // backward through GELU, the fc matmul (cuBLAS), its bias, LayerNorm and the embeddings
    gelu_backward<<<(BT * 4 * C + 255) / 256, 256>>>(dpre, fc, dfc, BT * 4 * C);
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, C, BT, 4 * C, &one, wfc, C, dpre, 4 * C, &zero, dln, C));
    fill<<<(4 * C * C + 255) / 256, 256>>>(dwfc, 1.0f, 4 * C * C);  // beta = 1 accumulates onto this
    CHECK_BLAS(cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_T, C, 4 * C, BT, &one, ln, C, dpre, 4 * C, &one, dwfc, C));
    bias_backward<<<4 * C, 64, 64 * sizeof(float)>>>(dbfc, dpre, BT, 4 * C);
    layernorm_backward<<<(BT + 3) / 4, 128, 2 * C * sizeof(float)>>>(dx, dlnw, dlnb, dln, x, lnw, mean, rstd);
    embed_backward<<<(BT * C + 255) / 256, 256>>>(dwte, dwpe, dx, tok);
    for (int step = 1; step <= 3; step++) {
        float c1 = 1.f - powf(0.9f, step), c2 = 1.f - powf(0.999f, step);
        adamw<<<(NA + 255) / 256, 256>>>(ap, ag, am, av, NA, 1e-2f, 0.9f, 0.999f, c1, c2, 1e-8f, 0.01f);
    }
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    FILE* o = fopen(argv[2], "wb");
    if (!o) return 2;
    std::vector<float> host;
    for (const Buf& b : outs) {
        host.resize(b.n);
        CHECK(cudaMemcpy(host.data(), b.d, b.n * sizeof(float), cudaMemcpyDeviceToHost));
        fwrite(host.data(), 4, b.n, o);
    }
    host.resize(4 * NA);
    CHECK(cudaMemcpy(host.data(), ap, 4 * NA * sizeof(float), cudaMemcpyDeviceToHost));
    fwrite(host.data(), 4, 4 * NA, o);  // adam params, grads (unchanged), m, v
    fclose(o);
    CHECK_BLAS(cublasDestroy(h));
    printf("done\n");
    return 0;
}
