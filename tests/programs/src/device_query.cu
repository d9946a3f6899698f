// Device management, versions, limits, error strings.
#include <cstring>
#include "check.h"

int main() {
    int count = -1;
    CHECK_CUDA(cudaGetDeviceCount(&count));
    CHECK(count >= 1);
    int dev = -1;
    CHECK_CUDA(cudaSetDevice(0));
    CHECK_CUDA(cudaGetDevice(&dev));
    CHECK(dev == 0);
    cudaDeviceProp prop;
    memset(&prop, 0xff, sizeof prop);
    CHECK_CUDA(cudaGetDeviceProperties(&prop, 0));
    CHECK(strlen(prop.name) > 0 && strlen(prop.name) < 256);
    CHECK(prop.warpSize == 32);
    CHECK(prop.maxThreadsPerBlock >= 256);
    CHECK(prop.maxThreadsDim[0] >= 256 && prop.maxGridSize[0] > 65535);
    CHECK(prop.totalGlobalMem > (1u << 20));
    CHECK(prop.multiProcessorCount >= 1);
    CHECK(prop.major >= 7);
    CHECK(prop.unifiedAddressing == 1 && prop.managedMemory == 1);
    int v = -1;
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrWarpSize, 0));
    CHECK(v == 32);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerBlock, 0));
    CHECK(v == prop.maxThreadsPerBlock);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0));
    CHECK(v == prop.multiProcessorCount);
    // CUDA 12's fields that CUDA 13 removed (still read by older programs): the attributes' values
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrClockRate, 0));
    CHECK(v > 0 && v == prop.clockRate);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMemoryClockRate, 0));
    CHECK(v == prop.memoryClockRate);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrKernelExecTimeout, 0));
    CHECK(v == prop.kernelExecTimeoutEnabled);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrMaxTexture1DLinearWidth, 0));
    CHECK(v > 0 && v == prop.maxTexture1DLinear);
    CHECK_CUDA(cudaDeviceGetAttribute(&v, cudaDevAttrComputeMode, 0));
    CHECK(v == prop.computeMode && prop.computeMode == cudaComputeModeDefault);
    CHECK(prop.reserved[0] == prop.clockRate && sizeof(prop) == 1008);
    int drv = 0, rtv = 0;
    CHECK_CUDA(cudaDriverGetVersion(&drv));
    CHECK_CUDA(cudaRuntimeGetVersion(&rtv));
    CHECK(drv >= 12000 && rtv >= 12000);
    size_t limit = 0;
    CHECK_CUDA(cudaDeviceSetLimit(cudaLimitPrintfFifoSize, 1 << 21));
    CHECK_CUDA(cudaDeviceGetLimit(&limit, cudaLimitPrintfFifoSize));
    CHECK(limit == (1u << 21));
    int least = 1, greatest = 1;
    CHECK_CUDA(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    CHECK(least >= greatest);
    // errors: an invalid ordinal, NULL outputs; the last error is kept until read
    CHECK(cudaSetDevice(count + 5) == cudaErrorInvalidDevice);
    CHECK(cudaPeekAtLastError() == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaSuccess);
    CHECK(cudaGetDeviceCount(NULL) == cudaErrorInvalidValue);
    CHECK(cudaGetDeviceProperties(NULL, 0) == cudaErrorInvalidValue);
    CHECK(cudaGetDeviceProperties(&prop, 99) == cudaErrorInvalidDevice);
    CHECK(cudaGetLastError() == cudaErrorInvalidDevice);
    CHECK(strcmp(cudaGetErrorName(cudaErrorInvalidValue), "cudaErrorInvalidValue") == 0);
    CHECK(strcmp(cudaGetErrorString(cudaSuccess), "no error") == 0);
    CHECK(strlen(cudaGetErrorString(cudaErrorMemoryAllocation)) > 0);
    CHECK_CUDA(cudaProfilerStart());
    CHECK_CUDA(cudaProfilerStop());
    CHECK_CUDA(cudaDeviceSynchronize());
    return finish("device_query");
}
