// The device runtime API from device code (nvcc needs -rdc=true -lcudadevrt): cudaGetDevice,
// cudaDeviceGetAttribute, cudaGetLastError/cudaPeekAtLastError, cudaGetErrorString/Name,
// cudaRuntimeGetVersion and cudaDeviceGetLimit must agree with what the host sees.
#include <cstdio>

__global__ void query(int *out, size_t *limits, const char **names) {
    int dev = -1;
    out[0] = (int)cudaGetDevice(&dev);
    out[1] = dev;
    const cudaDeviceAttr attrs[] = {cudaDevAttrMaxThreadsPerBlock, cudaDevAttrWarpSize, cudaDevAttrMultiProcessorCount,
                                    cudaDevAttrMaxSharedMemoryPerBlock, cudaDevAttrComputeCapabilityMajor,
                                    cudaDevAttrMaxBlockDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxRegistersPerBlock};
    for (int i = 0; i < 8; ++i) {
        int v = -1;
        cudaError_t e = cudaDeviceGetAttribute(&v, attrs[i], dev);
        out[2 + 2 * i] = (int)e;
        out[3 + 2 * i] = v;
    }
    out[18] = (int)cudaGetLastError();
    out[19] = (int)cudaPeekAtLastError();
    int rt = -1;
    out[20] = (int)cudaRuntimeGetVersion(&rt);
    out[21] = rt;
    size_t v = 0;
    out[22] = (int)cudaDeviceGetLimit(&v, cudaLimitStackSize);
    limits[0] = v;
    out[23] = (int)cudaDeviceGetLimit(&v, cudaLimitMallocHeapSize);
    limits[1] = v;
    names[0] = cudaGetErrorName(cudaErrorInvalidValue);
    names[1] = cudaGetErrorString(cudaSuccess);
}

__global__ void copy_names(const char **names, char *text) {
    for (int k = 0; k < 2; ++k) {
        const char *s = names[k];
        int i = 0;
        for (; s[i] && i < 62; ++i) text[k * 64 + i] = s[i];
        text[k * 64 + i] = 0;
    }
}

int main() {
    int *d_out; size_t *d_lim; const char **d_names; char *d_text;
    cudaMalloc(&d_out, 24 * sizeof(int));
    cudaMalloc(&d_lim, 2 * sizeof(size_t));
    cudaMalloc(&d_names, 2 * sizeof(char *));
    cudaMalloc(&d_text, 128);
    query<<<1, 1>>>(d_out, d_lim, d_names);
    copy_names<<<1, 1>>>(d_names, d_text);
    cudaError_t e = cudaDeviceSynchronize();
    int out[24]; size_t lim[2]; char text[128];
    cudaMemcpy(out, d_out, sizeof out, cudaMemcpyDeviceToHost);
    cudaMemcpy(lim, d_lim, sizeof lim, cudaMemcpyDeviceToHost);
    cudaMemcpy(text, d_text, sizeof text, cudaMemcpyDeviceToHost);
    int dev = -1;
    cudaGetDevice(&dev);
    printf("cudaGetDevice: status %d, same as host %d\n", out[0], out[1] == dev);
    const cudaDeviceAttr attrs[] = {cudaDevAttrMaxThreadsPerBlock, cudaDevAttrWarpSize, cudaDevAttrMultiProcessorCount,
                                    cudaDevAttrMaxSharedMemoryPerBlock, cudaDevAttrComputeCapabilityMajor,
                                    cudaDevAttrMaxBlockDimX, cudaDevAttrMaxGridDimY, cudaDevAttrMaxRegistersPerBlock};
    for (int i = 0; i < 8; ++i) {
        int h = -2;
        cudaDeviceGetAttribute(&h, attrs[i], dev);
        printf("attribute %d: status %d, same as host %d\n", (int)attrs[i], out[2 + 2 * i], out[3 + 2 * i] == h);
    }
    int rt = 0;
    cudaRuntimeGetVersion(&rt);
    size_t hs = 0, hh = 0;
    cudaDeviceGetLimit(&hs, cudaLimitStackSize);
    cudaDeviceGetLimit(&hh, cudaLimitMallocHeapSize);
    printf("errors %d %d runtime version status %d same %d\n", out[18], out[19], out[20], out[21] == rt);
    printf("limits status %d %d same %d %d\n", out[22], out[23], lim[0] == hs, lim[1] == hh);
    printf("names [%s] [%s]\n", text, text + 64);
    printf("status %s\n", cudaGetErrorString(e));
    return 0;
}
