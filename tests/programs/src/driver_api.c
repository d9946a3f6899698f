/* A Driver API program in plain C: load PTX text with cuModuleLoadData, launch with
 * cuLaunchKernel (kernelParams and the `extra` buffer), globals, events, bad handles. */
#include <string.h>
#include <cuda.h>
#include "check.h"
#define CHECK_CU(call) CHECK((call) == CUDA_SUCCESS)

static const char *ptx =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .global .align 4 .u32 counter;\n"
    ".visible .entry scale(.param .u64 p, .param .u32 n, .param .f32 k)\n{\n"
    "  .reg .pred %p; .reg .b32 %r<6>; .reg .f32 %f<3>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; ld.param.u32 %r1, [n]; ld.param.f32 %f1, [k];\n"
    "  mov.u32 %r2, %ctaid.x; mov.u32 %r3, %ntid.x; mov.u32 %r4, %tid.x; mad.lo.s32 %r5, %r2, %r3, %r4;\n"
    "  setp.ge.s32 %p, %r5, %r1; @%p bra DONE;\n"
    "  cvta.to.global.u64 %rd2, %rd1; mul.wide.s32 %rd3, %r5, 4; add.s64 %rd2, %rd2, %rd3;\n"
    "  ld.global.f32 %f2, [%rd2]; mul.f32 %f2, %f2, %f1; st.global.f32 [%rd2], %f2;\n"
    "  atom.global.add.u32 %r4, [counter], 1;\n"
    "DONE:\n  ret;\n}\n";

int main(void) {
    CHECK_CU(cuInit(0));
    int count = 0, version = 0;
    CHECK_CU(cuDeviceGetCount(&count));
    CHECK(count >= 1);
    CHECK_CU(cuDriverGetVersion(&version));
    CUdevice dev;
    CHECK_CU(cuDeviceGet(&dev, 0));
    char name[64];
    CHECK_CU(cuDeviceGetName(name, sizeof name, dev));
    CHECK(strlen(name) > 0);
    int warp = 0;
    CHECK_CU(cuDeviceGetAttribute(&warp, CU_DEVICE_ATTRIBUTE_WARP_SIZE, dev));
    CHECK(warp == 32);
    CUcontext ctx;
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));

    CUmodule mod;
    CHECK_CU(cuModuleLoadData(&mod, ptx));
    CUfunction fn;
    CHECK_CU(cuModuleGetFunction(&fn, mod, "scale"));
    CUdeviceptr counter;
    size_t counter_size = 0;
    CHECK_CU(cuModuleGetGlobal(&counter, &counter_size, mod, "counter"));
    CHECK(counter_size == 4);

    enum { N = 300 };
    float host[N];
    for (int i = 0; i < N; i++) host[i] = (float)i;
    CUdeviceptr d;
    CHECK_CU(cuMemAlloc(&d, sizeof host));
    CHECK_CU(cuMemcpyHtoD(d, host, sizeof host));
    int n = N;
    float k = 2.0f;
    void *params[] = {&d, &n, &k};
    CUstream stream;
    CHECK_CU(cuStreamCreate(&stream, 0));
    CUevent ev;
    CHECK_CU(cuEventCreate(&ev, 0));
    CHECK_CU(cuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, params, NULL));
    /* the same launch through `extra`: one packed, aligned parameter buffer */
    struct { CUdeviceptr p; int n; float k; } packed = {d, N, 0.5f};
    size_t packed_size = sizeof packed;
    void *extra[] = {CU_LAUNCH_PARAM_BUFFER_POINTER, &packed, CU_LAUNCH_PARAM_BUFFER_SIZE, &packed_size,
                     CU_LAUNCH_PARAM_END};
    CHECK_CU(cuLaunchKernel(fn, (N + 127) / 128, 1, 1, 128, 1, 1, 0, stream, NULL, extra));
    CHECK_CU(cuEventRecord(ev, stream));
    CHECK_CU(cuEventSynchronize(ev));
    CHECK_CU(cuMemcpyDtoH(host, d, sizeof host));
    CHECK(host[7] == 7.0f && host[299] == 299.0f);
    unsigned int hits = 0;
    CHECK_CU(cuMemcpyDtoH(&hits, counter, 4));
    CHECK(hits == 2 * N);
    CHECK_CU(cuMemsetD32(d, 0x3f800000u, N)); /* 1.0f */
    CHECK_CU(cuMemcpyDtoH(host, d, sizeof host));
    CHECK(host[123] == 1.0f);

    /* errors: CUDA's codes, never a crash */
    const char *text = NULL;
    CHECK_CU(cuGetErrorName(CUDA_ERROR_INVALID_VALUE, &text));
    CHECK(text && strcmp(text, "CUDA_ERROR_INVALID_VALUE") == 0);
    CUfunction missing;
    CHECK(cuModuleGetFunction(&missing, mod, "nope") == CUDA_ERROR_NOT_FOUND);
    CHECK(cuMemFree((CUdeviceptr)0x1234) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuStreamSynchronize((CUstream)0xdead) == CUDA_ERROR_INVALID_HANDLE);
    CHECK(cuModuleLoadData(&mod, NULL) == CUDA_ERROR_INVALID_VALUE);
    CUmodule junk;
    CHECK(cuModuleLoadData(&junk, "this is not PTX") == CUDA_ERROR_INVALID_IMAGE);
    CHECK(cuMemAlloc(NULL, 4) == CUDA_ERROR_INVALID_VALUE);

    CHECK_CU(cuEventDestroy(ev));
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuModuleUnload(mod));
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    return finish("driver_api");
}
