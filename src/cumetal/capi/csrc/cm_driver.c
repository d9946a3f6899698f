/* libcumetal: the CUDA Driver API (the functions cumetal.driver implements). Arguments go to the
 * same-named function of cumetal.capi.bridge's driver part (prefixed "drv_"), which calls
 * cumetal.driver and writes the outputs. Each function is also exported under the versioned name
 * that NVIDIA's cuda.h maps it to, so programs compiled against either header link. */
#include "cuda.h"

#include "cm_core.h"
#include "cm_native_launch.h"

#include "cm_driver_calls.h"

CM_EXPORT CUresult cuInit(unsigned int Flags) { DRV("cuInit", "(I)", Flags); }
CM_EXPORT CUresult cuDriverGetVersion(int *driverVersion) { DRV("cuDriverGetVersion", "(K)", CM_P(driverVersion)); }
CM_EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr) {
    DRV("cuGetErrorName", "(iK)", (int)error, CM_P(pStr));
}
CM_EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr) {
    DRV("cuGetErrorString", "(iK)", (int)error, CM_P(pStr));
}

CM_EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal) { DRV("cuDeviceGet", "(Ki)", CM_P(device), ordinal); }
CM_EXPORT CUresult cuDeviceGetCount(int *count) { DRV("cuDeviceGetCount", "(K)", CM_P(count)); }
CM_EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev) {
    DRV("cuDeviceGetName", "(Kii)", CM_P(name), len, dev);
}
CM_EXPORT CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) { DRV("cuDeviceTotalMem", "(Ki)", CM_P(bytes), dev); }
CM_EXPORT CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib, CUdevice dev) {
    DRV("cuDeviceGetAttribute", "(Kii)", CM_P(pi), (int)attrib, dev);
}
CM_EXPORT CUresult cuDeviceComputeCapability(int *major, int *minor, CUdevice dev) {
    DRV("cuDeviceComputeCapability", "(KKi)", CM_P(major), CM_P(minor), dev);
}

CM_EXPORT CUresult cuCtxCreate(CUcontext *pctx, CUctxCreateParams *ctxCreateParams, unsigned int flags, CUdevice dev) {
    DRV("cuCtxCreate", "(KKIi)", CM_P(pctx), CM_P(ctxCreateParams), flags, dev);
}
CM_EXPORT CUresult cuCtxDestroy(CUcontext ctx) { DRV("cuCtxDestroy", "(K)", CM_P(ctx)); }
CM_EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx) { DRV("cuCtxGetCurrent", "(K)", CM_P(pctx)); }
CM_EXPORT CUresult cuCtxSetCurrent(CUcontext ctx) { DRV("cuCtxSetCurrent", "(K)", CM_P(ctx)); }
CM_EXPORT CUresult cuCtxPushCurrent(CUcontext ctx) { DRV("cuCtxPushCurrent", "(K)", CM_P(ctx)); }
CM_EXPORT CUresult cuCtxPopCurrent(CUcontext *pctx) { DRV("cuCtxPopCurrent", "(K)", CM_P(pctx)); }
CM_EXPORT CUresult cuCtxGetDevice(CUdevice *device) { DRV("cuCtxGetDevice", "(K)", CM_P(device)); }
CM_EXPORT CUresult cuCtxGetFlags(unsigned int *flags) { DRV("cuCtxGetFlags", "(K)", CM_P(flags)); }
CM_EXPORT CUresult cuCtxSynchronize(void) { DRV0("cuCtxSynchronize"); }
CM_EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev) {
    DRV("cuDevicePrimaryCtxRetain", "(Ki)", CM_P(pctx), dev);
}
CM_EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { DRV("cuDevicePrimaryCtxRelease", "(i)", dev); }
CM_EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { DRV("cuDevicePrimaryCtxReset", "(i)", dev); }
CM_EXPORT CUresult cuDevicePrimaryCtxSetFlags(CUdevice dev, unsigned int flags) {
    DRV("cuDevicePrimaryCtxSetFlags", "(iI)", dev, flags);
}
CM_EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active) {
    DRV("cuDevicePrimaryCtxGetState", "(iKK)", dev, CM_P(flags), CM_P(active));
}

