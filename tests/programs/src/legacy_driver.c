/* Legacy Driver API names, declared here as programs that dlsym them declare them (today's cuda.h
 * has none of them): the CUDA 3.x launch (cuParamSet*, cuFuncSetBlockShape, cuLaunchGrid), _v2
 * entry points, pitched allocation and 2D memset, limits, legacy device properties and PCI ids,
 * and a texture-reference call that CuMetal refuses. Checked against host arithmetic. */
#include <cuda.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev);
CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytes);
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t bytes);
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t bytes);
CUresult cuParamSetSize(CUfunction f, unsigned int numbytes);
CUresult cuParamSeti(CUfunction f, int offset, unsigned int value);
CUresult cuParamSetf(CUfunction f, int offset, float value);
CUresult cuParamSetv(CUfunction f, int offset, void *ptr, unsigned int numbytes);
CUresult cuFuncSetBlockShape(CUfunction f, int x, int y, int z);
CUresult cuFuncSetSharedSize(CUfunction f, unsigned int bytes);
CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height);
CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pitch, size_t width, size_t height, unsigned int elem);
CUresult cuMemsetD2D32_v2(CUdeviceptr dst, size_t pitch, unsigned int value, size_t width, size_t height);
CUresult cuCtxSetLimit(int limit, size_t value);
CUresult cuCtxGetLimit(size_t *value, int limit);
typedef struct {
    int maxThreadsPerBlock, maxThreadsDim[3], maxGridSize[3], sharedMemPerBlock, totalConstantMemory, SIMDWidth,
        memPitch, regsPerBlock, clockRate, textureAlign;
} legacy_devprop;
CUresult cuDeviceGetProperties(legacy_devprop *prop, CUdevice dev);
CUresult cuDeviceGetPCIBusId(char *bus, int len, CUdevice dev);
CUresult cuDeviceGetByPCIBusId(CUdevice *dev, const char *bus);
CUresult cuTexRefCreate(void **ref);

static const char PTX[] =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry axpbk(.param .u64 out, .param .u64 x, .param .f32 a, .param .u32 k, .param .u32 n)\n"
    "{\n"
    "  .reg .pred %p; .reg .b32 %r<8>; .reg .f32 %f<5>; .reg .b64 %rd<6>;\n"
    "  mov.u32 %r1, %ctaid.x; mov.u32 %r2, %ntid.x; mov.u32 %r3, %tid.x;\n"
    "  mad.lo.s32 %r4, %r1, %r2, %r3;\n"
    "  ld.param.u32 %r5, [n];\n"
    "  setp.ge.s32 %p, %r4, %r5;\n"
    "  @%p bra DONE;\n"
    "  ld.param.u64 %rd1, [out]; ld.param.u64 %rd2, [x];\n"
    "  mul.wide.s32 %rd3, %r4, 4;\n"
    "  add.s64 %rd4, %rd1, %rd3; add.s64 %rd5, %rd2, %rd3;\n"
    "  ld.param.f32 %f1, [a]; ld.param.u32 %r6, [k];\n"
    "  cvt.rn.f32.s32 %f2, %r6;\n"
    "  ld.global.f32 %f3, [%rd5];\n"
    "  fma.rn.f32 %f4, %f1, %f3, %f2;\n"
    "  st.global.f32 [%rd4], %f4;\n"
    "DONE:\n"
    "  ret;\n"
    "}\n";

