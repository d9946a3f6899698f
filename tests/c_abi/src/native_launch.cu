// Many launches from C on several streams, with events, copies, a capture and a fault: what the
// native launch path (capi/csrc/cm_native_launch.c) must keep exact. tests/c_abi/test_native_launch.py
// runs it with the native path on and off and compares. Modes (argv[1]): "work" (default), "fault".
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct Mixed {
    char c;
    double d;
    int i;
    short s;
};

__global__ void inc(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

__global__ void accumulate(int *dst, const int *src, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) dst[i] += src[i];
}

__global__ void axpy(float a, const float *x, float *y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) y[i] = a * x[i] + y[i];
}

__global__ void mixed(struct Mixed m, unsigned char tag, long long big, double *out) {
    if (threadIdx.x == 0) out[blockIdx.x] = m.c + m.d + m.i + m.s + tag + (double)big;
}

__global__ void poke(int *p, int v) { p[threadIdx.x] = v; }

__global__ void spin(volatile int *flag) {
    while (*flag == 0) {
    }
}

__global__ void say(const int *p, int k) {
    if (threadIdx.x == 0) printf("say %d: a[0] = %d\n", k, p[0]);
}

#define CHECK(x)                                                                                   \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("FAIL %s:%d %s -> %d\n", __FILE__, __LINE__, #x, (int)e_);                      \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static int sum(const int *h, int n) {
    int s = 0;
    for (int i = 0; i < n; i++) s += h[i];
    return s;
}

