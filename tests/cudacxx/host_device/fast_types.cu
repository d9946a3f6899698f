// <cstdint>'s fast types on the two sides of a program: a kernel templated on them must be found by
// the host's launch (its name mangles the type), and a struct holding them must have one layout.
#include <cstdint>
#include <cstdio>
struct record {
    uint_fast16_t a;
    int_fast32_t b;
    uint_fast32_t c;
};
template <class T> __global__ void size_of(unsigned long long *out) { out[0] = sizeof(T); }
__global__ void layout(record *r, unsigned long long *out) {
    out[0] = sizeof(record);
    out[1] = (unsigned long long)r->c;
    r->b = -5;
}
int main() {
    unsigned long long *d, h[2];
    record *r, hr = {1, 2, 123456789};
    cudaMalloc(&d, sizeof h);
    cudaMalloc(&r, sizeof hr);
    cudaMemcpy(r, &hr, sizeof hr, cudaMemcpyHostToDevice);
    size_of<uint_fast32_t><<<1, 1>>>(d);
    cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess || h[0] != sizeof(uint_fast32_t)) { printf("uint_fast32_t kernel\n"); return 1; }
    size_of<int_fast16_t><<<1, 1>>>(d);
    cudaMemcpy(h, d, 8, cudaMemcpyDeviceToHost);
    if (cudaGetLastError() != cudaSuccess || h[0] != sizeof(int_fast16_t)) { printf("int_fast16_t kernel\n"); return 1; }
    layout<<<1, 1>>>(r, d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    cudaMemcpy(&hr, r, sizeof hr, cudaMemcpyDeviceToHost);
    if (h[0] != sizeof(record) || h[1] != 123456789 || hr.b != -5) { printf("record layout\n"); return 1; }
    printf("PASSED\n");
    return 0;
}
