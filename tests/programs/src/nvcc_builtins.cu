// nvcc's built-in atomic functions (CUDA 12.8, __nv_atomic_*) and names glibc's <stdlib.h> brings
// into scope (uint, ushort), as HeCBench programs use them.
#include <cstdlib>
#include "check.h"

__global__ void atomics(uint *u, int *i, float *f, double *d, unsigned long long *q) {
    __nv_atomic_fetch_add(u, 1u, __NV_ATOMIC_RELAXED, __NV_THREAD_SCOPE_DEVICE);
    __nv_atomic_add(f, 0.5f, __NV_ATOMIC_RELAXED);
    __nv_atomic_fetch_add(d, 0.25, __NV_ATOMIC_ACQ_REL, __NV_THREAD_SCOPE_BLOCK);
    __nv_atomic_max(i, (int)threadIdx.x, __NV_ATOMIC_RELEASE);
    __nv_atomic_fetch_min(i + 1, -(int)threadIdx.x, __NV_ATOMIC_SEQ_CST);
    __nv_atomic_or(q, 1ull << (threadIdx.x % 64), __NV_ATOMIC_RELAXED);
    uint expected = 0;
    if (__nv_atomic_compare_exchange_n(u + 1, &expected, threadIdx.x + 100, false, __NV_ATOMIC_ACQUIRE,
                                       __NV_ATOMIC_RELAXED))
        __nv_atomic_store_n(u + 2, threadIdx.x + 100, __NV_ATOMIC_RELEASE);
    __nv_atomic_thread_fence(__NV_ATOMIC_SEQ_CST, __NV_THREAD_SCOPE_DEVICE);
    uint nv = 7, old;
    __nv_atomic_exchange(u + 3, &nv, &old, __NV_ATOMIC_RELAXED);
    if (__nv_atomic_load_n(u + 3, __NV_ATOMIC_ACQUIRE) != 7) __nv_atomic_add(u + 4, 1u, __NV_ATOMIC_RELAXED);
}

int main() {
    uint *u; int *i; float *f; double *d; unsigned long long *q;
    CHECK_CUDA(cudaMallocManaged(&u, 5 * sizeof(uint)));
    CHECK_CUDA(cudaMallocManaged(&i, 2 * sizeof(int)));
    CHECK_CUDA(cudaMallocManaged(&f, sizeof(float)));
    CHECK_CUDA(cudaMallocManaged(&d, sizeof(double)));
    CHECK_CUDA(cudaMallocManaged(&q, sizeof(unsigned long long)));
    for (int k = 0; k < 5; ++k) u[k] = 0;
    i[0] = -1; i[1] = 1; *f = 0; *d = 0; *q = 0;
    atomics<<<2, 96>>>(u, i, f, d, q);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(u[0] == 192 && u[1] >= 100 && u[1] < 196 && u[2] == u[1] && u[3] == 7 && u[4] == 0);
    CHECK(i[0] == 95 && i[1] == -95 && *f == 96.0f && *d == 48.0 && *q == ~0ull);
    ushort s = 3;
    CHECK(s == 3);
    return finish("nvcc_builtins");
}
