// Host code written for OpenMP (nvcc -Xcompiler -fopenmp): with CuMetal it builds with a note and runs
// serially; the results must equal the sequential definition.
#include <omp.h>
#include <stdio.h>

__global__ void square(int *v, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) v[i] = v[i] * v[i];
}

int main() {
    const int n = 1000;
    int *v;
    cudaMallocManaged(&v, n * sizeof(int));
    long long threads_seen = 0;
#pragma omp parallel for reduction(+ : threads_seen)
    for (int i = 0; i < n; i++) {
        v[i] = i - 500;
        threads_seen += omp_get_thread_num() == 0;
    }
    square<<<(n + 255) / 256, 256>>>(v, n);
    cudaDeviceSynchronize();
    long long sum = 0;
    for (int i = 0; i < n; i++) sum += v[i];
    omp_lock_t lock;
    omp_init_lock(&lock);
    omp_set_lock(&lock);
    int busy = omp_test_lock(&lock);
    omp_unset_lock(&lock);
    double t0 = omp_get_wtime();
    printf("threads=%d max=%d seen=%lld sum=%lld busy=%d wtime_ok=%d\n", omp_get_num_threads(),
           omp_get_max_threads(), threads_seen, sum, busy, omp_get_wtime() >= t0);
    return 0;
}
