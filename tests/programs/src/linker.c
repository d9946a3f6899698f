/* The JIT linker from C: two PTX modules (a kernel calling an .extern device function the other
 * defines) linked with cuLinkCreate/AddData/Complete, loaded and launched; the options' log buffers
 * and sizes as CUDA fills them; a failed link writes its reason to the error log; cuModuleLoadDataEx
 * with the same option arrays. */
#include <string.h>
#include <cuda.h>
#include "check.h"
#define CHECK_CU(call) CHECK((call) == CUDA_SUCCESS)

static const char *caller =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".extern .func (.param .b32 r) twice(.param .b32 x);\n"
    ".visible .entry run(.param .u64 p)\n{\n"
    "  .reg .b32 %r<4>; .reg .b64 %rd<4>;\n"
    "  ld.param.u64 %rd1, [p]; cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r1, %tid.x; mul.wide.u32 %rd2, %r1, 4; add.s64 %rd3, %rd1, %rd2;\n"
    "  { .param .b32 a; .param .b32 b; st.param.b32 [a], %r1;\n"
    "    call.uni (b), twice, (a); ld.param.b32 %r2, [b]; }\n"
    "  st.global.u32 [%rd3], %r2;\n  ret;\n}\n";
static const char *solo =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .entry solo(.param .u64 p)\n{\n"
    "  .reg .b32 %r<8>; .reg .b64 %rd<3>;\n"
    "  ld.param.u64 %rd1, [p]; mov.u32 %r1, %tid.x; add.u32 %r2, %r1, 1; add.u32 %r3, %r1, 2;\n"
    "  add.u32 %r4, %r1, 3; mul.lo.u32 %r5, %r2, %r3; mul.lo.u32 %r6, %r5, %r4; add.u32 %r7, %r6, %r2;\n"
    "  add.u32 %r7, %r7, %r3; add.u32 %r7, %r7, %r4; st.global.u32 [%rd1], %r7;\n  ret;\n}\n";
static const char *callee =
    ".version 7.0\n.target sm_80\n.address_size 64\n"
    ".visible .func (.param .b32 r) twice(.param .b32 x)\n{\n"
    "  .reg .b32 %r<3>; ld.param.b32 %r1, [x]; add.u32 %r2, %r1, %r1; st.param.b32 [r], %r2; ret;\n}\n";

int main(void) {
    CHECK_CU(cuInit(0));
    CUdevice dev;
    CHECK_CU(cuDeviceGet(&dev, 0));
    CUcontext ctx;
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));

    char info[256], error[256];
    memset(info, 'x', sizeof info);
    CUjit_option keys[5] = {CU_JIT_WALL_TIME, CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *values[5] = {0, info, (void *)(size_t)sizeof info, error, (void *)(size_t)sizeof error};
    CUlinkState link;
    CHECK_CU(cuLinkCreate(5, keys, values, &link));
    CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)caller, strlen(caller) + 1, "caller.ptx", 0, NULL, NULL));
    CHECK_CU(cuLinkAddData(link, CU_JIT_INPUT_PTX, (void *)callee, strlen(callee) + 1, "callee.ptx", 0, NULL, NULL));
    void *image = NULL;
    size_t size = 0;
    CHECK_CU(cuLinkComplete(link, &image, &size));
    CHECK(image != NULL && size > 0);
    CHECK(info[0] == '\0');  /* an empty info log, as written */
    float wall;
    memcpy(&wall, &values[0], sizeof wall);  /* CUDA overwrites the option's slot with a float */
    CHECK(wall >= 0.0f && wall < 60000.0f);

    CUmodule mod;
    CHECK_CU(cuModuleLoadData(&mod, image));  /* valid until cuLinkDestroy */
    CHECK_CU(cuLinkDestroy(link));
    CUfunction fn;
    CHECK_CU(cuModuleGetFunction(&fn, mod, "run"));
    CUdeviceptr d;
    CHECK_CU(cuMemAlloc(&d, 32 * sizeof(unsigned)));
    void *args[] = {&d};
    CHECK_CU(cuLaunchKernel(fn, 1, 1, 1, 32, 1, 1, 0, NULL, args, NULL));
    unsigned host[32];
    CHECK_CU(cuMemcpyDtoH(host, d, sizeof host));
    for (unsigned i = 0; i < 32; i++) CHECK(host[i] == 2 * i);

    /* the callee defined twice: the link fails and says why in the error log */
    CUlinkState bad;
    CHECK_CU(cuLinkCreate(5, keys, values, &bad));
    CHECK_CU(cuLinkAddData(bad, CU_JIT_INPUT_PTX, (void *)callee, strlen(callee) + 1, "a.ptx", 0, NULL, NULL));
    CHECK_CU(cuLinkAddData(bad, CU_JIT_INPUT_PTX, (void *)callee, strlen(callee) + 1, "b.ptx", 0, NULL, NULL));
    CHECK(cuLinkComplete(bad, &image, &size) != CUDA_SUCCESS);
    CHECK(strstr(error, "twice") != NULL);
    CHECK((size_t)values[4] == strlen(error) + 1);
    CHECK_CU(cuLinkDestroy(bad));
    CHECK(cuLinkDestroy(bad) == CUDA_ERROR_INVALID_HANDLE);

    /* cuModuleLoadDataEx with CUDA's option arrays: logs written (not left as they were), the
     * register cap honoured in NUM_REGS, a bad image's reason in the error log */
    int regs_free = 0, regs_capped = 0;
    CUmodule plain;
    CHECK_CU(cuModuleLoadData(&plain, solo));
    CHECK_CU(cuModuleGetFunction(&fn, plain, "solo"));
    CHECK_CU(cuFuncGetAttribute(&regs_free, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CHECK(regs_free > 2);
    CHECK_CU(cuModuleUnload(plain));
    memset(info, 'x', sizeof info);
    memset(error, 'x', sizeof error);
    CUjit_option ex_keys[6] = {CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES, CU_JIT_ERROR_LOG_BUFFER,
                               CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES, CU_JIT_MAX_REGISTERS, CU_JIT_WALL_TIME};
    void *ex_values[6] = {info, (void *)(size_t)sizeof info, error, (void *)(size_t)sizeof error, (void *)(size_t)2, 0};
    CUmodule capped;
    CHECK_CU(cuModuleLoadDataEx(&capped, callee, 6, ex_keys, ex_values));
    CHECK(info[0] == '\0' && error[0] == '\0');
    CUmodule with_cap;
    CHECK_CU(cuModuleLoadDataEx(&with_cap, solo, 6, ex_keys, ex_values));
    CHECK_CU(cuModuleGetFunction(&fn, with_cap, "solo"));
    CHECK_CU(cuFuncGetAttribute(&regs_capped, CU_FUNC_ATTRIBUTE_NUM_REGS, fn));
    CHECK(regs_capped >= 1 && regs_capped <= 2);
    CUmodule broken;
    ex_values[3] = (void *)(size_t)sizeof error;
    CHECK(cuModuleLoadDataEx(&broken, ".version 7.0\n.target sm_80\nnot ptx at all;\n", 6, ex_keys, ex_values) != CUDA_SUCCESS);
    CHECK(error[0] != 'x' && strlen(error) > 0);
    CHECK(cuModuleLoadDataEx(&broken, callee, 3, NULL, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuModuleUnload(capped));
    CHECK_CU(cuModuleUnload(with_cap));

    CHECK_CU(cuMemFree(d));
    CHECK_CU(cuModuleUnload(mod));
    return finish("linker");
}
