// Memory management: linear, pitched, 3D, symbols, managed, pinned and registered host memory,
// pointer attributes, memset, bad pointers and sizes.
#include <cstdlib>
#include <cstring>
#include "check.h"

__constant__ int c_table[8];
__device__ float d_scale = 2.0f;
__device__ int d_out[8];

__global__ void use_symbols(const int *in, int *out) {
    int i = threadIdx.x;
    out[i] = (int)(in[i] * d_scale) + c_table[i];
    d_out[i] = i * 10;
}
__global__ void add_one(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}
__global__ void fill2d(float *p, size_t pitch, int w, int h) {
    int x = threadIdx.x, y = blockIdx.x;
    if (x < w && y < h) ((float *)((char *)p + y * pitch))[x] = y * 100 + x;
}

int main() {
    // linear memory and copies in every direction
    const int n = 8;
    int host[n], back[n];
    for (int i = 0; i < n; i++) host[i] = i + 1;
    int *a = NULL, *b = NULL;
    CHECK_CUDA(cudaMalloc(&a, sizeof host));
    CHECK_CUDA(cudaMalloc((void **)&b, sizeof host));
    CHECK_CUDA(cudaMemcpy(a, host, sizeof host, cudaMemcpyHostToDevice));
    CHECK_CUDA(cudaMemcpy(b, a, sizeof host, cudaMemcpyDeviceToDevice));
    CHECK_CUDA(cudaMemcpy(back, b, sizeof host, cudaMemcpyDefault));
    CHECK(memcmp(host, back, sizeof host) == 0);
    CHECK_CUDA(cudaMemset(b, 0x01, sizeof host));
    CHECK_CUDA(cudaMemcpy(back, b, sizeof host, cudaMemcpyDeviceToHost));
    CHECK(back[3] == 0x01010101);

    // symbols: __constant__ and __device__ through the typed and untyped calls
    int table[8] = {100, 200, 300, 400, 500, 600, 700, 800};
    CHECK_CUDA(cudaMemcpyToSymbol(c_table, table, sizeof table));
    float three = 3.0f;
    CHECK_CUDA(cudaMemcpyToSymbol(d_scale, &three, sizeof three, 0, cudaMemcpyHostToDevice));
    use_symbols<<<1, n>>>(a, b);
    CHECK_CUDA(cudaGetLastError());
    CHECK_CUDA(cudaMemcpy(back, b, sizeof back, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; i++) CHECK(back[i] == host[i] * 3 + table[i]);
    int dout[8] = {0};
    CHECK_CUDA(cudaMemcpyFromSymbol(dout, d_out, sizeof dout));
    CHECK(dout[7] == 70);
    void *addr = NULL;
    size_t sz = 0;
    CHECK_CUDA(cudaGetSymbolAddress(&addr, d_out));
    CHECK_CUDA(cudaGetSymbolSize(&sz, d_out));
    CHECK(addr != NULL && sz == sizeof dout);
    int two[2];
    CHECK_CUDA(cudaMemcpy(two, (int *)addr + 2, sizeof two, cudaMemcpyDeviceToHost));
    CHECK(two[0] == 20 && two[1] == 30);
    CHECK(cudaMemcpyToSymbol(c_table, table, sizeof table + 4) == cudaErrorInvalidValue);
    CHECK(cudaGetLastError() == cudaErrorInvalidValue);

    // pitched 2D memory
    float *p2 = NULL;
    size_t pitch = 0;
    const int w = 5, h = 3;
    CHECK_CUDA(cudaMallocPitch(&p2, &pitch, w * sizeof(float), h));
    CHECK(pitch >= w * sizeof(float));
    fill2d<<<h, w>>>(p2, pitch, w, h);
    float grid[h][w];
    CHECK_CUDA(cudaMemcpy2D(grid, w * sizeof(float), p2, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    CHECK(grid[2][4] == 204.0f && grid[1][0] == 100.0f);
    CHECK_CUDA(cudaMemset2D(p2, pitch, 0, w * sizeof(float), h));
    CHECK_CUDA(cudaMemcpy2D(grid, w * sizeof(float), p2, pitch, w * sizeof(float), h, cudaMemcpyDeviceToHost));
    CHECK(grid[2][4] == 0.0f);

    // 3D memory
    cudaExtent ext = make_cudaExtent(4 * sizeof(int), 3, 2);
    cudaPitchedPtr pp;
    CHECK_CUDA(cudaMalloc3D(&pp, ext));
    CHECK(pp.pitch >= 4 * sizeof(int) && pp.ptr != NULL);
    CHECK_CUDA(cudaMemset3D(pp, 0x7f, ext));
    int vol[2][3][4];
    memset(vol, 0, sizeof vol);
    cudaMemcpy3DParms parms;
    memset(&parms, 0, sizeof parms);
    parms.srcPtr = pp;
    parms.dstPtr = make_cudaPitchedPtr(vol, 4 * sizeof(int), 4, 3);
    parms.extent = ext;
    parms.kind = cudaMemcpyDeviceToHost;
    CHECK_CUDA(cudaMemcpy3D(&parms));
    CHECK(vol[1][2][3] == 0x7f7f7f7f);

    // managed memory: the host reads and writes it directly
    int *m = NULL;
    CHECK_CUDA(cudaMallocManaged(&m, n * sizeof(int)));
    for (int i = 0; i < n; i++) m[i] = i;
    cudaMemLocation loc;
    loc.type = cudaMemLocationTypeDevice;
    loc.id = 0;
    CHECK_CUDA(cudaMemPrefetchAsync(m, n * sizeof(int), loc, 0, 0));
    CHECK_CUDA(cudaMemAdvise(m, n * sizeof(int), cudaMemAdviseSetReadMostly, loc));
    add_one<<<1, n>>>(m, n);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(m[0] == 1 && m[7] == 8);

    // pinned and registered host memory, used by a kernel through its device pointer
    int *pinned = NULL, *dp = NULL;
    CHECK_CUDA(cudaHostAlloc(&pinned, n * sizeof(int), cudaHostAllocMapped));
    for (int i = 0; i < n; i++) pinned[i] = 10 * i;
    CHECK_CUDA(cudaHostGetDevicePointer(&dp, pinned, 0));
    add_one<<<1, n>>>(dp, n);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(pinned[5] == 51);
    unsigned flags = 0;
    CHECK_CUDA(cudaHostGetFlags(&flags, pinned));
    CHECK(flags & cudaHostAllocMapped);
    int *reg = (int *)calloc(1024, sizeof(int));
    CHECK_CUDA(cudaHostRegister(reg, 1024 * sizeof(int), cudaHostRegisterDefault));
    add_one<<<4, 256>>>(reg, 1024);
    CHECK_CUDA(cudaDeviceSynchronize());
    CHECK(reg[1023] == 1);
    CHECK_CUDA(cudaHostUnregister(reg));
    free(reg);

    // pointer attributes and memory info
    cudaPointerAttributes attr;
    CHECK_CUDA(cudaPointerGetAttributes(&attr, a + 2));
    CHECK(attr.type == cudaMemoryTypeDevice && attr.devicePointer == (void *)(a + 2));
    CHECK_CUDA(cudaPointerGetAttributes(&attr, pinned));
    CHECK(attr.type == cudaMemoryTypeHost);
    CHECK_CUDA(cudaPointerGetAttributes(&attr, m));
    CHECK(attr.type == cudaMemoryTypeManaged);
    size_t freeb = 0, total = 0;
    CHECK_CUDA(cudaMemGetInfo(&freeb, &total));
    CHECK(total > 0 && freeb <= total);

    // bad input: CUDA's codes, never a crash
    CHECK(cudaMalloc(NULL, 16) == cudaErrorInvalidValue);
    CHECK(cudaFree((void *)0x1234) == cudaErrorInvalidValue);
    CHECK(cudaMemcpy(a, host, 1 << 20, cudaMemcpyHostToDevice) == cudaErrorInvalidValue);
    CHECK(cudaMemset((void *)0x10, 0, 4) == cudaErrorInvalidValue);
    CHECK(cudaMemcpyToSymbol((const void *)&host, table, 4) == cudaErrorInvalidSymbol);
    CHECK(cudaGetLastError() == cudaErrorInvalidSymbol);
    CHECK_CUDA(cudaFree(NULL));

    CHECK_CUDA(cudaFree(a));
    CHECK_CUDA(cudaFree(b));
    CHECK_CUDA(cudaFree(p2));
    CHECK_CUDA(cudaFree(pp.ptr));
    CHECK_CUDA(cudaFree(m));
    CHECK_CUDA(cudaFreeHost(pinned));
    return finish("memory");
}
