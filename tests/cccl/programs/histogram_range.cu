// cub::DeviceHistogram::HistogramRange over N floats (argument 1), counts checked against the host's
// (tests/cccl/test_cccl_histogram_range_jit.py): its sweep kernel, after the work-item transform, is
// among the largest CuMetal compiles (LLVM's SLP vectorizer once never finished on it).
#include <cub/cub.cuh>
#include <cstdio>
#include <cstdlib>
#include <vector>

int main(int argc, char **argv) {
    const int n = argc > 1 ? atoi(argv[1]) : 1 << 20, bins = 10;
    std::vector<float> h(n);
    std::vector<int> expect(bins, 0);
    for (int i = 0; i < n; i++) {
        h[i] = (float)(((long long)i * 7919) % 1000) / 10.0f; /* 0.0 ... 99.9 */
        expect[(int)(h[i] / 10.0f)]++;
    }
    float levels[bins + 1];
    for (int i = 0; i <= bins; i++) levels[i] = i * 10.0f;
    float *d_in, *d_levels;
    int *d_hist;
    cudaMalloc(&d_in, n * sizeof(float));
    cudaMalloc(&d_levels, sizeof levels);
    cudaMalloc(&d_hist, bins * sizeof(int));
    cudaMemcpy(d_in, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
    cudaMemcpy(d_levels, levels, sizeof levels, cudaMemcpyHostToDevice);
    void *tmp = nullptr;
    size_t bytes = 0;
    cub::DeviceHistogram::HistogramRange(tmp, bytes, d_in, d_hist, bins + 1, d_levels, n);
    cudaMalloc(&tmp, bytes);
    cub::DeviceHistogram::HistogramRange(tmp, bytes, d_in, d_hist, bins + 1, d_levels, n);
    int got[bins];
    if (cudaMemcpy(got, d_hist, sizeof got, cudaMemcpyDeviceToHost) != cudaSuccess) return 1;
    for (int b = 0; b < bins; b++)
        if (got[b] != expect[b]) {
            printf("bin %d: %d, expected %d\n", b, got[b], expect[b]);
            return 1;
        }
    printf("PASSED\n");
    return 0;
}
