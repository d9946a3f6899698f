/* libcumetal: the calls declared in cumetal/host_runtime_cuda13.h (external memory and semaphores,
 * execution contexts, attributed and 3D batch copies, capability queries). Each passes its arguments
 * to the same-named function of cumetal.capi.bridge (capi/bridge_runtime_cuda13.py). */
#include "cuda_runtime_api.h"

#include "cm_core.h"

#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)
#define K(x) ((unsigned long long)(x))

/* ---- external memory and semaphores */
CM_EXPORT cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *extMem_out,
                                               const struct cudaExternalMemoryHandleDesc *memHandleDesc) {
    CALL("cudaImportExternalMemory", "(KK)", CM_P(extMem_out), CM_P(memHandleDesc));
}
CM_EXPORT cudaError_t cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem,
                                                        const struct cudaExternalMemoryBufferDesc *bufferDesc) {
    CALL("cudaExternalMemoryGetMappedBuffer", "(KKK)", CM_P(devPtr), CM_P(extMem), CM_P(bufferDesc));
}
CM_EXPORT cudaError_t cudaExternalMemoryGetMappedMipmappedArray(
    cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem, const struct cudaExternalMemoryMipmappedArrayDesc *desc) {
    CALL("cudaExternalMemoryGetMappedMipmappedArray", "(KKK)", CM_P(mipmap), CM_P(extMem), CM_P(desc));
}
CM_EXPORT cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem) {
    CALL("cudaDestroyExternalMemory", "(K)", CM_P(extMem));
}
CM_EXPORT cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t *extSem_out,
                                                  const struct cudaExternalSemaphoreHandleDesc *semHandleDesc) {
    CALL("cudaImportExternalSemaphore", "(KK)", CM_P(extSem_out), CM_P(semHandleDesc));
}
CM_EXPORT cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                                        const struct cudaExternalSemaphoreSignalParams *paramsArray,
                                                        unsigned int numExtSems, cudaStream_t stream) {
    CALL("cudaSignalExternalSemaphoresAsync", "(KKIK)", CM_P(extSemArray), CM_P(paramsArray), numExtSems,
         CM_P(stream));
}
CM_EXPORT cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                                      const struct cudaExternalSemaphoreWaitParams *paramsArray,
                                                      unsigned int numExtSems, cudaStream_t stream) {
    CALL("cudaWaitExternalSemaphoresAsync", "(KKIK)", CM_P(extSemArray), CM_P(paramsArray), numExtSems, CM_P(stream));
}
CM_EXPORT cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem) {
    CALL("cudaDestroyExternalSemaphore", "(K)", CM_P(extSem));
}
CM_EXPORT cudaError_t cudaGraphAddExternalSemaphoresSignalNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaExternalSemaphoreSignalNodeParams *nodeParams) {
    CALL("cudaGraphAddExternalSemaphoresSignalNode", "(KKKKK)", CM_P(pGraphNode), CM_P(graph), CM_P(pDependencies),
         K(numDependencies), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphAddExternalSemaphoresWaitNode(
    cudaGraphNode_t *pGraphNode, cudaGraph_t graph, const cudaGraphNode_t *pDependencies, size_t numDependencies,
    const struct cudaExternalSemaphoreWaitNodeParams *nodeParams) {
    CALL("cudaGraphAddExternalSemaphoresWaitNode", "(KKKKK)", CM_P(pGraphNode), CM_P(graph), CM_P(pDependencies),
         K(numDependencies), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphExternalSemaphoresSignalNodeSetParams(
    cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams) {
    CALL("cudaGraphExternalSemaphoresSignalNodeSetParams", "(KK)", CM_P(hNode), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphExternalSemaphoresWaitNodeSetParams(
    cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams) {
    CALL("cudaGraphExternalSemaphoresWaitNodeSetParams", "(KK)", CM_P(hNode), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphExecExternalSemaphoresSignalNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams) {
    CALL("cudaGraphExecExternalSemaphoresSignalNodeSetParams", "(KKK)", CM_P(hGraphExec), CM_P(hNode),
         CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphExecExternalSemaphoresWaitNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams) {
    CALL("cudaGraphExecExternalSemaphoresWaitNodeSetParams", "(KKK)", CM_P(hGraphExec), CM_P(hNode), CM_P(nodeParams));
}

/* ---- device resources, green contexts, execution contexts */
CM_EXPORT cudaError_t cudaDeviceGetDevResource(int device, cudaDevResource *resource, enum cudaDevResourceType type) {
    CALL("cudaDeviceGetDevResource", "(iKi)", device, CM_P(resource), (int)type);
}
CM_EXPORT cudaError_t cudaDevSmResourceSplitByCount(cudaDevResource *result, unsigned int *nbGroups,
                                                    const cudaDevResource *input, cudaDevResource *remaining,
                                                    unsigned int flags, unsigned int minCount) {
    CALL("cudaDevSmResourceSplitByCount", "(KKKKII)", CM_P(result), CM_P(nbGroups), CM_P(input), CM_P(remaining),
         flags, minCount);
}
CM_EXPORT cudaError_t cudaDevSmResourceSplit(cudaDevResource *result, unsigned int nbGroups,
                                             const cudaDevResource *input, cudaDevResource *remainder,
                                             unsigned int flags, cudaDevSmResourceGroupParams *groupParams) {
    CALL("cudaDevSmResourceSplit", "(KIKKIK)", CM_P(result), nbGroups, CM_P(input), CM_P(remainder), flags,
         CM_P(groupParams));
}
CM_EXPORT cudaError_t cudaDevResourceGenerateDesc(cudaDevResourceDesc_t *phDesc, cudaDevResource *resources,
                                                  unsigned int nbResources) {
    CALL("cudaDevResourceGenerateDesc", "(KKI)", CM_P(phDesc), CM_P(resources), nbResources);
}
CM_EXPORT cudaError_t cudaGreenCtxCreate(cudaExecutionContext_t *phCtx, cudaDevResourceDesc_t desc, int device,
                                         unsigned int flags) {
    CALL("cudaGreenCtxCreate", "(KKiI)", CM_P(phCtx), CM_P(desc), device, flags);
}
CM_EXPORT cudaError_t cudaDeviceGetExecutionCtx(cudaExecutionContext_t *ctx, int device) {
    CALL("cudaDeviceGetExecutionCtx", "(Ki)", CM_P(ctx), device);
}
CM_EXPORT cudaError_t cudaExecutionCtxDestroy(cudaExecutionContext_t ctx) {
    CALL("cudaExecutionCtxDestroy", "(K)", CM_P(ctx));
}
CM_EXPORT cudaError_t cudaExecutionCtxGetDevResource(cudaExecutionContext_t ctx, cudaDevResource *resource,
                                                     enum cudaDevResourceType type) {
    CALL("cudaExecutionCtxGetDevResource", "(KKi)", CM_P(ctx), CM_P(resource), (int)type);
}
CM_EXPORT cudaError_t cudaExecutionCtxGetDevice(int *device, cudaExecutionContext_t ctx) {
    CALL("cudaExecutionCtxGetDevice", "(KK)", CM_P(device), CM_P(ctx));
}
CM_EXPORT cudaError_t cudaExecutionCtxGetId(cudaExecutionContext_t ctx, unsigned long long *ctxId) {
    CALL("cudaExecutionCtxGetId", "(KK)", CM_P(ctx), CM_P(ctxId));
}
CM_EXPORT cudaError_t cudaExecutionCtxRecordEvent(cudaExecutionContext_t ctx, cudaEvent_t event) {
    CALL("cudaExecutionCtxRecordEvent", "(KK)", CM_P(ctx), CM_P(event));
}
CM_EXPORT cudaError_t cudaExecutionCtxWaitEvent(cudaExecutionContext_t ctx, cudaEvent_t event) {
    CALL("cudaExecutionCtxWaitEvent", "(KK)", CM_P(ctx), CM_P(event));
}
CM_EXPORT cudaError_t cudaExecutionCtxStreamCreate(cudaStream_t *phStream, cudaExecutionContext_t ctx,
                                                   unsigned int flags, int priority) {
    CALL("cudaExecutionCtxStreamCreate", "(KKIi)", CM_P(phStream), CM_P(ctx), flags, priority);
}
CM_EXPORT cudaError_t cudaExecutionCtxSynchronize(cudaExecutionContext_t ctx) {
    CALL("cudaExecutionCtxSynchronize", "(K)", CM_P(ctx));
}
CM_EXPORT cudaError_t cudaStreamGetDevResource(cudaStream_t hStream, cudaDevResource *resource,
                                               enum cudaDevResourceType type) {
    CALL("cudaStreamGetDevResource", "(KKi)", CM_P(hStream), CM_P(resource), (int)type);
}

/* ---- copies */
CM_EXPORT cudaError_t cudaMemcpyWithAttributesAsync(void *dst, const void *src, size_t size,
                                                    struct cudaMemcpyAttributes *attr, cudaStream_t stream) {
    CALL("cudaMemcpyWithAttributesAsync", "(KKKKK)", CM_P(dst), CM_P(src), K(size), CM_P(attr), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList,
                                             unsigned long long flags, cudaStream_t stream) {
    CALL("cudaMemcpy3DBatchAsync", "(KKKK)", K(numOps), CM_P(opList), K(flags), CM_P(stream));
}
CM_EXPORT cudaError_t cudaMemcpy3DWithAttributesAsync(struct cudaMemcpy3DBatchOp *op, unsigned long long flags,
                                                      cudaStream_t stream) {
    CALL("cudaMemcpy3DWithAttributesAsync", "(KKK)", CM_P(op), K(flags), CM_P(stream));
}

/* ---- capability queries */
CM_EXPORT cudaError_t cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities,
                                                          const enum cudaAtomicOperation *operations,
                                                          unsigned int count, int device) {
    CALL("cudaDeviceGetHostAtomicCapabilities", "(KKIi)", CM_P(capabilities), CM_P(operations), count, device);
}
CM_EXPORT cudaError_t cudaDeviceGetP2PAtomicCapabilities(unsigned int *capabilities,
                                                         const enum cudaAtomicOperation *operations,
                                                         unsigned int count, int srcDevice, int dstDevice) {
    CALL("cudaDeviceGetP2PAtomicCapabilities", "(KKIii)", CM_P(capabilities), CM_P(operations), count, srcDevice,
         dstDevice);
}
CM_EXPORT cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(enum cudaFlushGPUDirectRDMAWritesTarget target,
                                                         enum cudaFlushGPUDirectRDMAWritesScope scope) {
    CALL("cudaDeviceFlushGPUDirectRDMAWrites", "(ii)", (int)target, (int)scope);
}

/* ---- queries answered from what CuMetal's devices are */
CM_EXPORT cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray, unsigned int planeIdx) {
    CALL("cudaArrayGetPlane", "(KKI)", CM_P(pPlaneArray), CM_P(hArray), planeIdx);
}
CM_EXPORT cudaError_t cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements,
                                                     cudaArray_t array, int device) {
    CALL("cudaArrayGetMemoryRequirements", "(KKi)", CM_P(memoryRequirements), CM_P(array), device);
}
CM_EXPORT cudaError_t cudaMipmappedArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements,
                                                              cudaMipmappedArray_t mipmap, int device) {
    CALL("cudaMipmappedArrayGetMemoryRequirements", "(KKi)", CM_P(memoryRequirements), CM_P(mipmap), device);
}
CM_EXPORT cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
                                                   cudaArray_t array) {
    CALL("cudaArrayGetSparseProperties", "(KK)", CM_P(sparseProperties), CM_P(array));
}
CM_EXPORT cudaError_t cudaMipmappedArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
                                                            cudaMipmappedArray_t mipmap) {
    CALL("cudaMipmappedArrayGetSparseProperties", "(KK)", CM_P(sparseProperties), CM_P(mipmap));
}
CM_EXPORT cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                           cudaTextureObject_t texObject) {
    CALL("cudaGetTextureObjectResourceViewDesc", "(KK)", CM_P(pResViewDesc), K(texObject));
}
CM_EXPORT cudaError_t cudaDeviceRegisterAsyncNotification(int device, cudaAsyncCallback callbackFunc, void *userData,
                                                          cudaAsyncCallbackHandle_t *callback) {
    CALL("cudaDeviceRegisterAsyncNotification", "(iKKK)", device, CM_P(callbackFunc), CM_P(userData), CM_P(callback));
}
CM_EXPORT cudaError_t cudaDeviceUnregisterAsyncNotification(int device, cudaAsyncCallbackHandle_t callback) {
    CALL("cudaDeviceUnregisterAsyncNotification", "(iK)", device, CM_P(callback));
}
CM_EXPORT cudaError_t cudaDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, int device, int flags) {
    CALL("cudaDeviceGetNvSciSyncAttributes", "(Kii)", CM_P(nvSciSyncAttrList), device, flags);
}
CM_EXPORT cudaError_t cudaGetExportTable(const void **ppExportTable, const cudaUUID_t *pExportTableId) {
    CALL("cudaGetExportTable", "(KK)", CM_P(ppExportTable), CM_P(pExportTableId));
}
CM_EXPORT cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol) {
    CALL("cudaLibraryGetUnifiedFunction", "(KKK)", CM_P(fptr), CM_P(library), CM_P(symbol));
}

