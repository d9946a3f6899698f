// The fourth (.w) and colour-named (.r .g .b .a) components of PTX's vector special registers, as an
// NVIDIA GPU reads them (ptxas accepts them; the PTX ISA declares these registers .v4 .u32).
// Built and run on an H100 by tests/ptx/data/make_sreg_components.sh; output: sreg_components_h100.txt.
#include <cstdio>

#define READ(i, R) asm volatile("mov.u32 %0, " R ";" : "=r"(v[i]))

__global__ void k(unsigned *out) {
    unsigned v[24];
    READ(0, "%%tid.x"); READ(1, "%%tid.y"); READ(2, "%%tid.z"); READ(3, "%%tid.w");
    READ(4, "%%tid.r"); READ(5, "%%tid.g"); READ(6, "%%tid.b"); READ(7, "%%tid.a");
    READ(8, "%%ntid.x"); READ(9, "%%ntid.y"); READ(10, "%%ntid.z"); READ(11, "%%ntid.w");
    READ(12, "%%ctaid.x"); READ(13, "%%ctaid.y"); READ(14, "%%ctaid.z"); READ(15, "%%ctaid.w");
    READ(16, "%%nctaid.x"); READ(17, "%%nctaid.y"); READ(18, "%%nctaid.z"); READ(19, "%%nctaid.w");
    READ(20, "%%clusterid.w"); READ(21, "%%nclusterid.w"); READ(22, "%%cluster_ctaid.w");
    READ(23, "%%cluster_nctaid.w");
    if (threadIdx.x == 3 && threadIdx.y == 1 && threadIdx.z == 1 && blockIdx.x == 2 && blockIdx.y == 1)
        for (int i = 0; i < 24; i++) out[i] = v[i];
}

int main() {
    unsigned *d, h[24];
    cudaMalloc(&d, sizeof h);
    cudaMemset(d, 0xff, sizeof h);
    k<<<dim3(3, 2, 1), dim3(4, 2, 2)>>>(d);
    cudaError_t e = cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    if (e != cudaSuccess) { printf("error %s\n", cudaGetErrorString(e)); return 1; }
    const char *names[24] = {"tid.x", "tid.y", "tid.z", "tid.w", "tid.r", "tid.g", "tid.b", "tid.a",
                             "ntid.x", "ntid.y", "ntid.z", "ntid.w", "ctaid.x", "ctaid.y", "ctaid.z", "ctaid.w",
                             "nctaid.x", "nctaid.y", "nctaid.z", "nctaid.w", "clusterid.w", "nclusterid.w",
                             "cluster_ctaid.w", "cluster_nctaid.w"};
    for (int i = 0; i < 24; i++) printf("%s %u\n", names[i], h[i]);
    return 0;
}
