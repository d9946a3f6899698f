// The program keeps its signal dispositions: a SIGINT handler installed before the first CUDA
// call still runs while the program waits in cudaDeviceSynchronize (the test sends SIGINT).
#include <csignal>
#include <cstdio>
#include <unistd.h>

__global__ void long_kernel(volatile int *p, long n) {
    for (long i = 0; i < n; i++) p[threadIdx.x] += 1;
}

static void on_sigint(int) {
    const char msg[] = "signals: caught SIGINT\n";
    (void)!write(1, msg, sizeof msg - 1);
    _exit(3);
}

int main() {
    std::signal(SIGINT, on_sigint);
    int *d = NULL;
    if (cudaMalloc(&d, 64 * sizeof(int)) != cudaSuccess) return 1;
    printf("signals: ready\n");
    fflush(stdout);
    long_kernel<<<1, 64>>>(d, 1L << 40);
    cudaDeviceSynchronize();
    printf("signals: kernel finished (unexpected)\n");
    return 0;
}
