// -Xcompiler -fopenmp: OpenMP threads (GCC's runtime) each drive the device, as the samples'
// cudaOpenMP does.
#include <omp.h>
#include "check.h"

__global__ void fill(int *p, int v) { p[threadIdx.x] = v; }

int main() {
    int ok_threads = 0, threads = 0;
#pragma omp parallel num_threads(4) reduction(+ : ok_threads, threads)
    {
        int id = omp_get_thread_num(), *d = NULL, h[32];
        bool ok = cudaSetDevice(0) == cudaSuccess && cudaMalloc(&d, sizeof h) == cudaSuccess;
        fill<<<1, 32>>>(d, id + 1);
        ok = ok && cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost) == cudaSuccess;
        ok = ok && h[0] == id + 1 && h[31] == id + 1 && cudaFree(d) == cudaSuccess;
        ok_threads += ok;
        threads += 1;
    }
    CHECK(threads == 4 && ok_threads == 4);
    return finish("openmp_threads");
}
