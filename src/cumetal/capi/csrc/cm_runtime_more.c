/* libcumetal: Runtime API calls declared in cumetal/host_runtime_misc.h beyond cm_runtime_misc.c's
 * (interprocess communication, user objects, ...). Each passes its arguments to the same-named
 * function of cumetal.capi.bridge (implemented in capi/bridge_runtime_more.py). Handles passed by
 * value (cudaIpcMemHandle_t is 64 bytes) are passed as the address of the parameter. */
#include "cuda_runtime_api.h"

#include "cm_core.h"
#include "cm_proc_address.h"

#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)

/* ---- interprocess communication */
CM_EXPORT cudaError_t cudaIpcGetMemHandle(cudaIpcMemHandle_t *handle, void *devPtr) {
    CALL("cudaIpcGetMemHandle", "(KK)", CM_P(handle), CM_P(devPtr));
}
CM_EXPORT cudaError_t cudaIpcOpenMemHandle(void **devPtr, cudaIpcMemHandle_t handle, unsigned int flags) {
    CALL("cudaIpcOpenMemHandle", "(KKI)", CM_P(devPtr), CM_P(&handle), flags);
}
CM_EXPORT cudaError_t cudaIpcCloseMemHandle(void *devPtr) { CALL("cudaIpcCloseMemHandle", "(K)", CM_P(devPtr)); }
CM_EXPORT cudaError_t cudaIpcGetEventHandle(cudaIpcEventHandle_t *handle, cudaEvent_t event) {
    CALL("cudaIpcGetEventHandle", "(KK)", CM_P(handle), CM_P(event));
}
CM_EXPORT cudaError_t cudaIpcOpenEventHandle(cudaEvent_t *event, cudaIpcEventHandle_t handle) {
    CALL("cudaIpcOpenEventHandle", "(KK)", CM_P(event), CM_P(&handle));
}

#define K(x) ((unsigned long long)(x))
#define LOAD_OPTS CM_P(jitOptions), CM_P(jitOptionsValues), numJitOptions, CM_P(libraryOptions), \
                  CM_P(libraryOptionValues), numLibraryOptions

/* ---- libraries */
CM_EXPORT cudaError_t cudaLibraryLoadData(cudaLibrary_t *library, const void *code, enum cudaJitOption *jitOptions,
                                          void **jitOptionsValues, unsigned int numJitOptions,
                                          enum cudaLibraryOption *libraryOptions, void **libraryOptionValues,
                                          unsigned int numLibraryOptions) {
    CALL("cudaLibraryLoadData", "(KKKKIKKI)", CM_P(library), CM_P(code), LOAD_OPTS);
}
CM_EXPORT cudaError_t cudaLibraryLoadFromFile(cudaLibrary_t *library, const char *fileName,
                                              enum cudaJitOption *jitOptions, void **jitOptionsValues,
                                              unsigned int numJitOptions, enum cudaLibraryOption *libraryOptions,
                                              void **libraryOptionValues, unsigned int numLibraryOptions) {
    CALL("cudaLibraryLoadFromFile", "(KKKKIKKI)", CM_P(library), CM_P(fileName), LOAD_OPTS);
}
CM_EXPORT cudaError_t cudaLibraryUnload(cudaLibrary_t library) { CALL("cudaLibraryUnload", "(K)", CM_P(library)); }
CM_EXPORT cudaError_t cudaLibraryGetKernel(cudaKernel_t *pKernel, cudaLibrary_t library, const char *name) {
    CALL("cudaLibraryGetKernel", "(KKK)", CM_P(pKernel), CM_P(library), CM_P(name));
}
CM_EXPORT cudaError_t cudaLibraryGetGlobal(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name) {
    CALL("cudaLibraryGetGlobal", "(KKKK)", CM_P(dptr), CM_P(bytes), CM_P(library), CM_P(name));
}
CM_EXPORT cudaError_t cudaLibraryGetManaged(void **dptr, size_t *bytes, cudaLibrary_t library, const char *name) {
    CALL("cudaLibraryGetManaged", "(KKKK)", CM_P(dptr), CM_P(bytes), CM_P(library), CM_P(name));
}
CM_EXPORT cudaError_t cudaLibraryGetKernelCount(unsigned int *count, cudaLibrary_t lib) {
    CALL("cudaLibraryGetKernelCount", "(KK)", CM_P(count), CM_P(lib));
}
CM_EXPORT cudaError_t cudaLibraryEnumerateKernels(cudaKernel_t *kernels, unsigned int numKernels, cudaLibrary_t lib) {
    CALL("cudaLibraryEnumerateKernels", "(KIK)", CM_P(kernels), numKernels, CM_P(lib));
}

