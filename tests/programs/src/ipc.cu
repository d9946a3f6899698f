// CUDA IPC from C++: the parent exports an allocation and an interprocess event, a child process
// (this program run again) opens both, doubles the data with a kernel and records the event; the
// parent waits on the event and checks the data. Bad handles and pointers get CUDA's codes.
#include <cuda_runtime.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "check.h"

extern char **environ;
__global__ void twice(int *x, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) x[i] *= 2;
}

static void to_hex(const void *p, size_t n, char *out) {
    for (size_t i = 0; i < n; ++i) sprintf(out + 2 * i, "%02x", ((const unsigned char *)p)[i]);
}
static void from_hex(const char *s, void *p, size_t n) {
    for (size_t i = 0; i < n; ++i) sscanf(s + 2 * i, "%2hhx", (unsigned char *)p + i);
}

static const int N = 4096;

static int child(const char *mem_hex, const char *event_hex) {
    cudaIpcMemHandle_t mh;
    cudaIpcEventHandle_t eh;
    from_hex(mem_hex, &mh, sizeof mh);
    from_hex(event_hex, &eh, sizeof eh);
    int *d = nullptr;
    cudaEvent_t ev;
    CHECK_CUDA(cudaIpcOpenMemHandle((void **)&d, mh, cudaIpcMemLazyEnablePeerAccess));
    CHECK_CUDA(cudaIpcOpenEventHandle(&ev, eh));
    cudaStream_t s;
    CHECK_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    CHECK_CUDA(cudaStreamWaitEvent(s, ev, 0));
    twice<<<(N + 255) / 256, 256, 0, s>>>(d, N);
    CHECK_CUDA(cudaEventRecord(ev, s));
    CHECK_CUDA(cudaStreamSynchronize(s));
    CHECK_CUDA(cudaIpcCloseMemHandle(d));
    CHECK(cudaIpcCloseMemHandle(d) == cudaErrorInvalidValue);
    return finish("ipc child");
}

int main(int argc, char **argv) {
    if (argc == 3) return child(argv[1], argv[2]);
    int *d;
    CHECK_CUDA(cudaMalloc(&d, N * sizeof(int)));
    int *h = (int *)malloc(N * sizeof(int));
    for (int i = 0; i < N; ++i) h[i] = i;
    CHECK_CUDA(cudaMemcpy(d, h, N * sizeof(int), cudaMemcpyHostToDevice));
    cudaIpcMemHandle_t mh;
    cudaIpcEventHandle_t eh;
    cudaEvent_t ev;
    CHECK_CUDA(cudaIpcGetMemHandle(&mh, d));
    CHECK_CUDA(cudaEventCreate(&ev, cudaEventDisableTiming | cudaEventInterprocess));
    CHECK_CUDA(cudaIpcGetEventHandle(&eh, ev));
    void *same = nullptr;
    CHECK(cudaIpcOpenMemHandle(&same, mh, cudaIpcMemLazyEnablePeerAccess) == cudaErrorDeviceUninitialized);

    char mem_hex[2 * sizeof mh + 1], event_hex[2 * sizeof eh + 1];
    to_hex(&mh, sizeof mh, mem_hex);
    to_hex(&eh, sizeof eh, event_hex);
    char *args[] = {argv[0], mem_hex, event_hex, nullptr};
    pid_t pid;
    int status = -1;
    CHECK(posix_spawn(&pid, "/proc/self/exe", nullptr, nullptr, args, environ) == 0);
    CHECK(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0);
    CHECK_CUDA(cudaEventSynchronize(ev));
    CHECK_CUDA(cudaMemcpy(h, d, N * sizeof(int), cudaMemcpyDeviceToHost));
    int wrong = 0;
    for (int i = 0; i < N; ++i) wrong += h[i] != 2 * i;
    CHECK(wrong == 0);

    // bad input
    cudaIpcMemHandle_t junk;
    memset(&junk, 0x5a, sizeof junk);
    CHECK(cudaIpcOpenMemHandle(&same, junk, 0) == cudaErrorInvalidValue);
    CHECK(cudaIpcGetMemHandle(nullptr, d) == cudaErrorInvalidValue);
    CHECK(cudaIpcGetMemHandle(&mh, (void *)0x1234) == cudaErrorInvalidValue);
    CHECK(cudaIpcOpenMemHandle(nullptr, mh, 0) == cudaErrorInvalidValue);
    cudaEvent_t plain;
    CHECK_CUDA(cudaEventCreate(&plain));
    CHECK(cudaIpcGetEventHandle(&eh, plain) == cudaErrorInvalidResourceHandle);
    CHECK(cudaIpcGetEventHandle(&eh, (cudaEvent_t)0x77) == cudaErrorInvalidResourceHandle);
    CHECK_CUDA(cudaEventDestroy(plain));
    CHECK_CUDA(cudaEventDestroy(ev));
    CHECK_CUDA(cudaFree(d));
    free(h);
    return finish("ipc");
}
