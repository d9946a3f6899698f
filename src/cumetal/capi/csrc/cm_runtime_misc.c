/* libcumetal: the Runtime API calls of cumetal/host_runtime_misc.h (devices, functions, streams,
 * memory pools and ranges, peer copies, graph ids), each passed to the same-named function of
 * cumetal.capi.bridge (implemented in capi/bridge_runtime_misc.py). */
#include "cuda_runtime_api.h"

#include "cm_core.h"

#define K(x) ((unsigned long long)(x))
#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)
#define CALL0(name) return (cudaError_t)cm_call(name, "()")

/* ---- devices, contexts, functions, streams */
CM_EXPORT cudaError_t cudaCtxResetPersistingL2Cache(void) { CALL0("cudaCtxResetPersistingL2Cache"); }
CM_EXPORT cudaError_t cudaDeviceGetP2PAttribute(int *value, enum cudaDeviceP2PAttr attr, int srcDevice, int dstDevice) {
    CALL("cudaDeviceGetP2PAttribute", "(Kiii)", CM_P(value), (int)attr, srcDevice, dstDevice);
}
CM_EXPORT cudaError_t cudaDeviceGetSharedMemConfig(enum cudaSharedMemConfig *pConfig) {
    CALL("cudaDeviceGetSharedMemConfig", "(K)", CM_P(pConfig));
}
CM_EXPORT cudaError_t cudaDeviceSetSharedMemConfig(enum cudaSharedMemConfig config) {
    CALL("cudaDeviceSetSharedMemConfig", "(i)", (int)config);
}
CM_EXPORT cudaError_t cudaFuncSetSharedMemConfig(const void *func, enum cudaSharedMemConfig config) {
    CALL("cudaFuncSetSharedMemConfig", "(Ki)", CM_P(func), (int)config);
}
CM_EXPORT cudaError_t cudaFuncGetParamCount(const void *func, size_t *paramCount) {
    CALL("cudaFuncGetParamCount", "(KK)", CM_P(func), CM_P(paramCount));
}
CM_EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr) {
    CALL("cudaGetFuncBySymbol", "(KK)", CM_P(functionPtr), CM_P(symbolPtr));
}
CM_EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr, int value,
                                                      int device) {
    CALL("cudaKernelSetAttributeForDevice", "(Kiii)", CM_P(kernel), (int)attr, value, device);
}
CM_EXPORT cudaError_t cudaStreamGetId(cudaStream_t hStream, unsigned long long *streamId) {
    CALL("cudaStreamGetId", "(KK)", CM_P(hStream), CM_P(streamId));
}
CM_EXPORT cudaError_t cudaThreadExchangeStreamCaptureMode(enum cudaStreamCaptureMode *mode) {
    CALL("cudaThreadExchangeStreamCaptureMode", "(K)", CM_P(mode));
}

/* ---- memory pools, ranges, peer copies */
CM_EXPORT cudaError_t cudaMemPoolCreate(cudaMemPool_t *memPool, const struct cudaMemPoolProps *poolProps) {
    CALL("cudaMemPoolCreate", "(KK)", CM_P(memPool), CM_P(poolProps));
}
CM_EXPORT cudaError_t cudaMemPoolDestroy(cudaMemPool_t memPool) { CALL("cudaMemPoolDestroy", "(K)", CM_P(memPool)); }
CM_EXPORT cudaError_t cudaMemPoolGetAccess(enum cudaMemAccessFlags *flags, cudaMemPool_t memPool,
                                           struct cudaMemLocation *location) {
    CALL("cudaMemPoolGetAccess", "(KKK)", CM_P(flags), CM_P(memPool), CM_P(location));
}
CM_EXPORT cudaError_t cudaMemGetDefaultMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                               enum cudaMemAllocationType type) {
    CALL("cudaMemGetDefaultMemPool", "(KKi)", CM_P(memPool), CM_P(location), (int)type);
}
CM_EXPORT cudaError_t cudaMemGetMemPool(cudaMemPool_t *memPool, struct cudaMemLocation *location,
                                        enum cudaMemAllocationType type) {
    CALL("cudaMemGetMemPool", "(KKi)", CM_P(memPool), CM_P(location), (int)type);
}
CM_EXPORT cudaError_t cudaMemSetMemPool(struct cudaMemLocation *location, enum cudaMemAllocationType type,
                                        cudaMemPool_t memPool) {
    CALL("cudaMemSetMemPool", "(KiK)", CM_P(location), (int)type, CM_P(memPool));
}
CM_EXPORT cudaError_t cudaMemRangeGetAttribute(void *data, size_t dataSize, enum cudaMemRangeAttribute attribute,
                                               const void *devPtr, size_t count) {
    CALL("cudaMemRangeGetAttribute", "(KKiKK)", CM_P(data), K(dataSize), (int)attribute, CM_P(devPtr), K(count));
}
CM_EXPORT cudaError_t cudaMemcpy3DPeer(const struct cudaMemcpy3DPeerParms *p) {
    CALL("cudaMemcpy3DPeer", "(KK)", CM_P(p), K(0));
}
CM_EXPORT cudaError_t cudaMemcpy3DPeerAsync(const struct cudaMemcpy3DPeerParms *p, cudaStream_t stream) {
    CALL("cudaMemcpy3DPeerAsync", "(KK)", CM_P(p), CM_P(stream));
}

/* ---- graph and node ids */
CM_EXPORT cudaError_t cudaGraphGetId(cudaGraph_t hGraph, unsigned int *graphID) {
    CALL("cudaGraphGetId", "(KK)", CM_P(hGraph), CM_P(graphID));
}
CM_EXPORT cudaError_t cudaGraphExecGetId(cudaGraphExec_t hGraphExec, unsigned int *graphID) {
    CALL("cudaGraphExecGetId", "(KK)", CM_P(hGraphExec), CM_P(graphID));
}
CM_EXPORT cudaError_t cudaGraphNodeGetLocalId(cudaGraphNode_t hNode, unsigned int *nodeId) {
    CALL("cudaGraphNodeGetLocalId", "(KK)", CM_P(hNode), CM_P(nodeId));
}
CM_EXPORT cudaError_t cudaGraphNodeGetContainingGraph(cudaGraphNode_t hNode, cudaGraph_t *phGraph) {
    CALL("cudaGraphNodeGetContainingGraph", "(KK)", CM_P(hNode), CM_P(phGraph));
}