/* ---- recapture, memory location summaries */
CM_EXPORT cudaError_t cudaStreamBeginRecaptureToGraph(cudaStream_t stream, enum cudaStreamCaptureMode mode,
                                                      cudaGraph_t graph,
                                                      struct cudaGraphRecaptureCallbackData *callbackData) {
    CALL("cudaStreamBeginRecaptureToGraph", "(KiKK)", CM_P(stream), (int)mode, CM_P(graph), CM_P(callbackData));
}
CM_EXPORT cudaError_t cudaMemGetLocationInfo(void *devPtr, size_t size, size_t summaryGranularity,
                                             size_t samplingGranularity, struct cudaMemLocation *location_out) {
    CALL("cudaMemGetLocationInfo", "(KKKKK)", CM_P(devPtr), K(size), K(summaryGranularity), K(samplingGranularity),
         CM_P(location_out));
}
CM_EXPORT cudaError_t cudaGraphExternalSemaphoresSignalNodeGetParams(
    cudaGraphNode_t hNode, struct cudaExternalSemaphoreSignalNodeParams *params_out) {
    CALL("cudaGraphExternalSemaphoresSignalNodeGetParams", "(KK)", CM_P(hNode), CM_P(params_out));
}
CM_EXPORT cudaError_t cudaGraphExternalSemaphoresWaitNodeGetParams(cudaGraphNode_t hNode,
                                                                   struct cudaExternalSemaphoreWaitNodeParams *params_out) {
    CALL("cudaGraphExternalSemaphoresWaitNodeGetParams", "(KK)", CM_P(hNode), CM_P(params_out));
}
