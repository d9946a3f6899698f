// A cooperative launch with cooperative_groups::this_grid().sync(): three Jacobi-style sweeps
// over a ring, each reading neighbours written by other blocks before the grid barrier.
// Prints "out <i> <value>" lines (checked against numpy by tests/clusters/test_programs.py) and
// the error codes of a too-large cooperative grid and of a plain launch of the same kernel.
#include <cooperative_groups.h>
#include <cstdio>
#include <vector>

namespace cg = cooperative_groups;
constexpr int N = 64;
constexpr int BLOCKS = 8;

__global__ void sweeps(float *a, float *b, int n, int rounds) {
    cg::grid_group grid = cg::this_grid();
    int i = (int)grid.thread_rank();
    for (int r = 0; r < rounds; ++r) {
        float left = a[(i + n - 1) % n], right = a[(i + 1) % n];
        b[i] = 0.25f * left + 0.5f * a[i] + 0.25f * right;
        grid.sync();
        float *t = a; a = b; b = t;
    }
    if (grid.block_rank() == 0 && threadIdx.x == 0) b[0] = grid.is_valid() ? (float)grid.num_blocks() : -1.0f;
}

int main() {
    const int n = N * BLOCKS;
    int rounds = 3;
    std::vector<float> a(n), out(n);
    for (int i = 0; i < n; ++i) a[i] = (float)((i * 37) % 101);
    float *da, *db;
    cudaMalloc(&da, n * sizeof(float));
    cudaMalloc(&db, n * sizeof(float));
    cudaMemcpy(da, a.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    int per_sm = 0, sms = 0;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, sweeps, N, 0);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0);
    int nn = n;
    void *args[] = {&da, &db, &nn, &rounds};
    cudaError_t err = cudaLaunchCooperativeKernel((void *)sweeps, dim3(BLOCKS), dim3(N), args, 0, 0);
    printf("launch %d %d\n", (int)err, (int)cudaDeviceSynchronize());
    cudaMemcpy(out.data(), da, n * sizeof(float), cudaMemcpyDeviceToHost);  // 3 rounds end in b
    printf("valid %g\n", out[0]);  // a[0] after the swaps: num_blocks() when grid.is_valid()
    std::vector<float> outb(n);
    cudaMemcpy(outb.data(), db, n * sizeof(float), cudaMemcpyDeviceToHost);
    for (int i = 0; i < n; ++i) printf("out %d %.9g\n", i, outb[i]);
    err = cudaLaunchCooperativeKernel((void *)sweeps, dim3(per_sm * sms + 1), dim3(N), args, 0, 0);
    printf("too large %d\n", (int)err);
    return 0;
}
