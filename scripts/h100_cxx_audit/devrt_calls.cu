// Device runtime API calls from device code (nvcc -rdc=true -lcudadevrt): the PTX nvcc writes for
// them (the names it declares .extern) and what they answer on the H100.
#include <cstdio>
__global__ void devrt(int *out, char *text) {
    int d = -1, n = -1, v = -1, attr = -1;
    size_t lim = 0;
    out[0] = cudaGetDevice(&d);
    out[1] = d;
    out[2] = cudaGetDeviceCount(&n);
    out[3] = n;
    out[4] = cudaDeviceGetAttribute(&attr, cudaDevAttrWarpSize, d);
    out[5] = attr;
    out[6] = cudaDeviceGetLimit(&lim, cudaLimitStackSize);
    out[7] = (int)lim;
    out[8] = cudaRuntimeGetVersion(&v);
    out[9] = v;
    out[10] = cudaGetLastError();
    out[11] = cudaPeekAtLastError();
    int *p = nullptr;
    out[12] = cudaMalloc((void **)&p, 64);
    out[13] = cudaMemsetAsync(p, 7, 64, 0);
    out[14] = cudaMemcpyAsync(out + 16, p, 8, cudaMemcpyDeviceToDevice, 0);
    out[15] = cudaFree(p);
    const char *s = cudaGetErrorString(cudaErrorInvalidValue), *nm = cudaGetErrorName(cudaErrorInvalidValue);
    int k = 0;
    for (; nm[k] && k < 60; ++k) text[k] = nm[k];
    text[k++] = '|';
    for (int j = 0; s[j] && k < 126; ++j) text[k++] = s[j];
    text[k] = 0;
}
int main() {
    int *out; char *text;
    cudaMallocManaged(&out, 32 * sizeof(int));
    cudaMallocManaged(&text, 128);
    devrt<<<1, 1>>>(out, text);
    cudaError_t e = cudaDeviceSynchronize();
    printf("launch %s\n", cudaGetErrorName(e));
    for (int i = 0; i < 18; ++i) printf("%d%c", out[i], i == 17 ? '\n' : ' ');
    printf("%s\n", text);
    return 0;
}
