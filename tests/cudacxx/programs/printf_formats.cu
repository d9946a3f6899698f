// Device printf: every conversion nvcc's printf documents (%d %i %u %o %x %X %c %s %f %F %e %E
// %g %G %a %A %%), flags (- + space # 0), widths and precisions (also as *), length modifiers
// (hh h l ll z), long strings, many arguments, and one line per thread ordered by a loop.
#include <cstdio>

__global__ void formats(double dv, float fv, long long ll, const char *str) {
    printf("ints: %d %i %u %o %x %X %5d|%-5d|%05d|%+d|% d\n", -42, 17, 4000000000u, 8, 255, 0xBEEF, 42, 42, 42, 42, 42);
    printf("lengths: %hhd %hd %ld %lld %llu %lx %zu\n", (signed char)-5, (short)-300, -7L, ll, (unsigned long long)ll, 0xdeadbeefL, (size_t)123);
    printf("floats: %f %.3f %10.4f|%-10.2f|%+.1f %e %.2E %g %G %g\n", dv, dv, dv, dv, dv, dv, dv, 1e-5, 1e20, 100000.0);
    printf("float arg: %f %.9g %a\n", fv, fv, 1.0);
    printf("specials: %f %f %e %g %.0f %.0f %.0f\n", 1.0 / 0.0, -1.0 / 0.0, 0.0, -0.0, 0.5, 1.5, 2.5);
    printf("chars: [%c] [%3c] [%-3c] %%\n", 'x', 'y', 'z');
    printf("strings: [%s] [%10s] [%-10s] [%.3s] [%*d] [%.*f]\n", str, "abc", "abc", str, 6, 7, 2, 3.14159);
    printf("hash: %#x %#o %#.3g %08.3f\n", 255, 8, 1.0, -3.14159);
    printf("many: %d %d %d %d %d %d %d %d %d %d %d %d %f %s\n", 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13.5, "end");
}

__global__ void ordered() {
    for (int t = 0; t < blockDim.x; ++t) {
        if (threadIdx.x == t) printf("thread %d of block %d says %c\n", threadIdx.x, blockIdx.x, 'a' + threadIdx.x);
        __syncthreads();
    }
}

int main() {
    const char msg[] = "hello, device";
    char *d_str;
    cudaMalloc(&d_str, sizeof msg);
    cudaMemcpy(d_str, msg, sizeof msg, cudaMemcpyHostToDevice);
    formats<<<1, 1>>>(-1234.56789, 0.1f, -1234567890123LL, d_str);
    cudaDeviceSynchronize();
    ordered<<<1, 4>>>();
    printf("status %s\n", cudaGetErrorString(cudaDeviceSynchronize()));
    return 0;
}