/* ---- driver entry points, host functions, texture limits, graph kernel nodes */
static cudaError_t driver_entry_point(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                      unsigned long long flags, enum cudaDriverEntryPointQueryResult *driverStatus) {
    /* Python checks the arguments and decides the status; the pointer is this library's C function */
    int status = 0;
    cudaError_t err = (cudaError_t)cm_call("cudaGetDriverEntryPointByVersion", "(KKIKK)", CM_P(symbol),
                                           CM_P(funcPtr), cudaVersion, K(flags), CM_P(&status));
    if (err == cudaSuccess)
        cm_resolve_proc(symbol, cudaVersion ? (int)cudaVersion : CM_PROC_CURRENT_VERSION, funcPtr, &status);
    if (driverStatus && err == cudaSuccess)
        *driverStatus = (enum cudaDriverEntryPointQueryResult)status;
    return err;
}
CM_EXPORT cudaError_t cudaGetDriverEntryPoint(const char *symbol, void **funcPtr, unsigned long long flags,
                                              enum cudaDriverEntryPointQueryResult *driverStatus) {
    return driver_entry_point(symbol, funcPtr, 0u, flags, driverStatus);
}
CM_EXPORT cudaError_t cudaGetDriverEntryPointByVersion(const char *symbol, void **funcPtr, unsigned int cudaVersion,
                                                       unsigned long long flags,
                                                       enum cudaDriverEntryPointQueryResult *driverStatus) {
    return driver_entry_point(symbol, funcPtr, cudaVersion, flags, driverStatus);
}
CM_EXPORT cudaError_t cudaLaunchHostFunc_v2(cudaStream_t stream, cudaHostFn_t fn, void *userData,
                                            unsigned int syncMode) {
    CALL("cudaLaunchHostFunc_v2", "(KKKI)", CM_P(stream), CM_P(fn), CM_P(userData), syncMode);
}
CM_EXPORT cudaError_t cudaDeviceGetTexture1DLinearMaxWidth(size_t *maxWidthInElements,
                                                           const struct cudaChannelFormatDesc *fmtDesc, int device) {
    CALL("cudaDeviceGetTexture1DLinearMaxWidth", "(KKi)", CM_P(maxWidthInElements), CM_P(fmtDesc), device);
}
CM_EXPORT cudaError_t cudaGraphKernelNodeGetParams(cudaGraphNode_t node, struct cudaKernelNodeParams *pNodeParams) {
    CALL("cudaGraphKernelNodeGetParams", "(KK)", CM_P(node), CM_P(pNodeParams));
}

