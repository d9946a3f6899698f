/* Device atomics of system scope (atomicAdd_system, atomicOr_system) on managed memory while a host
 * thread updates the same words with its own atomic instructions, as NVIDIA's systemWideAtomics
 * does: no update of either side may be lost. The truth is counted independently: the kernel adds a
 * known total, the host counts its own additions while the kernel runs. */
#include <cuda_runtime.h>
#include "check.h"

#define THREADS 64
#define ROUNDS 3000

__global__ void add_system(int *words) {
    for (int r = 0; r < ROUNDS; ++r) {
        atomicAdd_system(&words[0], 1);
        atomicOr_system((unsigned *)&words[1], 1u << (threadIdx.x % 16));
    }
}

int main() {
    int *words = NULL;
    CHECK_CUDA(cudaMallocManaged(&words, 2 * sizeof(int)));
    words[0] = 0;
    words[1] = 0;
    add_system<<<1, THREADS>>>(words);
    long host_adds = 0;
    unsigned host_bits = 0;
    /* the host keeps adding while the kernel runs (launches return at once) */
    while (cudaStreamQuery(0) == cudaErrorNotReady || host_adds < 1000) {
        __sync_fetch_and_add(&words[0], 1);
        unsigned bit = 1u << (16 + host_adds % 16);
        __sync_fetch_and_or((unsigned *)&words[1], bit);
        host_bits |= bit;
        ++host_adds;
    }
    CHECK_CUDA(cudaDeviceSynchronize());
    long want = (long)THREADS * ROUNDS + host_adds;
    if (words[0] != want)
        printf("words[0] = %d, want %ld (%ld host additions)\n", words[0], want, host_adds);
    CHECK(words[0] == want);
    CHECK((unsigned)words[1] == (0xffffu | host_bits));
    CHECK_CUDA(cudaFree(words));
    return finish("system_atomics");
}