#define N 1000

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CHECK(cuInit(0) == CUDA_SUCCESS);
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuCtxCreate_v2(&ctx, 0, dev) == CUDA_SUCCESS);
    CHECK(cuModuleLoadData(&mod, PTX) == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fn, mod, "axpbk") == CUDA_SUCCESS);

    /* the CUDA 3.x launch: parameters placed by offset, block shape, grid */
    static float x[N], y[N];
    for (int i = 0; i < N; ++i) x[i] = (float)i * 0.5f;
    CUdeviceptr dx, dy;
    CHECK(cuMemAlloc_v2(&dx, sizeof x) == CUDA_SUCCESS);
    CHECK(cuMemAlloc_v2(&dy, sizeof y) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoD_v2(dx, x, sizeof x) == CUDA_SUCCESS);
    CHECK(cuParamSetv(fn, 0, &dy, 8) == CUDA_SUCCESS);
    CHECK(cuParamSetv(fn, 8, &dx, 8) == CUDA_SUCCESS);
    CHECK(cuParamSetf(fn, 16, 3.0f) == CUDA_SUCCESS);
    CHECK(cuParamSeti(fn, 20, 7) == CUDA_SUCCESS);
    CHECK(cuParamSeti(fn, 24, N) == CUDA_SUCCESS);
    CHECK(cuParamSetSize(fn, 28) == CUDA_SUCCESS);
    CHECK(cuFuncSetBlockShape(fn, 128, 1, 1) == CUDA_SUCCESS);
    CHECK(cuFuncSetSharedSize(fn, 0) == CUDA_SUCCESS);
    CHECK(cuLaunchGrid(fn, (N + 127) / 128, 1) == CUDA_SUCCESS);
    CHECK(cuCtxSynchronize() == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH_v2(y, dy, sizeof y) == CUDA_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += y[i] != 3.0f * x[i] + 7.0f;
    CHECK(bad == 0);

    /* pitched allocation and a 2D memset, read back row by row */
    CUdeviceptr p;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch_v2(&p, &pitch, 100 * 4, 6, 4) == CUDA_SUCCESS);
    CHECK(pitch >= 400);
    CHECK(cuMemsetD2D32_v2(p, pitch, 0xdeadbeefu, 100, 6) == CUDA_SUCCESS);
    unsigned row[100];
    CHECK(cuMemcpyDtoH_v2(row, p + 5 * pitch, sizeof row) == CUDA_SUCCESS);
    bad = 0;
    for (int i = 0; i < 100; ++i) bad += row[i] != 0xdeadbeefu;
    CHECK(bad == 0);

    /* limits (CU_LIMIT_PRINTF_FIFO_SIZE = 1) round trip */
    size_t lim = 0;
    CHECK(cuCtxSetLimit(1, 1 << 20) == CUDA_SUCCESS);
    CHECK(cuCtxGetLimit(&lim, 1) == CUDA_SUCCESS && lim == (1 << 20));

    /* legacy properties agree with the attributes; the PCI id names the device back */
    legacy_devprop prop;
    memset(&prop, 0, sizeof prop);
    int mtpb = 0, mbx = 0;
    CHECK(cuDeviceGetProperties(&prop, dev) == CUDA_SUCCESS);
    CHECK(cuDeviceGetAttribute(&mtpb, CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK, dev) == CUDA_SUCCESS);
    CHECK(cuDeviceGetAttribute(&mbx, CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X, dev) == CUDA_SUCCESS);
    CHECK(prop.maxThreadsPerBlock == mtpb && prop.maxThreadsDim[0] == mbx && mtpb > 0);
    char bus[64];
    CUdevice back = -1;
    CHECK(cuDeviceGetPCIBusId(bus, sizeof bus, dev) == CUDA_SUCCESS && strlen(bus) > 0);
    CHECK(cuDeviceGetByPCIBusId(&back, bus) == CUDA_SUCCESS && back == dev);

    /* texture references were removed in CUDA 12: refused with CUDA_ERROR_NOT_SUPPORTED */
    void *ref = NULL;
    CHECK(cuTexRefCreate(&ref) == CUDA_ERROR_NOT_SUPPORTED);

    CHECK(cuMemFree(dx) == CUDA_SUCCESS && cuMemFree(dy) == CUDA_SUCCESS && cuMemFree(p) == CUDA_SUCCESS);
    CHECK(cuCtxDestroy(ctx) == CUDA_SUCCESS);
    return finish("legacy_driver");
}
