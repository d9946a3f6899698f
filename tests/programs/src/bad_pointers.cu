// Bad pointers and sizes from C: NULL outputs, freed device pointers, pageable host pointers where
// device memory is due, sizes past an allocation's end, non-kernels and non-symbols. Each probe
// prints "<name> <cudaError_t>"; the same source built by nvcc and run on an H100 recorded CUDA's
// answers (tests/programs/data/bad_pointers.h100.txt, scripts/make_bad_pointer_goldens.sh), which
// tests/programs/test_bad_pointers.py compares with CuMetal's. The program must survive every probe
// and still compute correctly afterwards (the last line).
#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__device__ int d_symbol[4];

__global__ void add_one(int *p, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) p[i] += 1;
}

static void host_function(void) {}

static void probe(const char *name, cudaError_t err) {
    const char *text = cudaGetErrorString(err);
    printf("%s %d%s\n", name, (int)err, text && *text ? "" : " (no error string)");
    cudaGetLastError();  // none of these errors is sticky: clear the thread's last error
}

int main(void) {
    setvbuf(stdout, NULL, _IONBF, 0);  // every line out before the next call, whatever happens
    int host[16] = {0};
    int *pageable = (int *)malloc(4096);
    int *d = NULL, *d2 = NULL, *freed = NULL;
    cudaMalloc((void **)&d, 64);
    cudaMalloc((void **)&d2, 64);
    cudaMalloc((void **)&freed, 64);
    cudaFree(freed);
    cudaEvent_t e1, e2;
    cudaEventCreate(&e1);
    cudaEventCreate(&e2);
    cudaEventRecord(e1, 0);
    cudaEventRecord(e2, 0);
    cudaEventSynchronize(e2);

    // outputs that are NULL
    probe("malloc_null_out", cudaMalloc(NULL, 16));
    probe("get_device_null_out", cudaGetDevice(NULL));
    probe("device_properties_null_out", cudaGetDeviceProperties(NULL, 0));
    probe("device_attribute_null_out", cudaDeviceGetAttribute(NULL, cudaDevAttrWarpSize, 0));
    probe("mem_get_info_null_out", cudaMemGetInfo(NULL, NULL));
    probe("stream_create_null_out", cudaStreamCreate(NULL));
    probe("event_create_null_out", cudaEventCreate(NULL));
    probe("event_elapsed_null_out", cudaEventElapsedTime(NULL, e1, e2));
    probe("pointer_attributes_null_out", cudaPointerGetAttributes(NULL, d));

    // copies
    probe("memcpy_h2d_null_dst", cudaMemcpy(NULL, host, 16, cudaMemcpyHostToDevice));
    probe("memcpy_h2d_null_src", cudaMemcpy(d, NULL, 16, cudaMemcpyHostToDevice));
    probe("memcpy_h2d_freed_dst", cudaMemcpy(freed, host, 16, cudaMemcpyHostToDevice));
    probe("memcpy_d2h_freed_src", cudaMemcpy(host, freed, 16, cudaMemcpyDeviceToHost));
    probe("memcpy_d2d_freed_src", cudaMemcpy(d2, freed, 16, cudaMemcpyDeviceToDevice));
    probe("memcpy_d2d_past_end", cudaMemcpy(d2, d, 64 << 20, cudaMemcpyDeviceToDevice));
    probe("memcpy_h2d_past_end", cudaMemcpy(d, pageable, 64 << 20, cudaMemcpyHostToDevice));
    probe("memcpy_bad_kind", cudaMemcpy(d, host, 16, (cudaMemcpyKind)77));
    probe("memcpy2d_pitch_below_width", cudaMemcpy2D(d, 4, host, 16, 16, 2, cudaMemcpyHostToDevice));
    probe("memcpy_to_symbol_not_a_symbol", cudaMemcpyToSymbol(host, host, 4));
    probe("memcpy_to_symbol_too_big", cudaMemcpyToSymbol(d_symbol, host, sizeof host));
    void *addr = NULL;
    probe("symbol_address_not_a_symbol", cudaGetSymbolAddress(&addr, host));

    // fills
    probe("memset_null", cudaMemset(NULL, 0, 16));
    probe("memset_freed", cudaMemset(freed, 0, 16));
    probe("memset_past_end", cudaMemset(d, 0, 64 << 20));

    // frees
    probe("free_pageable", cudaFree(pageable));
    probe("free_twice", cudaFree(freed));
    probe("free_null", cudaFree(NULL));
    probe("free_host_of_device_pointer", cudaFreeHost(d2));

    // host memory registration
    void *dp = NULL;
    probe("host_get_device_pointer_unregistered", cudaHostGetDevicePointer(&dp, pageable, 0));
    probe("host_unregister_unregistered", cudaHostUnregister(pageable));
    probe("host_register_null", cudaHostRegister(NULL, 4096, cudaHostRegisterDefault));

    // attributes of what is not device memory
    cudaPointerAttributes attr;
    memset(&attr, 0x5a, sizeof attr);
    cudaError_t err = cudaPointerGetAttributes(&attr, freed);
    printf("pointer_attributes_freed %d type %d\n", (int)err, err == cudaSuccess ? (int)attr.type : -1);
    cudaGetLastError();
    memset(&attr, 0x5a, sizeof attr);
    err = cudaPointerGetAttributes(&attr, pageable);
    printf("pointer_attributes_pageable %d type %d\n", (int)err, err == cudaSuccess ? (int)attr.type : -1);
    cudaGetLastError();

    // launching what is not a kernel
    int n = 16;
    void *args[] = {&d, &n};
    probe("launch_null_function", cudaLaunchKernel((const void *)NULL, dim3(1), dim3(16), args, 0, 0));
    probe("launch_host_function", cudaLaunchKernel((const void *)host_function, dim3(1), dim3(16), args, 0, 0));
    cudaFuncAttributes fattr;
    probe("func_attributes_host_function", cudaFuncGetAttributes(&fattr, (const void *)host_function));

    // still working: a copy round trip and a kernel
    int in[16], out[16];
    for (int i = 0; i < 16; ++i) in[i] = i * 3;
    int ok = cudaMemcpy(d, in, sizeof in, cudaMemcpyHostToDevice) == cudaSuccess;
    add_one<<<1, 16>>>(d, 16);
    ok = ok && cudaGetLastError() == cudaSuccess;
    ok = ok && cudaMemcpy(out, d, sizeof out, cudaMemcpyDeviceToHost) == cudaSuccess;
    for (int i = 0; i < 16; ++i) ok = ok && out[i] == i * 3 + 1;
    printf("still_working %d\n", ok);
    cudaFree(d);
    cudaFree(d2);
    free(pageable);
    printf("bad_pointers: DONE\n");
    return 0;
}