static int work(void) {
    const int n = 1000, blocks = (n + 127) / 128;
    int *a, *b, *h = (int *)malloc(n * sizeof(int));
    CHECK(cudaMalloc(&a, n * sizeof(int)));
    CHECK(cudaMalloc(&b, n * sizeof(int)));
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    CHECK(cudaMemset(b, 0, n * sizeof(int)));

    // 1. the legacy stream: 300 launches, a copy in the middle sees exactly the first 120
    for (int k = 0; k < 120; k++) inc<<<blocks, 128>>>(a, n);
    CHECK(cudaMemcpyAsync(h, a, n * sizeof(int), cudaMemcpyDeviceToHost, 0));
    for (int k = 0; k < 180; k++) inc<<<blocks, 128>>>(a, n);
    CHECK(cudaStreamSynchronize(0));
    printf("legacy: snapshot %d (want %d)\n", sum(h, n), 120 * n);
    CHECK(cudaMemcpy(h, a, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("legacy: final %d (want %d)\n", sum(h, n), 300 * n);

    // 2. two non-blocking streams in lockstep through events: s2's additions see exactly s1's
    //    increments of the rounds so far, and s1's next round waits for them
    cudaStream_t s1, s2;
    CHECK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CHECK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    cudaEvent_t e1, e2, t0, t1;
    CHECK(cudaEventCreate(&e1));
    CHECK(cudaEventCreate(&e2));
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    CHECK(cudaEventRecord(t0, s1));
    for (int round = 0; round < 5; round++) {
        if (round) CHECK(cudaStreamWaitEvent(s1, e2, 0));
        for (int k = 0; k < 40; k++) inc<<<blocks, 128, 0, s1>>>(a, n);
        CHECK(cudaEventRecord(e1, s1));
        CHECK(cudaStreamWaitEvent(s2, e1, 0));
        for (int k = 0; k < 3; k++) accumulate<<<blocks, 128, 0, s2>>>(b, a, n);
        CHECK(cudaEventRecord(e2, s2));
    }
    CHECK(cudaEventRecord(t1, s2));
    CHECK(cudaEventSynchronize(t1));
    float ms = -1.0f;
    CHECK(cudaEventElapsedTime(&ms, t0, t1));
    CHECK(cudaMemcpy(h, b, n * sizeof(int), cudaMemcpyDeviceToHost));
    // b = 3 * (40 + 80 + 120 + 160 + 200) per element
    printf("streams: b %d (want %d), elapsed >= 0: %d\n", sum(h, n), 3 * 600 * n, ms >= 0.0f);

    // 3. parameters of every size and a struct with padding; a free and an allocation in between
    double *out;
    CHECK(cudaMalloc(&out, 4 * sizeof(double)));
    struct Mixed m = {3, 0.25, -7, 11};
    double want = 0.0, hd[4];
    for (int k = 0; k < 20; k++) {
        m.i = k;
        mixed<<<4, 32>>>(m, (unsigned char)(200 + k), (long long)k << 40, out);
        if (k == 9) {  // the plans go stale, and are armed again
            int *tmp;
            CHECK(cudaMalloc(&tmp, 64));
            CHECK(cudaFree(tmp));
        }
        want = 3 + 0.25 + k + 11 + (200 + k) + (double)((long long)k << 40);
    }
    CHECK(cudaMemcpy(hd, out, sizeof hd, cudaMemcpyDeviceToHost));
    printf("params: %.2f %.2f (want %.2f)\n", hd[0], hd[3], want);

    // 4. floats through axpy, 50 launches on s1
    float *x, *y, hx[256], hy[256];
    CHECK(cudaMalloc(&x, sizeof hx));
    CHECK(cudaMalloc(&y, sizeof hy));
    for (int i = 0; i < 256; i++) hx[i] = (float)i * 0.5f, hy[i] = 1.0f;
    CHECK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(y, hy, sizeof hy, cudaMemcpyHostToDevice));
    for (int k = 0; k < 50; k++) axpy<<<2, 128, 0, s1>>>(0.125f, x, y, 256);
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(hy, y, sizeof hy, cudaMemcpyDeviceToHost));
    printf("axpy: y[3] %.6f y[255] %.6f\n", hy[3], hy[255]);

    // 5. a capture on s1 after native launches there: the captured launches run only with the graph
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    for (int k = 0; k < 5; k++) inc<<<blocks, 128, 0, s1>>>(a, n);
    cudaGraph_t g;
    cudaGraphExec_t ge;
    CHECK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeGlobal));
    for (int k = 0; k < 7; k++) inc<<<blocks, 128, 0, s1>>>(a, n);
    CHECK(cudaStreamEndCapture(s1, &g));
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(h, a, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("capture: before the graph %d (want %d)\n", sum(h, n), 5 * n);
    CHECK(cudaGraphInstantiate(&ge, g, 0));
    CHECK(cudaGraphLaunch(ge, s1));
    for (int k = 0; k < 5; k++) inc<<<blocks, 128, 0, s1>>>(a, n);
    CHECK(cudaStreamSynchronize(s1));
    CHECK(cudaMemcpy(h, a, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("capture: after the graph %d (want %d)\n", sum(h, n), 17 * n);

    // 6. a small copy right after planned launches (it may run inline: only behind them)
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    for (int k = 0; k < 2; k++) {  // (the plan is armed again: the allocations above made it stale)
        inc<<<blocks, 128>>>(a, n);
        CHECK(cudaStreamSynchronize(0));
    }
    for (int k = 2; k < 50; k++) inc<<<blocks, 128>>>(a, n);
    CHECK(cudaMemcpyAsync(b, a, n * sizeof(int), cudaMemcpyDeviceToDevice, 0));
    CHECK(cudaMemcpy(h, b, n * sizeof(int), cudaMemcpyDeviceToHost));
    printf("copy after launches: %d (want %d)\n", sum(h, n), 50 * n);

    // 7. a kernel with printf (always the Python path) between planned launches sees their results
    CHECK(cudaMemset(a, 0, n * sizeof(int)));
    for (int k = 0; k < 4; k++) {
        for (int j = 0; j < 10; j++) inc<<<blocks, 128>>>(a, n);
        say<<<1, 32>>>(a, k);
    }
    CHECK(cudaDeviceSynchronize());

    // 8. errors stay errors: a bad configuration of a planned kernel is still refused
    inc<<<blocks, 2048>>>(a, n);
    printf("bad block: %d (want %d)\n", (int)cudaGetLastError(), (int)cudaErrorInvalidConfiguration);
    CHECK(cudaDeviceSynchronize());
    printf("done\n");
    return 0;
}

static int fault(void) {
    int *p;
    CHECK(cudaMalloc(&p, 64 * sizeof(int)));
    for (int k = 0; k < 10; k++) poke<<<1, 64>>>(p, k);
    CHECK(cudaDeviceSynchronize());
    for (int k = 0; k < 10; k++) poke<<<1, 64>>>(p, k);
    poke<<<1, 64>>>((int *)16, 1);  // the same key: enqueued natively, faults when it runs
    cudaError_t launched = cudaGetLastError();
    cudaError_t synced = cudaDeviceSynchronize();
    cudaError_t after = cudaDeviceSynchronize();
    printf("fault: launch %d, sync %d (want %d), sticky %d\n", (int)launched, (int)synced,
           (int)cudaErrorIllegalAddress, (int)after);
    return 0;
}

static int watchdog(void) {  // run with a short CUMETAL_WATCHDOG_SECONDS
    int *flags, one = 1;
    CHECK(cudaMalloc(&flags, 2 * sizeof(int)));
    CHECK(cudaMemset(flags, 0, 2 * sizeof(int)));
    CHECK(cudaMemcpy(flags, &one, sizeof one, cudaMemcpyHostToDevice));
    for (int k = 0; k < 3; k++) spin<<<1, 1>>>(flags);  // flags[0] == 1: returns at once
    CHECK(cudaDeviceSynchronize());
    spin<<<1, 1>>>(flags);
    spin<<<1, 1>>>(flags + 1);  // flags[1] == 0: spins until the watchdog ends it
    cudaError_t synced = cudaDeviceSynchronize();
    printf("watchdog: sync %d (want %d)\n", (int)synced, (int)cudaErrorLaunchTimeout);
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && strcmp(argv[1], "fault") == 0) return fault();
    if (argc > 1 && strcmp(argv[1], "watchdog") == 0) return watchdog();
    return work();
}