/* ---- error log */
CM_EXPORT cudaError_t cudaLogsRegisterCallback(cudaLogsCallback_t callbackFunc, void *userData,
                                               cudaLogsCallbackHandle *callback_out) {
    CALL("cudaLogsRegisterCallback", "(KKK)", CM_P(callbackFunc), CM_P(userData), CM_P(callback_out));
}
CM_EXPORT cudaError_t cudaLogsUnregisterCallback(cudaLogsCallbackHandle callback) {
    CALL("cudaLogsUnregisterCallback", "(K)", CM_P(callback));
}
CM_EXPORT cudaError_t cudaLogsCurrent(cudaLogIterator *iterator_out, unsigned int flags) {
    CALL("cudaLogsCurrent", "(KI)", CM_P(iterator_out), flags);
}
CM_EXPORT cudaError_t cudaLogsDumpToFile(cudaLogIterator *iterator, const char *pathToFile, unsigned int flags) {
    CALL("cudaLogsDumpToFile", "(KKI)", CM_P(iterator), CM_P(pathToFile), flags);
}
CM_EXPORT cudaError_t cudaLogsDumpToMemory(cudaLogIterator *iterator, char *buffer, size_t *size, unsigned int flags) {
    CALL("cudaLogsDumpToMemory", "(KKKI)", CM_P(iterator), CM_P(buffer), CM_P(size), flags);
}