CM_EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname) {
    DRV("cuModuleLoad", "(KK)", CM_P(module), CM_P(fname));
}
CM_EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image) {
    DRV("cuModuleLoadData", "(KK)", CM_P(module), CM_P(image));
}
CM_EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                      CUjit_option *options, void **optionValues) {
    DRV("cuModuleLoadDataEx", "(KKIKK)", CM_P(module), CM_P(image), numOptions, CM_P(options), CM_P(optionValues));
}
CM_EXPORT CUresult cuModuleLoadFatBinary(CUmodule *module, const void *fatCubin) {
    DRV("cuModuleLoadData", "(KK)", CM_P(module), CM_P(fatCubin));
}
CM_EXPORT CUresult cuModuleUnload(CUmodule hmod) { DRV("cuModuleUnload", "(K)", CM_P(hmod)); }
CM_EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name) {
    DRV("cuModuleGetFunction", "(KKK)", CM_P(hfunc), CM_P(hmod), CM_P(name));
}
CM_EXPORT CUresult cuModuleGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUmodule hmod, const char *name) {
    DRV("cuModuleGetGlobal", "(KKKK)", CM_P(dptr), CM_P(bytes), CM_P(hmod), CM_P(name));
}
CM_EXPORT CUresult cuFuncGetAttribute(int *pi, CUfunction_attribute attrib, CUfunction hfunc) {
    DRV("cuFuncGetAttribute", "(KiK)", CM_P(pi), (int)attrib, CM_P(hfunc));
}
CM_EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib, int value) {
    DRV("cuFuncSetAttribute", "(Kii)", CM_P(hfunc), (int)attrib, value);
}
CM_EXPORT CUresult cuFuncGetName(const char **name, CUfunction hfunc) {
    DRV("cuFuncGetName", "(KK)", CM_P(name), CM_P(hfunc));
}
CM_EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize, CUfunction func,
                                                    CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                    size_t dynamicSMemSize, int blockSizeLimit) {
    DRV("cuOccupancyMaxPotentialBlockSize", "(KKKKKi)", CM_P(minGridSize), CM_P(blockSize), CM_P(func),
        CM_P(blockSizeToDynamicSMemSize), K(dynamicSMemSize), blockSizeLimit);
}
CM_EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func, int blockSize,
                                                               size_t dynamicSMemSize) {
    DRV("cuOccupancyMaxActiveBlocksPerMultiprocessor", "(KKiK)", CM_P(numBlocks), CM_P(func), blockSize,
        K(dynamicSMemSize));
}
CM_EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY, unsigned int gridDimZ,
                                  unsigned int blockDimX, unsigned int blockDimY, unsigned int blockDimZ,
                                  unsigned int sharedMemBytes, CUstream hStream, void **kernelParams, void **extra) {
    /* a launch Python has validated and compiled before is enqueued without Python (cm_native_launch.c) */
    const unsigned int g[3] = {gridDimX, gridDimY, gridDimZ}, b[3] = {blockDimX, blockDimY, blockDimZ};
    if (cm_native_launch_driver(f, g, b, kernelParams, extra, sharedMemBytes, hStream))
        return CUDA_SUCCESS;
    DRV("cuLaunchKernelPlanned", "(KIIIIIIIKKKK)", CM_P(f), gridDimX, gridDimY, gridDimZ, blockDimX, blockDimY,
        blockDimZ, sharedMemBytes, CM_P(hStream), CM_P(kernelParams), CM_P(extra), cm_native_api_address());
}

