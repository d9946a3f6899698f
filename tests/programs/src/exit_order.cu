/* Exit order: a handler that the program (or a library, as LLVM does for its function-local statics
 * on their first use) registers with atexit() AFTER CuMetal registered its own exit handler runs,
 * in exit()'s reverse order, BEFORE it. CuMetal's exit work (wait for enqueued launches and for
 * the background compile) must still come first: LLVM's destructors running under a compile
 * aborted programs at exit ("MVT::getSizeInBits ... Unexpected value type", NVIDIA's memMapIPCDrv).
 * Here the late handler checks that the kernel main left running has finished when it runs: that is
 * CuMetal's exit work (its exit hooks wait for enqueued launches), not a CUDA guarantee - built with
 * nvcc on an H100 (CUDA 13) this program reports FAIL, as CUDA does not wait for the kernel there. */
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

static volatile int *flag; /* mapped host memory: [0] done, [1] the kernel's result */

__global__ void slow_then_flag(volatile int *f, int n) {
    unsigned x = threadIdx.x;
    for (int i = 0; i < n; ++i)
        x = x * 1664525u + 1013904223u;
    if (threadIdx.x == 0) {
        f[1] = (int)x;
        __threadfence_system();
        f[0] = 1;
    }
}

static void late_handler(void) {
    if (flag[0] != 1) {
        printf("exit_order: FAIL (a handler registered after CuMetal's ran while its launch still ran)\n");
        fflush(stdout);
        _exit(3);
    }
    unsigned x = 0; /* thread 0's value, computed here */
    for (int i = 0; i < 20000; ++i)
        x = x * 1664525u + 1013904223u;
    if (flag[1] != (int)x) {
        printf("exit_order: FAIL (wrong kernel result)\n");
        fflush(stdout);
        _exit(4);
    }
    printf("exit_order: PASS\n");
    fflush(stdout);
}

int main() {
    void *p = NULL;
    CHECK_CUDA(cudaHostAlloc(&p, 2 * sizeof(int), cudaHostAllocMapped));
    flag = (volatile int *)p;
    flag[0] = flag[1] = 0;
    atexit(late_handler); /* after CuMetal's handler (registered at its first call, above) */
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    slow_then_flag<<<1, 32, 0, s>>>(flag, 20000);
    CHECK_CUDA(cudaGetLastError());
    if (g_failures)
        return finish("exit_order");
    return 0; /* no synchronisation: the late handler checks */
}
