// NVRTC from C++: compile CUDA C++ at run time (a templated kernel found by its name expression),
// load the result with the driver API and run it; a program with an error reports it in the log.
#include <cuda.h>
#include <nvrtc.h>
#include <cstdio>
#include <cstring>
#include <vector>
#include "check.h"

static const char *kSource =
    "#include \"scale.h\"\n"
    "template <typename T> __global__ void scale(T *x, T k, int n) {\n"
    "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "    if (i < n) x[i] = times(x[i], k);\n"
    "}\n";
static const char *kHeader = "template <typename T> __device__ T times(T a, T b) { return a * b; }\n";

int main() {
    int major = 0, minor = 0;
    CHECK(nvrtcVersion(&major, &minor) == NVRTC_SUCCESS && major >= 12);
    int narchs = 0;
    CHECK(nvrtcGetNumSupportedArchs(&narchs) == NVRTC_SUCCESS && narchs > 0);
    CHECK(strcmp(nvrtcGetErrorString(NVRTC_ERROR_COMPILATION), "NVRTC_ERROR_COMPILATION") == 0);

    nvrtcProgram prog;
    const char *headers[] = {kHeader};
    const char *names[] = {"scale.h"};
    CHECK(nvrtcCreateProgram(&prog, kSource, "scale.cu", 1, headers, names) == NVRTC_SUCCESS);
    CHECK(nvrtcAddNameExpression(prog, "scale<float>") == NVRTC_SUCCESS);
    const char *opts[] = {"--gpu-architecture=compute_80", "-default-device"};
    CHECK(nvrtcCompileProgram(prog, 2, opts) == NVRTC_SUCCESS);
    const char *lowered = NULL;
    CHECK(nvrtcGetLoweredName(prog, "scale<float>", &lowered) == NVRTC_SUCCESS);
    CHECK(lowered != NULL && strstr(lowered, "scale") != NULL);
    size_t ptx_size = 0;
    CHECK(nvrtcGetPTXSize(prog, &ptx_size) == NVRTC_SUCCESS && ptx_size > 1);
    std::vector<char> ptx(ptx_size);
    CHECK(nvrtcGetPTX(prog, ptx.data()) == NVRTC_SUCCESS);
    CHECK(ptx[ptx_size - 1] == '\0' && strstr(ptx.data(), ".entry") != NULL);

    CHECK(cuInit(0) == CUDA_SUCCESS);
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuDeviceGet(&dev, 0) == CUDA_SUCCESS && cuDevicePrimaryCtxRetain(&ctx, dev) == CUDA_SUCCESS);
    CHECK(cuCtxSetCurrent(ctx) == CUDA_SUCCESS);
    CUmodule mod;
    CUfunction fn;
    CHECK(cuModuleLoadData(&mod, ptx.data()) == CUDA_SUCCESS);
    CHECK(cuModuleGetFunction(&fn, mod, lowered) == CUDA_SUCCESS);
    CHECK(nvrtcDestroyProgram(&prog) == NVRTC_SUCCESS && prog == NULL);

    const int n = 100;
    float host[n];
    for (int i = 0; i < n; i++) host[i] = (float)i;
    CUdeviceptr d;
    CHECK(cuMemAlloc(&d, sizeof host) == CUDA_SUCCESS);
    CHECK(cuMemcpyHtoD(d, host, sizeof host) == CUDA_SUCCESS);
    float k = 2.5f;
    int nn = n;
    void *args[] = {&d, &k, &nn};
    CHECK(cuLaunchKernel(fn, 1, 1, 1, 128, 1, 1, 0, NULL, args, NULL) == CUDA_SUCCESS);
    CHECK(cuMemcpyDtoH(host, d, sizeof host) == CUDA_SUCCESS);
    CHECK(host[4] == 10.0f && host[99] == 247.5f);

    nvrtcProgram bad;
    CHECK(nvrtcCreateProgram(&bad, "__global__ void k() { undeclared_name = 1; }", "bad.cu", 0, NULL, NULL) ==
          NVRTC_SUCCESS);
    CHECK(nvrtcCompileProgram(bad, 0, NULL) == NVRTC_ERROR_COMPILATION);
    size_t log_size = 0;
    CHECK(nvrtcGetProgramLogSize(bad, &log_size) == NVRTC_SUCCESS && log_size > 1);
    std::vector<char> log(log_size);
    CHECK(nvrtcGetProgramLog(bad, log.data()) == NVRTC_SUCCESS);
    CHECK(strstr(log.data(), "undeclared_name") != NULL && strstr(log.data(), "bad.cu") != NULL);
    CHECK(nvrtcDestroyProgram(&bad) == NVRTC_SUCCESS);
    CHECK(nvrtcDestroyProgram(NULL) == NVRTC_ERROR_INVALID_PROGRAM);
    return finish("nvrtc_api");
}
