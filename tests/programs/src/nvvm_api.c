/* libNVVM from C (nvvm.h, -lnvvm): NVVM IR text compiled to PTX, loaded with cuModuleLoadData and
 * launched (out[i] = i * i, checked on the host); bad input gets libNVVM's codes, invalid IR a log. */
#include <cuda.h>
#include <nvvm.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

static const char kIR[] =
    "target datalayout = \"e-i64:64-i128:128-v16:16-v32:32-n16:32:64\"\n"
    "target triple = \"nvptx64-nvidia-cuda\"\n"
    "define void @squares(ptr %out) {\n"
    "entry:\n"
    "  %tid = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "  %cta = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "  %ntid = call i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "  %base = mul i32 %cta, %ntid\n"
    "  %i = add i32 %base, %tid\n"
    "  %sq = mul i32 %i, %i\n"
    "  %idx = sext i32 %i to i64\n"
    "  %p = getelementptr i32, ptr %out, i64 %idx\n"
    "  store i32 %sq, ptr %p\n"
    "  ret void\n"
    "}\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.tid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()\n"
    "declare i32 @llvm.nvvm.read.ptx.sreg.ntid.x()\n"
    "!nvvm.annotations = !{!0}\n"
    "!0 = !{ptr @squares, !\"kernel\", i32 1}\n"
    "!nvvmir.version = !{!1}\n"
    "!1 = !{i32 2, i32 0}\n";

int main(void) {
    int major = 0, minor = 0, ir_major = 0, ir_minor = 0, dbg_major = 0, dbg_minor = 0;
    CHECK(nvvmVersion(&major, &minor) == NVVM_SUCCESS && major >= 1);
    CHECK(nvvmIRVersion(&ir_major, &ir_minor, &dbg_major, &dbg_minor) == NVVM_SUCCESS && ir_major == 2);
    CHECK(strcmp(nvvmGetErrorString(NVVM_ERROR_INVALID_IR), "NVVM_ERROR_INVALID_IR") == 0);

    nvvmProgram prog;
    CHECK(nvvmCreateProgram(&prog) == NVVM_SUCCESS);
    CHECK(nvvmAddModuleToProgram(prog, kIR, sizeof kIR - 1, "squares") == NVVM_SUCCESS);
    const char *opts[] = {"-arch=compute_80"};
    CHECK(nvvmVerifyProgram(prog, 1, opts) == NVVM_SUCCESS);
    CHECK(nvvmCompileProgram(prog, 1, opts) == NVVM_SUCCESS);
    size_t size = 0;
    CHECK(nvvmGetCompiledResultSize(prog, &size) == NVVM_SUCCESS && size > 1);
    char *ptx = (char *)malloc(size);
    CHECK(nvvmGetCompiledResult(prog, ptx) == NVVM_SUCCESS && strstr(ptx, ".entry squares") != NULL);
    CHECK(nvvmDestroyProgram(&prog) == NVVM_SUCCESS && prog == NULL);

    CUdevice dev;
    CUcontext ctx;
    CUmodule mod;
    CUfunction fn;
    CUdeviceptr d;
    CHECK(cuInit(0) == CUDA_SUCCESS && cuDeviceGet(&dev, 0) == CUDA_SUCCESS);
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS && cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    CHECK(cuModuleLoadData(&mod, ptx) == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fn, mod, "squares") == CUDA_SUCCESS);
    enum { N = 512 };
    CHECK(cuMemAlloc(&d, N * sizeof(int)) == CUDA_SUCCESS);
    void *args[] = {&d};
    CHECK(cuLaunchKernel(fn, N / 128, 1, 1, 128, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
    int host[N];
    CHECK(cuMemcpyDtoH(host, d, sizeof host) == CUDA_SUCCESS);
    int bad = 0;
    for (int i = 0; i < N; ++i) bad += host[i] != i * i;
    CHECK(bad == 0);
    unsigned int is_managed = 7;
    CHECK(cuPointerGetAttribute(&is_managed, CU_POINTER_ATTRIBUTE_IS_MANAGED, d) == CUDA_SUCCESS && is_managed == 0);
    CUdeviceptr start = 0;
    size_t range = 0;
    CHECK(cuPointerGetAttribute(&start, CU_POINTER_ATTRIBUTE_RANGE_START_ADDR, d + 64) == CUDA_SUCCESS && start == d);
    CHECK(cuPointerGetAttribute(&range, CU_POINTER_ATTRIBUTE_RANGE_SIZE, d) == CUDA_SUCCESS && range == sizeof host);
    CHECK(cuMemFree(d) == CUDA_SUCCESS && cuModuleUnload(mod) == CUDA_SUCCESS);
    free(ptx);

    /* bad input */
    CHECK(nvvmCreateProgram(NULL) == NVVM_ERROR_INVALID_INPUT);
    CHECK(nvvmCreateProgram(&prog) == NVVM_SUCCESS);
    CHECK(nvvmAddModuleToProgram(prog, NULL, 10, "x") == NVVM_ERROR_INVALID_INPUT);
    CHECK(nvvmAddModuleToProgram(prog, "not llvm", 8, "junk") == NVVM_SUCCESS);
    CHECK(nvvmCompileProgram(prog, 0, NULL) != NVVM_SUCCESS);
    CHECK(nvvmGetProgramLogSize(prog, &size) == NVVM_SUCCESS && size > 1);
    char *log = (char *)malloc(size);
    CHECK(nvvmGetProgramLog(prog, log) == NVVM_SUCCESS && strlen(log) + 1 == size);
    free(log);
    CHECK(nvvmDestroyProgram(&prog) == NVVM_SUCCESS);
    CHECK(nvvmCompileProgram((nvvmProgram)(unsigned long)0x1234, 0, NULL) == NVVM_ERROR_INVALID_PROGRAM);
    return finish("nvvm_api");
}