/* ---- batched memory operations */
CM_EXPORT cudaError_t cudaMemcpyBatchAsync(const void *const *dsts, const void *const *srcs, const size_t *sizes,
                                           size_t count, struct cudaMemcpyAttributes *attrs, size_t *attrsIdxs,
                                           size_t numAttrs, cudaStream_t stream) {
    CALL("cudaMemcpyBatchAsync", "(KKKKKKKK)", CM_P(dsts), CM_P(srcs), CM_P(sizes), K(count), CM_P(attrs),
         CM_P(attrsIdxs), K(numAttrs), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                struct cudaMemLocation *prefetchLocs, size_t *prefetchLocIdxs,
                                                size_t numPrefetchLocs, unsigned long long flags,
                                                cudaStream_t stream) {
    CALL("cudaMemPrefetchBatchAsync", "(KKKKKKKK)", CM_P(dptrs), CM_P(sizes), K(count), CM_P(prefetchLocs),
         CM_P(prefetchLocIdxs), K(numPrefetchLocs), K(flags), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemDiscardBatchAsync(void **dptrs, size_t *sizes, size_t count, unsigned long long flags,
                                               cudaStream_t stream) {
    CALL("cudaMemDiscardBatchAsync", "(KKKKK)", CM_P(dptrs), CM_P(sizes), K(count), K(flags), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemDiscardAndPrefetchBatchAsync(void **dptrs, size_t *sizes, size_t count,
                                                          struct cudaMemLocation *prefetchLocs,
                                                          size_t *prefetchLocIdxs, size_t numPrefetchLocs,
                                                          unsigned long long flags, cudaStream_t stream) {
    CALL("cudaMemDiscardAndPrefetchBatchAsync", "(KKKKKKKK)", CM_P(dptrs), CM_P(sizes), K(count), CM_P(prefetchLocs),
         CM_P(prefetchLocIdxs), K(numPrefetchLocs), K(flags), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemRangeGetAttributes(void **data, size_t *dataSizes, enum cudaMemRangeAttribute *attributes,
                                                size_t numAttributes, const void *devPtr, size_t count) {
    CALL("cudaMemRangeGetAttributes", "(KKKKKK)", CM_P(data), CM_P(dataSizes), CM_P(attributes), K(numAttributes),
         CM_P(devPtr), K(count));
}

/* ---- user objects, kernel node attributes, node tools ids */
CM_EXPORT cudaError_t cudaUserObjectCreate(cudaUserObject_t *object_out, void *ptr, cudaHostFn_t destroy,
                                           unsigned int initialRefcount, unsigned int flags) {
    CALL("cudaUserObjectCreate", "(KKKII)", CM_P(object_out), CM_P(ptr), CM_P(destroy), initialRefcount, flags);
}
CM_EXPORT cudaError_t cudaUserObjectRetain(cudaUserObject_t object, unsigned int count) {
    CALL("cudaUserObjectRetain", "(KI)", CM_P(object), count);
}
CM_EXPORT cudaError_t cudaUserObjectRelease(cudaUserObject_t object, unsigned int count) {
    CALL("cudaUserObjectRelease", "(KI)", CM_P(object), count);
}
CM_EXPORT cudaError_t cudaGraphRetainUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count,
                                                unsigned int flags) {
    CALL("cudaGraphRetainUserObject", "(KKII)", CM_P(graph), CM_P(object), count, flags);
}
CM_EXPORT cudaError_t cudaGraphReleaseUserObject(cudaGraph_t graph, cudaUserObject_t object, unsigned int count) {
    CALL("cudaGraphReleaseUserObject", "(KKI)", CM_P(graph), CM_P(object), count);
}
CM_EXPORT cudaError_t cudaGraphKernelNodeGetAttribute(cudaGraphNode_t hNode, enum cudaKernelNodeAttrID attr,
                                                      cudaKernelNodeAttrValue *value_out) {
    CALL("cudaGraphKernelNodeGetAttribute", "(KiK)", CM_P(hNode), (int)attr, CM_P(value_out));
}
CM_EXPORT cudaError_t cudaGraphKernelNodeSetAttribute(cudaGraphNode_t hNode, enum cudaKernelNodeAttrID attr,
                                                      const cudaKernelNodeAttrValue *value) {
    CALL("cudaGraphKernelNodeSetAttribute", "(KiK)", CM_P(hNode), (int)attr, CM_P(value));
}
CM_EXPORT cudaError_t cudaGraphKernelNodeCopyAttributes(cudaGraphNode_t hDst, cudaGraphNode_t hSrc) {
    CALL("cudaGraphKernelNodeCopyAttributes", "(KK)", CM_P(hDst), CM_P(hSrc));
}
CM_EXPORT cudaError_t cudaGraphNodeGetToolsId(cudaGraphNode_t hNode, unsigned long long *toolsNodeId) {
    CALL("cudaGraphNodeGetToolsId", "(KK)", CM_P(hNode), CM_P(toolsNodeId));
}
CM_EXPORT cudaError_t cudaMemPoolSetAccess(cudaMemPool_t memPool, const struct cudaMemAccessDesc *descList,
                                           size_t count) {
    CALL("cudaMemPoolSetAccess", "(KKK)", CM_P(memPool), CM_P(descList), K(count));
}

/* ---- memory pools shared between processes (bridge: the descriptor is an int written to *shareableHandle;
 * on import, the handle's value is the descriptor, as CUDA's (void *)(uintptr_t)fd) */
CM_EXPORT cudaError_t cudaMemPoolExportToShareableHandle(void *shareableHandle, cudaMemPool_t memPool,
                                                         enum cudaMemAllocationHandleType handleType,
                                                         unsigned int flags) {
    CALL("cudaMemPoolExportToShareableHandle", "(KKiI)", CM_P(shareableHandle), CM_P(memPool), (int)handleType, flags);
}
CM_EXPORT cudaError_t cudaMemPoolImportFromShareableHandle(cudaMemPool_t *memPool, void *shareableHandle,
                                                           enum cudaMemAllocationHandleType handleType,
                                                           unsigned int flags) {
    CALL("cudaMemPoolImportFromShareableHandle", "(KKiI)", CM_P(memPool), CM_P(shareableHandle), (int)handleType,
         flags);
}
CM_EXPORT cudaError_t cudaMemPoolExportPointer(struct cudaMemPoolPtrExportData *exportData, void *ptr) {
    CALL("cudaMemPoolExportPointer", "(KK)", CM_P(exportData), CM_P(ptr));
}
CM_EXPORT cudaError_t cudaMemPoolImportPointer(void **ptr, cudaMemPool_t memPool,
                                               struct cudaMemPoolPtrExportData *exportData) {
    CALL("cudaMemPoolImportPointer", "(KKK)", CM_P(ptr), CM_P(memPool), CM_P(exportData));
}
