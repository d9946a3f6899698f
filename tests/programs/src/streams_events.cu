// Streams, events, callbacks: ordering within a stream, cross-stream waits, host functions.
#include <atomic>
#include <thread>
#include "check.h"

__global__ void spin_add(int *p, int value, int rounds) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    int acc = 0;
    for (int r = 0; r < rounds; r++) acc += (r & 1);
    p[i] = p[i] * 2 + value + (acc - acc);
}

static std::atomic<int> g_order{0};
static int g_seen[4];
static void CUDART_CB on_stream(cudaStream_t, cudaError_t status, void *data) {
    int *slot = (int *)data;
    *slot = ++g_order * (status == cudaSuccess ? 1 : -1);
}
static void CUDART_CB on_host(void *data) { *(int *)data = ++g_order; }

int main() {
    const int n = 256;
    int *d = NULL, host[n];
    CHECK_CUDA(cudaMalloc(&d, n * sizeof(int)));
    CHECK_CUDA(cudaMemset(d, 0, n * sizeof(int)));
    cudaStream_t s1, s2;
    CHECK_CUDA(cudaStreamCreate(&s1));
    CHECK_CUDA(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    unsigned flags = 99;
    CHECK_CUDA(cudaStreamGetFlags(s2, &flags));
    CHECK(flags == cudaStreamNonBlocking);

    // in-order execution within s1: ((0*2+1)*2+2)*2+3 = 11
    cudaEvent_t start, stop, mid;
    CHECK_CUDA(cudaEventCreate(&start));
    CHECK_CUDA(cudaEventCreate(&stop));
    CHECK_CUDA(cudaEventCreateWithFlags(&mid, cudaEventDisableTiming));
    CHECK_CUDA(cudaEventRecord(start, s1));
    spin_add<<<n / 64, 64, 0, s1>>>(d, 1, 1000);
    spin_add<<<n / 64, 64, 0, s1>>>(d, 2, 10);
    CHECK_CUDA(cudaEventRecord(mid, s1));
    // s2 waits for s1's first two kernels, then adds 3
    CHECK_CUDA(cudaStreamWaitEvent(s2, mid, 0));
    spin_add<<<n / 64, 64, 0, s2>>>(d, 3, 10);
    CHECK_CUDA(cudaStreamAddCallback(s2, on_stream, &g_seen[0], 0));
    CHECK_CUDA(cudaLaunchHostFunc(s2, on_host, &g_seen[1]));
    CHECK_CUDA(cudaEventRecord(stop, s2));
    CHECK_CUDA(cudaEventSynchronize(stop));
    CHECK(cudaEventQuery(stop) == cudaSuccess);
    CHECK_CUDA(cudaStreamSynchronize(s2));
    CHECK(cudaStreamQuery(s2) == cudaSuccess);
    CHECK(g_seen[0] == 1 && g_seen[1] == 2);  // the callbacks ran in stream order
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, start, mid) == cudaErrorInvalidResourceHandle);  // mid has no timing
    CHECK(cudaGetLastError() == cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventElapsedTime(&ms, start, stop));
    CHECK(ms >= 0.0f);

    // async copies on a stream return at once and complete in order
    int *pinned = NULL;
    CHECK_CUDA(cudaMallocHost(&pinned, n * sizeof(int)));
    CHECK_CUDA(cudaMemcpyAsync(pinned, d, n * sizeof(int), cudaMemcpyDeviceToHost, s1));
    CHECK_CUDA(cudaStreamSynchronize(s1));
    CHECK(pinned[0] == 11 && pinned[n - 1] == 11);

    // the legacy default stream waits for other (blocking) streams
    spin_add<<<n / 64, 64, 0, s1>>>(d, 0, 10);
    CHECK_CUDA(cudaMemcpy(host, d, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(host[5] == 22);

    // host threads: each thread has its own last error and can use the per-thread stream
    int thread_ok = 0;
    std::thread t([&] {
        int *x = NULL;
        bool ok = cudaGetLastError() == cudaSuccess;
        ok &= cudaMalloc(&x, 64) == cudaSuccess;
        ok &= cudaMemsetAsync(x, 0, 64, cudaStreamPerThread) == cudaSuccess;
        ok &= cudaStreamSynchronize(cudaStreamPerThread) == cudaSuccess;
        ok &= cudaSetDevice(42) == cudaErrorInvalidDevice;
        ok &= cudaFree(x) == cudaSuccess;
        thread_ok = ok;
    });
    t.join();
    CHECK(thread_ok);
    CHECK(cudaGetLastError() == cudaSuccess);  // the other thread's error is not ours

    // several host threads launching and copying at once, each on its own stream
    std::atomic<int> good{0};
    std::thread workers[4];
    for (int w = 0; w < 4; w++) {
        workers[w] = std::thread([w, &good] {
            cudaStream_t st;
            int *x = NULL, h[64];
            bool ok = cudaStreamCreate(&st) == cudaSuccess && cudaMalloc(&x, sizeof h) == cudaSuccess;
            for (int round = 0; ok && round < 5; round++) {
                ok &= cudaMemsetAsync(x, 0, sizeof h, st) == cudaSuccess;
                spin_add<<<1, 64, 0, st>>>(x, w + round, 1);
                ok &= cudaMemcpyAsync(h, x, sizeof h, cudaMemcpyDeviceToHost, st) == cudaSuccess;
                ok &= cudaStreamSynchronize(st) == cudaSuccess;
                ok &= h[0] == w + round && h[63] == w + round;
            }
            ok &= cudaFree(x) == cudaSuccess && cudaStreamDestroy(st) == cudaSuccess;
            good += ok;
        });
    }
    for (auto &t : workers) t.join();
    CHECK(good == 4);

    // bad handles
    CHECK(cudaStreamSynchronize((cudaStream_t)0xdead) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventRecord((cudaEvent_t)0xbeef, 0) == cudaErrorInvalidResourceHandle);
    CHECK(cudaEventCreate(NULL) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    CHECK_CUDA(cudaEventDestroy(start));
    CHECK_CUDA(cudaEventDestroy(stop));
    CHECK_CUDA(cudaEventDestroy(mid));
    CHECK_CUDA(cudaStreamDestroy(s1));
    CHECK_CUDA(cudaStreamDestroy(s2));
    CHECK_CUDA(cudaFreeHost(pinned));
    CHECK_CUDA(cudaFree(d));
    return finish("streams_events");
}
