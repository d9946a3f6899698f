/* libcumetal: Driver API calls beyond cm_driver.c's core (cumetal/host_driver_more.h): peers, pools,
 * stream queries and callbacks, kernels and libraries, page-locking, virtual memory management,
 * profiler control. Arguments go to cumetal.capi.bridge's drv_<name> (capi/bridge_driver_more.py). */
#include "cuda.h"

#include "cm_core.h"

#include "cm_driver_calls.h"
#include "cm_proc_address.h"

CM_EXPORT CUresult cuDeviceCanAccessPeer(int *canAccessPeer, CUdevice dev, CUdevice peerDev) {
    DRV("cuDeviceCanAccessPeer", "(Kii)", CM_P(canAccessPeer), dev, peerDev);
}
CM_EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *symbolStatus) {
    /* Python checks the arguments and decides the status; the pointer is this library's C function */
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    CUresult err = (CUresult)cm_call("drv_cuGetProcAddress", "(KKiKK)", CM_P(symbol), CM_P(pfn), cudaVersion,
                                     K(flags), CM_P(&status));
    if (err == CUDA_SUCCESS) {
        int found = (int)status;
        cm_resolve_proc(symbol, cudaVersion, pfn, &found);
        status = (CUdriverProcAddressQueryResult)found;
    }
    if (symbolStatus && err == CUDA_SUCCESS)
        *symbolStatus = status;
    return err;
}
ALIAS(cuGetProcAddress_v2, cuGetProcAddress)
CM_EXPORT CUresult cuCtxEnablePeerAccess(CUcontext peerContext, unsigned int Flags) {
    DRV("cuCtxEnablePeerAccess", "(KI)", CM_P(peerContext), Flags);
}
CM_EXPORT CUresult cuCtxDisablePeerAccess(CUcontext peerContext) {
    DRV("cuCtxDisablePeerAccess", "(K)", CM_P(peerContext));
}
CM_EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version) {
    DRV("cuCtxGetApiVersion", "(KK)", CM_P(ctx), CM_P(version));
}
CM_EXPORT CUresult cuProfilerStart(void) { DRV0("cuProfilerStart"); }
CM_EXPORT CUresult cuProfilerStop(void) { DRV0("cuProfilerStop"); }

/* ---- pools */
CM_EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev) {
    DRV("cuDeviceGetDefaultMemPool", "(Ki)", CM_P(pool_out), dev);
}
CM_EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool, CUstream hStream) {
    DRV("cuMemAllocFromPoolAsync", "(KKKK)", CM_P(dptr), K(bytesize), CM_P(pool), CM_P(hStream));
}
CM_EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream) {
    DRV("cuMemFreeAsync", "(KK)", K(dptr), CM_P(hStream));
}
CM_EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool) { DRV("cuMemPoolDestroy", "(K)", CM_P(pool)); }
CM_EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep) {
    DRV("cuMemPoolTrimTo", "(KK)", CM_P(pool), K(minBytesToKeep));
}

/* ---- streams */
CM_EXPORT CUresult cuStreamAddCallback(CUstream hStream, CUstreamCallback callback, void *userData,
                                       unsigned int flags) {
    DRV("cuStreamAddCallback", "(KKKI)", CM_P(hStream), CM_P(callback), CM_P(userData), flags);
}
CM_EXPORT CUresult cuLaunchHostFunc(CUstream hStream, CUhostFn fn, void *userData) {
    DRV("cuLaunchHostFunc", "(KKK)", CM_P(hStream), CM_P(fn), CM_P(userData));
}
CM_EXPORT CUresult cuStreamCreateWithPriority(CUstream *phStream, unsigned int flags, int priority) {
    DRV("cuStreamCreateWithPriority", "(KIi)", CM_P(phStream), flags, priority);
}
CM_EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx) {
    DRV("cuStreamGetCtx", "(KK)", CM_P(hStream), CM_P(pctx));
}
CM_EXPORT CUresult cuStreamGetDevice(CUstream hStream, CUdevice *device) {
    DRV("cuStreamGetDevice", "(KK)", CM_P(hStream), CM_P(device));
}
CM_EXPORT CUresult cuStreamGetId(CUstream hStream, unsigned long long *streamId) {
    DRV("cuStreamGetId", "(KK)", CM_P(hStream), CM_P(streamId));
}
CM_EXPORT CUresult cuStreamGetPriority(CUstream hStream, int *priority) {
    DRV("cuStreamGetPriority", "(KK)", CM_P(hStream), CM_P(priority));
}