CM_EXPORT CUresult cuMemAlloc(CUdeviceptr *dptr, size_t bytesize) {
    DRV("cuMemAlloc", "(KK)", CM_P(dptr), K(bytesize));
}
CM_EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags) {
    DRV("cuMemAllocManaged", "(KKI)", CM_P(dptr), K(bytesize), flags);
}
CM_EXPORT CUresult cuMemFree(CUdeviceptr dptr) { DRV("cuMemFree", "(K)", K(dptr)); }
CM_EXPORT CUresult cuMemAllocHost(void **pp, size_t bytesize) {
    DRV("cuMemHostAlloc", "(KKI)", CM_P(pp), K(bytesize), 0u);
}
CM_EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags) {
    DRV("cuMemHostAlloc", "(KKI)", CM_P(pp), K(bytesize), Flags);
}
CM_EXPORT CUresult cuMemFreeHost(void *p) { DRV("cuMemFreeHost", "(K)", CM_P(p)); }
CM_EXPORT CUresult cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p, unsigned int Flags) {
    DRV("cuMemHostGetDevicePointer", "(KKI)", CM_P(pdptr), CM_P(p), Flags);
}
CM_EXPORT CUresult cuMemGetInfo(size_t *free, size_t *total) {
    DRV("cuMemGetInfo", "(KK)", CM_P(free), CM_P(total));
}
CM_EXPORT CUresult cuMemGetAddressRange(CUdeviceptr *pbase, size_t *psize, CUdeviceptr dptr) {
    DRV("cuMemGetAddressRange", "(KKK)", CM_P(pbase), CM_P(psize), K(dptr));
}
/* copies: one bridge function; `sync` says whether to wait as the synchronous forms do */
#define COPY(dst, src, n, stream, sync) DRV("memcpy", "(KKKKi)", K(dst), K(src), K(n), CM_P(stream), sync)
CM_EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t n) { COPY(dst, src, n, 0, 1); }
CM_EXPORT CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) { COPY(dst, src, n, s, 0); }
CM_EXPORT CUresult cuMemcpyHtoD(CUdeviceptr dst, const void *src, size_t n) { COPY(dst, CM_P(src), n, 0, 1); }
CM_EXPORT CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
    COPY(dst, CM_P(src), n, s, 0);
}
CM_EXPORT CUresult cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n) { COPY(CM_P(dst), src, n, 0, 1); }
CM_EXPORT CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
    COPY(CM_P(dst), src, n, s, 0);
}
CM_EXPORT CUresult cuMemcpyDtoD(CUdeviceptr dst, CUdeviceptr src, size_t n) { COPY(dst, src, n, 0, 1); }
CM_EXPORT CUresult cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, CUstream s) {
    COPY(dst, src, n, s, 0);
}
#define SET(dst, value, width, n, stream, sync) \
    DRV("memset", "(KKiKKi)", K(dst), K(value), width, K(n), CM_P(stream), sync)
CM_EXPORT CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { SET(d, v, 1, n, 0, 1); }
CM_EXPORT CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s) { SET(d, v, 1, n, s, 0); }
CM_EXPORT CUresult cuMemsetD16(CUdeviceptr d, unsigned short v, size_t n) { SET(d, v, 2, n, 0, 1); }
CM_EXPORT CUresult cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n, CUstream s) { SET(d, v, 2, n, s, 0); }
CM_EXPORT CUresult cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n) { SET(d, v, 4, n, 0, 1); }
CM_EXPORT CUresult cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n, CUstream s) { SET(d, v, 4, n, s, 0); }

