// Records what createpolicy returns on an NVIDIA GPU (the L2 cache-policy value is opaque; CuMetal
// ignores it as a hint but returns NVIDIA's bits so a program that stores one sees the same value).
// Build and run on the device: nvcc -arch=sm_90 make_createpolicy_goldens.cu -o cp && ./cp > createpolicy.txt
#include <cstdio>
#include <cstdint>

#define FRAC(name, prim, sec, f)                                                                  \
    asm volatile("createpolicy.fractional." prim sec ".b64 %0, " f ";" : "=l"(v));                 \
    out[n++] = v;
#define FRAC0(prim, sec)                                                                          \
    asm volatile("createpolicy.fractional." prim sec ".b64 %0;" : "=l"(v));                        \
    out[n++] = v;

__global__ void k(unsigned long long *out, const char *base) {
    unsigned long long v;
    int n = 0;
    FRAC0("L2::evict_last", "")
    FRAC0("L2::evict_normal", "")
    FRAC0("L2::evict_first", "")
    FRAC0("L2::evict_unchanged", "")
    FRAC(0, "L2::evict_last", "", "1.0")
    FRAC(0, "L2::evict_last", "", "0.5")
    FRAC(0, "L2::evict_last", "", "0.25")
    FRAC(0, "L2::evict_first", "", "0.75")
    FRAC(0, "L2::evict_normal", "", "0.1")
    FRAC(0, "L2::evict_unchanged", "", "0.3")
    FRAC(0, "L2::evict_last", ".L2::evict_first", "0.5")
    FRAC(0, "L2::evict_last", ".L2::evict_unchanged", "0.5")
    FRAC(0, "L2::evict_normal", ".L2::evict_first", "1.0")
    FRAC(0, "L2::evict_first", ".L2::evict_unchanged", "0.9")
    float fr[6] = {1.0f, 0.5f, 0.3f, 0.001f, 0.999f, 0.0625f};
    for (int i = 0; i < 6; i++) {  // a register fraction
        asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, %1;" : "=l"(v) : "f"(fr[i]));
        out[n++] = v;
    }
    unsigned int sizes[4][2] = {{4096, 65536}, {65536, 65536}, {128, 1 << 20}, {1 << 20, 1 << 22}};
    for (int i = 0; i < 4; i++) {
        asm volatile("createpolicy.range.global.L2::evict_last.L2::evict_first.b64 %0, [%1], %2, %3;"
                     : "=l"(v) : "l"(base), "r"(sizes[i][0]), "r"(sizes[i][1]));
        out[n++] = v;
        asm volatile("createpolicy.range.L2::evict_normal.b64 %0, [%1], %2, %3;"
                     : "=l"(v) : "l"(base + 4096 * i), "r"(sizes[i][0]), "r"(sizes[i][1]));
        out[n++] = v;
    }
    unsigned long long in[4] = {0, 1, 0x12345678ull, 0xffffffffffffffffull};
    for (int i = 0; i < 4; i++) {
        asm volatile("createpolicy.cvt.L2.b64 %0, %1;" : "=l"(v) : "l"(in[i]));
        out[n++] = v;
    }
    out[63] = (unsigned long long)base;
    out[62] = n;
}

int main() {
    unsigned long long *out;
    char *base;
    cudaMalloc(&out, 64 * 8);
    cudaMalloc(&base, 1 << 22);
    cudaMemset(out, 0, 64 * 8);
    k<<<1, 1>>>(out, base);
    unsigned long long h[64];
    cudaError_t e = cudaMemcpy(h, out, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    for (int i = 0; i < (int)h[62]; i++) printf("%d 0x%016llx\n", i, h[i]);
    printf("base 0x%016llx\n", h[63]);
    return 0;
}
