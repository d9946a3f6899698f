/* Kernels whose signatures name standard-library types. On Linux the host half of this file is
 * compiled against libstdc++ (std::) and the device half against libc++ (std::__1::), so the
 * registered names differ from the PTX's; the runtime must still find each kernel, and must refuse
 * (not guess) a std::tuple passed by value, whose layout differs between the two libraries. */
#include <functional>
#include <stdio.h>
#include <tuple>
#include <utility>

#include "check.h"

template <class Op> __global__ void apply(int *p, Op op) { p[threadIdx.x] = op(p[threadIdx.x], threadIdx.x); }
__global__ void sum_pair(std::pair<int, long long> pr, long long *out) { out[0] = pr.first + pr.second; }
__global__ void first_of(std::tuple<int, float> t, int *out) { out[0] = std::get<0>(t); }

int main(void) {
    int *p;
    long long *q;
    CHECK_CUDA(cudaMallocManaged(&p, 64 * sizeof(int)));
    CHECK_CUDA(cudaMallocManaged(&q, sizeof(long long)));
    for (int i = 0; i < 64; i++) p[i] = 10 * i;
    apply<<<1, 64>>>(p, std::plus<int>());
    CHECK_CUDA(cudaGetLastError());
    apply<<<1, 64>>>(p, std::multiplies<int>());
    CHECK_CUDA(cudaGetLastError());
    sum_pair<<<1, 1>>>(std::make_pair(3, 5000000000LL), q);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaDeviceSynchronize());
    for (int i = 0; i < 64; i++) CHECK(p[i] == (10 * i + i) * i);
    CHECK(q[0] == 5000000003LL);
    cudaFuncAttributes attr;
    CHECK_CUDA(cudaFuncGetAttributes(&attr, apply<std::plus<int>>));
    CHECK(attr.maxThreadsPerBlock > 0);
    first_of<<<1, 1>>>(std::make_tuple(7, 1.5f), p);
    cudaError_t tuple_err = cudaGetLastError();
#if defined(__GLIBCXX__) /* two libraries: refused with a message */
    CHECK(tuple_err == cudaErrorInvalidDeviceFunction);
#else /* one library (macOS): it simply runs */
    CHECK(tuple_err == cudaSuccess);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(p[0] == 7);
#endif
    cudaFree(p);
    cudaFree(q);
    return finish("std_kernel_names");
}