/* ---- kernels and libraries */
CM_EXPORT CUresult cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel) {
    DRV("cuKernelGetFunction", "(KK)", CM_P(pFunc), CM_P(kernel));
}
CM_EXPORT CUresult cuKernelGetLibrary(CUlibrary *pLib, CUkernel kernel) {
    DRV("cuKernelGetLibrary", "(KK)", CM_P(pLib), CM_P(kernel));
}
CM_EXPORT CUresult cuKernelGetAttribute(int *pi, CUfunction_attribute attrib, CUkernel kernel, CUdevice dev) {
    DRV("cuKernelGetAttribute", "(KiKi)", CM_P(pi), (int)attrib, CM_P(kernel), dev);
}
CM_EXPORT CUresult cuLibraryLoadData(CUlibrary *library, const void *code, CUjit_option *jitOptions,
                                     void **jitOptionsValues, unsigned int numJitOptions,
                                     CUlibraryOption *libraryOptions, void **libraryOptionValues,
                                     unsigned int numLibraryOptions) {
    DRV("cuLibraryLoadData", "(KKKKIKKI)", CM_P(library), CM_P(code), CM_P(jitOptions), CM_P(jitOptionsValues),
        numJitOptions, CM_P(libraryOptions), CM_P(libraryOptionValues), numLibraryOptions);
}
CM_EXPORT CUresult cuLibraryUnload(CUlibrary library) { DRV("cuLibraryUnload", "(K)", CM_P(library)); }
CM_EXPORT CUresult cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library, const char *name) {
    DRV("cuLibraryGetKernel", "(KKK)", CM_P(pKernel), CM_P(library), CM_P(name));
}
CM_EXPORT CUresult cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
    DRV("cuLibraryGetGlobal", "(KKKK)", CM_P(dptr), CM_P(bytes), CM_P(library), CM_P(name));
}
CM_EXPORT CUresult cuLibraryGetManaged(CUdeviceptr *dptr, size_t *bytes, CUlibrary library, const char *name) {
    DRV("cuLibraryGetManaged", "(KKKK)", CM_P(dptr), CM_P(bytes), CM_P(library), CM_P(name));
}

/* ---- page-locked host memory */
CM_EXPORT CUresult cuMemHostRegister(void *p, size_t bytesize, unsigned int Flags) {
    DRV("cuMemHostRegister", "(KKI)", CM_P(p), K(bytesize), Flags);
}
ALIAS(cuMemHostRegister_v2, cuMemHostRegister)
CM_EXPORT CUresult cuMemHostUnregister(void *p) { DRV("cuMemHostUnregister", "(K)", CM_P(p)); }

/* ---- virtual memory management */
CM_EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                                 CUmemAllocationGranularity_flags option) {
    DRV("cuMemGetAllocationGranularity", "(KKi)", CM_P(granularity), CM_P(prop), (int)option);
}
CM_EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size, const CUmemAllocationProp *prop,
                               unsigned long long flags) {
    DRV("cuMemCreate", "(KKKK)", CM_P(handle), K(size), CM_P(prop), K(flags));
}
CM_EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle) { DRV("cuMemRelease", "(K)", K(handle)); }
CM_EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment, CUdeviceptr addr,
                                       unsigned long long flags) {
    DRV("cuMemAddressReserve", "(KKKKK)", CM_P(ptr), K(size), K(alignment), K(addr), K(flags));
}
CM_EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size) {
    DRV("cuMemAddressFree", "(KK)", K(ptr), K(size));
}
CM_EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset, CUmemGenericAllocationHandle handle,
                            unsigned long long flags) {
    DRV("cuMemMap", "(KKKKK)", K(ptr), K(size), K(offset), K(handle), K(flags));
}
CM_EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size) { DRV("cuMemUnmap", "(KK)", K(ptr), K(size)); }
CM_EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc, size_t count) {
    DRV("cuMemSetAccess", "(KKKK)", K(ptr), K(size), CM_P(desc), K(count));
}
CM_EXPORT CUresult cuMemExportToShareableHandle(void *shareableHandle, CUmemGenericAllocationHandle handle,
                                                CUmemAllocationHandleType handleType, unsigned long long flags) {
    DRV("cuMemExportToShareableHandle", "(KKiK)", CM_P(shareableHandle), K(handle), (int)handleType, K(flags));
}
CM_EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                                  CUmemAllocationHandleType shHandleType) {
    DRV("cuMemImportFromShareableHandle", "(KKi)", CM_P(handle), CM_P(osHandle), (int)shHandleType);
}
CM_EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                          CUmemGenericAllocationHandle handle) {
    DRV("cuMemGetAllocationPropertiesFromHandle", "(KK)", CM_P(prop), K(handle));
}

