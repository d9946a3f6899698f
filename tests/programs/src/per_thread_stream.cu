/* `cumetalc --default-stream per-thread` (nvcc's flag): stream 0 then names the calling thread's own
 * default stream (cudaStreamPerThread), not the legacy default stream, and each host thread has its
 * own; without the flag stream 0 is the legacy stream. The same source is built both ways (built with
 * nvcc both ways on an H100, CUDA 13: PASS). */
#include <cuda_runtime.h>
#include <pthread.h>
#include "check.h"

static unsigned long long id_of(cudaStream_t s) {
    unsigned long long id = 0;
    CHECK_CUDA(cudaStreamGetId(s, &id));
    return id;
}

static void *other_thread(void *out) {
    *(unsigned long long *)out = id_of(0);
    return NULL;
}

__global__ void add_one(int *p) { p[threadIdx.x] += 1; }

int main() {
    unsigned long long zero = id_of(0), per_thread = id_of(cudaStreamPerThread), legacy = id_of(cudaStreamLegacy);
    unsigned long long other = 0;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, other_thread, &other) == 0);
    CHECK(pthread_join(t, NULL) == 0);
#ifdef CUDA_API_PER_THREAD_DEFAULT_STREAM
    const char *name = "per_thread_stream (per-thread)";
    CHECK(zero == per_thread && zero != legacy);
    CHECK(other != zero && other != legacy); /* the other thread's stream 0 is its own */
#else
    const char *name = "per_thread_stream (legacy)";
    CHECK(zero == legacy && zero != per_thread);
    CHECK(other == legacy);
#endif
    int *d = NULL, h[32];
    CHECK_CUDA(cudaMalloc(&d, sizeof h));
    CHECK_CUDA(cudaMemsetAsync(d, 0, sizeof h, 0));
    add_one<<<1, 32>>>(d); /* stream 0 in either mode */
    CHECK_CUDA(cudaMemcpyAsync(h, d, sizeof h, cudaMemcpyDeviceToHost, 0));
    CHECK_CUDA(cudaStreamSynchronize(0));
    for (int i = 0; i < 32; ++i)
        CHECK(h[i] == 1);
    CHECK_CUDA(cudaFree(d));
    return finish(name);
}