CM_EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags) {
    DRV("cuStreamCreate", "(KI)", CM_P(phStream), Flags);
}
CM_EXPORT CUresult cuStreamDestroy(CUstream hStream) { DRV("cuStreamDestroy", "(K)", CM_P(hStream)); }
CM_EXPORT CUresult cuStreamGetFlags(CUstream hStream, unsigned int *flags) {
    DRV("cuStreamGetFlags", "(KK)", CM_P(hStream), CM_P(flags));
}
CM_EXPORT CUresult cuStreamQuery(CUstream hStream) { DRV("cuStreamQuery", "(K)", CM_P(hStream)); }
CM_EXPORT CUresult cuStreamSynchronize(CUstream hStream) { DRV("cuStreamSynchronize", "(K)", CM_P(hStream)); }
CM_EXPORT CUresult cuStreamWaitEvent(CUstream hStream, CUevent hEvent, unsigned int Flags) {
    DRV("cuStreamWaitEvent", "(KKI)", CM_P(hStream), CM_P(hEvent), Flags);
}
CM_EXPORT CUresult cuEventCreate(CUevent *phEvent, unsigned int Flags) {
    DRV("cuEventCreate", "(KI)", CM_P(phEvent), Flags);
}
CM_EXPORT CUresult cuEventDestroy(CUevent hEvent) { DRV("cuEventDestroy", "(K)", CM_P(hEvent)); }
CM_EXPORT CUresult cuEventRecord(CUevent hEvent, CUstream hStream) {
    DRV("cuEventRecord", "(KK)", CM_P(hEvent), CM_P(hStream));
}
CM_EXPORT CUresult cuEventQuery(CUevent hEvent) { DRV("cuEventQuery", "(K)", CM_P(hEvent)); }
CM_EXPORT CUresult cuEventSynchronize(CUevent hEvent) { DRV("cuEventSynchronize", "(K)", CM_P(hEvent)); }
CM_EXPORT CUresult cuEventElapsedTime(float *pMilliseconds, CUevent hStart, CUevent hEnd) {
    DRV("cuEventElapsedTime", "(KKK)", CM_P(pMilliseconds), CM_P(hStart), CM_P(hEnd));
}

/* versioned names used by NVIDIA's cuda.h */
ALIAS(cuCtxCreate_v4, cuCtxCreate)
ALIAS(cuCtxDestroy_v2, cuCtxDestroy)
ALIAS(cuCtxPopCurrent_v2, cuCtxPopCurrent)
ALIAS(cuCtxPushCurrent_v2, cuCtxPushCurrent)
ALIAS(cuDevicePrimaryCtxRelease_v2, cuDevicePrimaryCtxRelease)
ALIAS(cuDevicePrimaryCtxReset_v2, cuDevicePrimaryCtxReset)
ALIAS(cuDevicePrimaryCtxSetFlags_v2, cuDevicePrimaryCtxSetFlags)
ALIAS(cuDeviceTotalMem_v2, cuDeviceTotalMem)
ALIAS(cuEventDestroy_v2, cuEventDestroy)
ALIAS(cuEventElapsedTime_v2, cuEventElapsedTime)
ALIAS(cuMemAlloc_v2, cuMemAlloc)
ALIAS(cuMemAllocHost_v2, cuMemAllocHost)
ALIAS(cuMemFree_v2, cuMemFree)
ALIAS(cuMemGetAddressRange_v2, cuMemGetAddressRange)
ALIAS(cuMemGetInfo_v2, cuMemGetInfo)
ALIAS(cuMemHostGetDevicePointer_v2, cuMemHostGetDevicePointer)
ALIAS(cuModuleGetGlobal_v2, cuModuleGetGlobal)
ALIAS(cuStreamDestroy_v2, cuStreamDestroy)
ALIAS(cuMemcpyHtoD_v2, cuMemcpyHtoD)
ALIAS(cuMemcpyDtoH_v2, cuMemcpyDtoH)
ALIAS(cuMemcpyDtoD_v2, cuMemcpyDtoD)
ALIAS(cuMemcpyHtoDAsync_v2, cuMemcpyHtoDAsync)
ALIAS(cuMemcpyDtoHAsync_v2, cuMemcpyDtoHAsync)
ALIAS(cuMemcpyDtoDAsync_v2, cuMemcpyDtoDAsync)
ALIAS(cuMemsetD8_v2, cuMemsetD8)
ALIAS(cuMemsetD16_v2, cuMemsetD16)
ALIAS(cuMemsetD32_v2, cuMemsetD32)
