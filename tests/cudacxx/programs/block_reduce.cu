// CUB-style building blocks written by hand: a templated BlockReduce / BlockScan over warp
// shuffles and shared memory (TempStorage unions), a grid-stride reduction with atomics, a
// shared-memory histogram, a decoupled two-pass scan and dynamic shared memory of two types.
#include <cstdio>

template <typename T, int BLOCK>
struct BlockReduce {
    static constexpr int WARPS = BLOCK / 32;
    union TempStorage { T warp_sums[WARPS]; T scan[BLOCK]; };
    TempStorage &tmp;
    __device__ explicit BlockReduce(TempStorage &t) : tmp(t) {}
    template <typename Op>
    __device__ T reduce(T v, Op op) {
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        if (lane == 0) tmp.warp_sums[warp] = v;
        __syncthreads();
        if (warp == 0) {
            v = lane < WARPS ? tmp.warp_sums[lane] : T(0);
            for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_down_sync(0xffffffffu, v, o));
        }
        __syncthreads();
        return v;
    }
    __device__ T sum(T v) { return reduce(v, [](T a, T b) { return a + b; }); }
    // inclusive scan: warp scans, then the warp totals scanned by warp 0
    __device__ T inclusive_sum(T v) {
        int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
        for (int o = 1; o < 32; o <<= 1) {
            T u = __shfl_up_sync(0xffffffffu, v, o);
            if (lane >= o) v += u;
        }
        if (lane == 31) tmp.warp_sums[warp] = v;
        __syncthreads();
        if (warp == 0) {
            T w = lane < WARPS ? tmp.warp_sums[lane] : T(0);
            for (int o = 1; o < 32; o <<= 1) {
                T u = __shfl_up_sync(0xffffffffu, w, o);
                if (lane >= o) w += u;
            }
            if (lane < WARPS) tmp.warp_sums[lane] = w;
        }
        __syncthreads();
        T r = v + (warp > 0 ? tmp.warp_sums[warp - 1] : T(0));
        __syncthreads();
        return r;
    }
};

template <int BLOCK>
__global__ void reduce_kernel(const int *in, int n, unsigned long long *total, int *maxv) {
    using BR = BlockReduce<long long, BLOCK>;
    using BRi = BlockReduce<int, BLOCK>;
    __shared__ typename BR::TempStorage tmp;
    __shared__ typename BRi::TempStorage tmpi;
    long long s = 0;
    int m = -2147483647 - 1;
    for (int i = blockIdx.x * BLOCK + threadIdx.x; i < n; i += gridDim.x * BLOCK) { s += in[i]; m = max(m, in[i]); }
    long long bs = BR(tmp).sum(s);
    int bm = BRi(tmpi).reduce(m, [](int a, int b) { return a > b ? a : b; });
    if (threadIdx.x == 0) { atomicAdd(total, (unsigned long long)bs); atomicMax(maxv, bm); }
}

template <int BLOCK>
__global__ void scan_kernel(const int *in, int *out, int *block_totals, int n) {
    __shared__ typename BlockReduce<int, BLOCK>::TempStorage tmp;
    int i = blockIdx.x * BLOCK + threadIdx.x;
    int v = i < n ? in[i] : 0;
    int r = BlockReduce<int, BLOCK>(tmp).inclusive_sum(v);
    if (i < n) out[i] = r;
    if (threadIdx.x == BLOCK - 1) block_totals[blockIdx.x] = r;
}

__global__ void add_offsets(int *out, const int *block_totals, int n, int block) {
    int i = blockIdx.x * block + threadIdx.x;
    int off = 0;
    for (int b = 0; b < (int)blockIdx.x; ++b) off += block_totals[b];
    if (i < n) out[i] += off;
}

__global__ void histogram(const int *in, int n, unsigned *bins) {
    extern __shared__ unsigned char smem[];
    unsigned *local = reinterpret_cast<unsigned *>(smem);
    float *weights = reinterpret_cast<float *>(smem + 64 * sizeof(unsigned));
    for (int b = threadIdx.x; b < 64; b += blockDim.x) { local[b] = 0; weights[b] = b * 0.5f; }
    __syncthreads();
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        atomicAdd(&local[(in[i] & 0x7fffffff) % 64], 1u);
    __syncthreads();
    for (int b = threadIdx.x; b < 64; b += blockDim.x) atomicAdd(&bins[b], local[b] + (unsigned)weights[b] * 0);
}

int main() {
    const int n = 10000;
    static int h[n];
    unsigned s = 2024u;
    for (int i = 0; i < n; ++i) { s ^= s << 13; s ^= s >> 17; s ^= s << 5; h[i] = (int)(s % 20001u) - 10000; }
    int *d, *d_out, *d_tot, *d_max; unsigned long long *d_sum; unsigned *d_bins;
    cudaMalloc(&d, sizeof h); cudaMalloc(&d_out, sizeof h); cudaMalloc(&d_tot, 1024 * sizeof(int));
    cudaMalloc(&d_max, sizeof(int)); cudaMalloc(&d_sum, 8); cudaMalloc(&d_bins, 64 * 4);
    cudaMemcpy(d, h, sizeof h, cudaMemcpyHostToDevice);
    cudaMemset(d_sum, 0, 8);
    int mn = -2147483647 - 1;
    cudaMemcpy(d_max, &mn, 4, cudaMemcpyHostToDevice);
    reduce_kernel<256><<<8, 256>>>(d, n, d_sum, d_max);
    unsigned long long tot; int mx;
    cudaMemcpy(&tot, d_sum, 8, cudaMemcpyDeviceToHost);
    cudaMemcpy(&mx, d_max, 4, cudaMemcpyDeviceToHost);
    long long ref = 0; int refm = mn;
    for (int i = 0; i < n; ++i) { ref += h[i]; refm = h[i] > refm ? h[i] : refm; }
    printf("sum %lld (host %lld) max %d (host %d)\n", (long long)tot, ref, mx, refm);

    const int B = 128, nb = (n + B - 1) / B;
    scan_kernel<B><<<nb, B>>>(d, d_out, d_tot, n);
    add_offsets<<<nb, B>>>(d_out, d_tot, n, B);
    static int o[n];
    cudaMemcpy(o, d_out, sizeof o, cudaMemcpyDeviceToHost);
    long long run = 0; int bad = 0;
    for (int i = 0; i < n; ++i) { run += h[i]; bad += (o[i] != run); }
    printf("scan last %d bad %d\n", o[n - 1], bad);

    cudaMemset(d_bins, 0, 64 * 4);
    histogram<<<5, 96, 64 * 4 + 64 * 4>>>(d, n, d_bins);
    unsigned bins[64];
    cudaMemcpy(bins, d_bins, sizeof bins, cudaMemcpyDeviceToHost);
    unsigned hb[64] = {0};
    for (int i = 0; i < n; ++i) hb[(h[i] & 0x7fffffff) % 64]++;
    int hbad = 0;
    for (int b = 0; b < 64; ++b) hbad += bins[b] != hb[b];
    printf("hist bins[0] %u bins[63] %u bad %d\n", bins[0], bins[63], hbad);
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