/* ---- CUDA arrays, 2D copies, texture and surface objects */
CM_EXPORT CUresult cuArrayCreate(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *pAllocateArray) {
    DRV("cuArrayCreate", "(KK)", CM_P(pHandle), CM_P(pAllocateArray));
}
ALIAS(cuArrayCreate_v2, cuArrayCreate)
CM_EXPORT CUresult cuArray3DCreate(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *pAllocateArray) {
    DRV("cuArray3DCreate", "(KK)", CM_P(pHandle), CM_P(pAllocateArray));
}
ALIAS(cuArray3DCreate_v2, cuArray3DCreate)
CM_EXPORT CUresult cuArrayGetDescriptor(CUDA_ARRAY_DESCRIPTOR *pArrayDescriptor, CUarray hArray) {
    DRV("cuArrayGetDescriptor", "(KK)", CM_P(pArrayDescriptor), CM_P(hArray));
}
ALIAS(cuArrayGetDescriptor_v2, cuArrayGetDescriptor)
CM_EXPORT CUresult cuArrayDestroy(CUarray hArray) { DRV("cuArrayDestroy", "(K)", CM_P(hArray)); }
CM_EXPORT CUresult cuMemcpy2D(const CUDA_MEMCPY2D *pCopy) { DRV("cuMemcpy2D", "(KKi)", CM_P(pCopy), 0ULL, 0); }
ALIAS(cuMemcpy2D_v2, cuMemcpy2D)
CM_EXPORT CUresult cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *pCopy) {
    DRV("cuMemcpy2D", "(KKi)", CM_P(pCopy), 0ULL, 0);
}
ALIAS(cuMemcpy2DUnaligned_v2, cuMemcpy2DUnaligned)
CM_EXPORT CUresult cuMemcpy2DAsync(const CUDA_MEMCPY2D *pCopy, CUstream hStream) {
    DRV("cuMemcpy2D", "(KKi)", CM_P(pCopy), CM_P(hStream), 1);
}
ALIAS(cuMemcpy2DAsync_v2, cuMemcpy2DAsync)
CM_EXPORT CUresult cuMemcpyHtoA(CUarray dstArray, size_t dstOffset, const void *srcHost, size_t ByteCount) {
    DRV("cuMemcpyHtoA", "(KKKK)", CM_P(dstArray), K(dstOffset), CM_P(srcHost), K(ByteCount));
}
ALIAS(cuMemcpyHtoA_v2, cuMemcpyHtoA)
CM_EXPORT CUresult cuMemcpyAtoH(void *dstHost, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
    DRV("cuMemcpyAtoH", "(KKKK)", CM_P(dstHost), CM_P(srcArray), K(srcOffset), K(ByteCount));
}
ALIAS(cuMemcpyAtoH_v2, cuMemcpyAtoH)
CM_EXPORT CUresult cuMemcpyDtoA(CUarray dstArray, size_t dstOffset, CUdeviceptr srcDevice, size_t ByteCount) {
    DRV("cuMemcpyDtoA", "(KKKK)", CM_P(dstArray), K(dstOffset), K(srcDevice), K(ByteCount));
}
ALIAS(cuMemcpyDtoA_v2, cuMemcpyDtoA)
CM_EXPORT CUresult cuMemcpyAtoD(CUdeviceptr dstDevice, CUarray srcArray, size_t srcOffset, size_t ByteCount) {
    DRV("cuMemcpyAtoD", "(KKKK)", K(dstDevice), CM_P(srcArray), K(srcOffset), K(ByteCount));
}
ALIAS(cuMemcpyAtoD_v2, cuMemcpyAtoD)
CM_EXPORT CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                     const CUDA_TEXTURE_DESC *pTexDesc, const CUDA_RESOURCE_VIEW_DESC *pResViewDesc) {
    DRV("cuTexObjectCreate", "(KKKK)", CM_P(pTexObject), CM_P(pResDesc), CM_P(pTexDesc), CM_P(pResViewDesc));
}
CM_EXPORT CUresult cuTexObjectDestroy(CUtexObject texObject) { DRV("cuTexObjectDestroy", "(K)", K(texObject)); }
CM_EXPORT CUresult cuSurfObjectCreate(CUsurfObject *pSurfObject, const CUDA_RESOURCE_DESC *pResDesc) {
    DRV("cuSurfObjectCreate", "(KK)", CM_P(pSurfObject), CM_P(pResDesc));
}
CM_EXPORT CUresult cuSurfObjectDestroy(CUsurfObject surfObject) { DRV("cuSurfObjectDestroy", "(K)", K(surfObject)); }

/* ---- pointer attributes (the value's C type depends on the attribute: the bridge writes it) */
CM_EXPORT CUresult cuPointerGetAttribute(void *data, CUpointer_attribute attribute, CUdeviceptr ptr) {
    DRV("cuPointerGetAttribute", "(KiK)", CM_P(data), (int)attribute, K(ptr));
}
CM_EXPORT CUresult cuPointerGetAttributes(unsigned int numAttributes, CUpointer_attribute *attributes, void **data,
                                          CUdeviceptr ptr) {
    DRV("cuPointerGetAttributes", "(IKKK)", numAttributes, CM_P(attributes), CM_P(data), K(ptr));
}
