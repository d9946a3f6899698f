/* libcumetal: the Runtime API's graph and stream-capture calls (cumetal/host_graph_api.h). Like
 * cm_runtime.c, each passes its arguments to the same-named function of cumetal.capi.bridge
 * (implemented in capi/bridge_graphs.py): pointers and sizes as "K", ints as "i"/"I". */
#include "cuda_runtime_api.h"

#include "cm_core.h"

#define K(x) ((unsigned long long)(x))
#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)
#define ADD_NODE_ARGS CM_P(pGraphNode), CM_P(graph), CM_P(pDependencies), K(numDependencies)

/* ---- adding nodes */
CM_EXPORT cudaError_t cudaGraphAddKernelNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaKernelNodeParams *pNodeParams) {
    CALL("cudaGraphAddKernelNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(pNodeParams));
}
CM_EXPORT cudaError_t cudaGraphAddMemcpyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaMemcpy3DParms *pCopyParams) {
    CALL("cudaGraphAddMemcpyNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(pCopyParams));
}
CM_EXPORT cudaError_t cudaGraphAddMemcpyNode1D(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies, void *dst,
                                               const void *src, size_t count, enum cudaMemcpyKind kind) {
    CALL("cudaGraphAddMemcpyNode1D", "(KKKKKKKi)", ADD_NODE_ARGS, CM_P(dst), CM_P(src), K(count), (int)kind);
}
CM_EXPORT cudaError_t cudaGraphAddMemsetNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                             const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                             const struct cudaMemsetParams *pMemsetParams) {
    CALL("cudaGraphAddMemsetNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(pMemsetParams));
}
CM_EXPORT cudaError_t cudaGraphAddHostNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                           const struct cudaHostNodeParams *pNodeParams) {
    CALL("cudaGraphAddHostNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(pNodeParams));
}
CM_EXPORT cudaError_t cudaGraphAddEmptyNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                            const cudaGraphNode_t *pDependencies, size_t numDependencies) {
    CALL("cudaGraphAddEmptyNode", "(KKKK)", ADD_NODE_ARGS);
}
CM_EXPORT cudaError_t cudaGraphAddEventRecordNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                  const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                  cudaEvent_t event) {
    CALL("cudaGraphAddEventRecordNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(event));
}
CM_EXPORT cudaError_t cudaGraphAddEventWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                cudaEvent_t event) {
    CALL("cudaGraphAddEventWaitNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(event));
}
CM_EXPORT cudaError_t cudaGraphAddChildGraphNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                 const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                 cudaGraph_t childGraph) {
    CALL("cudaGraphAddChildGraphNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(childGraph));
}
CM_EXPORT cudaError_t cudaGraphAddMemAllocNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                               const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                               struct cudaMemAllocNodeParams *nodeParams) {
    CALL("cudaGraphAddMemAllocNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphAddMemFreeNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                              const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                              void *dptr) {
    CALL("cudaGraphAddMemFreeNode", "(KKKKK)", ADD_NODE_ARGS, CM_P(dptr));
}

/* ---- conditional nodes and the generic node calls */
CM_EXPORT cudaError_t cudaGraphConditionalHandleCreate(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                                       unsigned int defaultLaunchValue, unsigned int flags) {
    CALL("cudaGraphConditionalHandleCreate", "(KKKII)", CM_P(pHandle_out), CM_P(graph), 0ULL, defaultLaunchValue,
         flags);
}
CM_EXPORT cudaError_t cudaGraphConditionalHandleCreate_v2(cudaGraphConditionalHandle *pHandle_out, cudaGraph_t graph,
                                                          cudaExecutionContext_t ctx, unsigned int defaultLaunchValue,
                                                          unsigned int flags) {
    CALL("cudaGraphConditionalHandleCreate", "(KKKII)", CM_P(pHandle_out), CM_P(graph), CM_P(ctx),
         defaultLaunchValue, flags);
}
CM_EXPORT cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                       const cudaGraphNode_t *pDependencies, const cudaGraphEdgeData *dependencyData,
                                       size_t numDependencies, struct cudaGraphNodeParams *nodeParams) {
    CALL("cudaGraphAddNode", "(KKKKKK)", CM_P(pGraphNode), CM_P(graph), CM_P(pDependencies), CM_P(dependencyData),
         K(numDependencies), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphNodeGetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams) {
    CALL("cudaGraphNodeGetParams", "(KK)", CM_P(node), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphNodeSetParams(cudaGraphNode_t node, struct cudaGraphNodeParams *nodeParams) {
    CALL("cudaGraphNodeSetParams", "(KK)", CM_P(node), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphExecNodeSetParams(cudaGraphExec_t graphExec, cudaGraphNode_t node,
                                                 struct cudaGraphNodeParams *nodeParams) {
    CALL("cudaGraphExecNodeSetParams", "(KKK)", CM_P(graphExec), CM_P(node), CM_P(nodeParams));
}
CM_EXPORT cudaError_t cudaGraphInstantiateWithParams(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                                     struct cudaGraphInstantiateParams *instantiateParams) {
    CALL("cudaGraphInstantiateWithParams", "(KKK)", CM_P(pGraphExec), CM_P(graph), CM_P(instantiateParams));
}

/* ---- structure */
CM_EXPORT cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                               const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                               size_t numDependencies) {
    CALL("cudaGraphAddDependencies", "(KKKKK)", CM_P(graph), CM_P(from), CM_P(to), CM_P(edgeData), K(numDependencies));
}
CM_EXPORT cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                  const cudaGraphNode_t *to, const cudaGraphEdgeData *edgeData,
                                                  size_t numDependencies) {
    CALL("cudaGraphRemoveDependencies", "(KKKKK)", CM_P(graph), CM_P(from), CM_P(to), CM_P(edgeData),
         K(numDependencies));
}
CM_EXPORT cudaError_t cudaGraphGetNodes(cudaGraph_t graph, cudaGraphNode_t *nodes, size_t *numNodes) {
    CALL("cudaGraphGetNodes", "(KKK)", CM_P(graph), CM_P(nodes), CM_P(numNodes));
}
CM_EXPORT cudaError_t cudaGraphGetRootNodes(cudaGraph_t graph, cudaGraphNode_t *pRootNodes, size_t *pNumRootNodes) {
    CALL("cudaGraphGetRootNodes", "(KKK)", CM_P(graph), CM_P(pRootNodes), CM_P(pNumRootNodes));
}
CM_EXPORT cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                        cudaGraphEdgeData *edgeData, size_t *numEdges) {
    CALL("cudaGraphGetEdges", "(KKKKK)", CM_P(graph), CM_P(from), CM_P(to), CM_P(edgeData), CM_P(numEdges));
}
CM_EXPORT cudaError_t cudaGraphNodeGetType(cudaGraphNode_t node, enum cudaGraphNodeType *pType) {
    CALL("cudaGraphNodeGetType", "(KK)", CM_P(node), CM_P(pType));
}
CM_EXPORT cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                   cudaGraphEdgeData *edgeData, size_t *pNumDependencies) {
    CALL("cudaGraphNodeGetDependencies", "(KKKK)", CM_P(node), CM_P(pDependencies), CM_P(edgeData),
         CM_P(pNumDependencies));
}
CM_EXPORT cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                     cudaGraphEdgeData *edgeData, size_t *pNumDependentNodes) {
    CALL("cudaGraphNodeGetDependentNodes", "(KKKK)", CM_P(node), CM_P(pDependentNodes), CM_P(edgeData),
         CM_P(pNumDependentNodes));
}
CM_EXPORT cudaError_t cudaGraphClone(cudaGraph_t *pGraphClone, cudaGraph_t originalGraph) {
    CALL("cudaGraphClone", "(KK)", CM_P(pGraphClone), CM_P(originalGraph));
}
CM_EXPORT cudaError_t cudaGraphNodeFindInClone(cudaGraphNode_t *pNode, cudaGraphNode_t originalNode,
                                               cudaGraph_t clonedGraph) {
    CALL("cudaGraphNodeFindInClone", "(KKK)", CM_P(pNode), CM_P(originalNode), CM_P(clonedGraph));
}
CM_EXPORT cudaError_t cudaGraphDestroyNode(cudaGraphNode_t node) { CALL("cudaGraphDestroyNode", "(K)", CM_P(node)); }
CM_EXPORT cudaError_t cudaGraphDebugDotPrint(cudaGraph_t graph, const char *path, unsigned int flags) {
    CALL("cudaGraphDebugDotPrint", "(KKI)", CM_P(graph), CM_P(path), flags);
}

/* ---- node parameters */
CM_EXPORT cudaError_t cudaGraphKernelNodeSetParams(cudaGraphNode_t node, const struct cudaKernelNodeParams *p) {
    CALL("cudaGraphKernelNodeSetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphMemsetNodeGetParams(cudaGraphNode_t node, struct cudaMemsetParams *p) {
    CALL("cudaGraphMemsetNodeGetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphMemsetNodeSetParams(cudaGraphNode_t node, const struct cudaMemsetParams *p) {
    CALL("cudaGraphMemsetNodeSetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphMemcpyNodeGetParams(cudaGraphNode_t node, struct cudaMemcpy3DParms *p) {
    CALL("cudaGraphMemcpyNodeGetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams(cudaGraphNode_t node, const struct cudaMemcpy3DParms *p) {
    CALL("cudaGraphMemcpyNodeSetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphMemcpyNodeSetParams1D(cudaGraphNode_t node, void *dst, const void *src, size_t count,
                                                     enum cudaMemcpyKind kind) {
    CALL("cudaGraphMemcpyNodeSetParams1D", "(KKKKi)", CM_P(node), CM_P(dst), CM_P(src), K(count), (int)kind);
}
CM_EXPORT cudaError_t cudaGraphHostNodeGetParams(cudaGraphNode_t node, struct cudaHostNodeParams *p) {
    CALL("cudaGraphHostNodeGetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphHostNodeSetParams(cudaGraphNode_t node, const struct cudaHostNodeParams *p) {
    CALL("cudaGraphHostNodeSetParams", "(KK)", CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphEventRecordNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    CALL("cudaGraphEventRecordNodeGetEvent", "(KK)", CM_P(node), CM_P(event_out));
}
CM_EXPORT cudaError_t cudaGraphEventRecordNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    CALL("cudaGraphEventRecordNodeSetEvent", "(KK)", CM_P(node), CM_P(event));
}
CM_EXPORT cudaError_t cudaGraphEventWaitNodeGetEvent(cudaGraphNode_t node, cudaEvent_t *event_out) {
    CALL("cudaGraphEventWaitNodeGetEvent", "(KK)", CM_P(node), CM_P(event_out));
}
CM_EXPORT cudaError_t cudaGraphEventWaitNodeSetEvent(cudaGraphNode_t node, cudaEvent_t event) {
    CALL("cudaGraphEventWaitNodeSetEvent", "(KK)", CM_P(node), CM_P(event));
}
CM_EXPORT cudaError_t cudaGraphChildGraphNodeGetGraph(cudaGraphNode_t node, cudaGraph_t *pGraph) {
    CALL("cudaGraphChildGraphNodeGetGraph", "(KK)", CM_P(node), CM_P(pGraph));
}
CM_EXPORT cudaError_t cudaGraphMemAllocNodeGetParams(cudaGraphNode_t node, struct cudaMemAllocNodeParams *params_out) {
    CALL("cudaGraphMemAllocNodeGetParams", "(KK)", CM_P(node), CM_P(params_out));
}
CM_EXPORT cudaError_t cudaGraphMemFreeNodeGetParams(cudaGraphNode_t node, void *dptr_out) {
    CALL("cudaGraphMemFreeNodeGetParams", "(KK)", CM_P(node), CM_P(dptr_out));
}

/* ---- executable graphs */
CM_EXPORT cudaError_t cudaGraphUpload(cudaGraphExec_t graphExec, cudaStream_t stream) {
    CALL("cudaGraphUpload", "(KK)", CM_P(graphExec), CM_P(stream));
}
CM_EXPORT cudaError_t cudaGraphExecKernelNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                       const struct cudaKernelNodeParams *p) {
    CALL("cudaGraphExecKernelNodeSetParams", "(KKK)", CM_P(e), CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphExecMemsetNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                       const struct cudaMemsetParams *p) {
    CALL("cudaGraphExecMemsetNodeSetParams", "(KKK)", CM_P(e), CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                       const struct cudaMemcpy3DParms *p) {
    CALL("cudaGraphExecMemcpyNodeSetParams", "(KKK)", CM_P(e), CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphExecMemcpyNodeSetParams1D(cudaGraphExec_t e, cudaGraphNode_t node, void *dst,
                                                         const void *src, size_t count, enum cudaMemcpyKind kind) {
    CALL("cudaGraphExecMemcpyNodeSetParams1D", "(KKKKKi)", CM_P(e), CM_P(node), CM_P(dst), CM_P(src), K(count),
         (int)kind);
}
CM_EXPORT cudaError_t cudaGraphExecHostNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                     const struct cudaHostNodeParams *p) {
    CALL("cudaGraphExecHostNodeSetParams", "(KKK)", CM_P(e), CM_P(node), CM_P(p));
}
CM_EXPORT cudaError_t cudaGraphExecChildGraphNodeSetParams(cudaGraphExec_t e, cudaGraphNode_t node,
                                                           cudaGraph_t childGraph) {
    CALL("cudaGraphExecChildGraphNodeSetParams", "(KKK)", CM_P(e), CM_P(node), CM_P(childGraph));
}
CM_EXPORT cudaError_t cudaGraphExecEventRecordNodeSetEvent(cudaGraphExec_t e, cudaGraphNode_t hNode, cudaEvent_t ev) {
    CALL("cudaGraphExecEventRecordNodeSetEvent", "(KKK)", CM_P(e), CM_P(hNode), CM_P(ev));
}
CM_EXPORT cudaError_t cudaGraphExecEventWaitNodeSetEvent(cudaGraphExec_t e, cudaGraphNode_t hNode, cudaEvent_t ev) {
    CALL("cudaGraphExecEventWaitNodeSetEvent", "(KKK)", CM_P(e), CM_P(hNode), CM_P(ev));
}
CM_EXPORT cudaError_t cudaGraphExecUpdate(cudaGraphExec_t e, cudaGraph_t hGraph,
                                          cudaGraphExecUpdateResultInfo *resultInfo) {
    CALL("cudaGraphExecUpdate", "(KKK)", CM_P(e), CM_P(hGraph), CM_P(resultInfo));
}
CM_EXPORT cudaError_t cudaGraphNodeSetEnabled(cudaGraphExec_t e, cudaGraphNode_t hNode, unsigned int isEnabled) {
    CALL("cudaGraphNodeSetEnabled", "(KKI)", CM_P(e), CM_P(hNode), isEnabled);
}
CM_EXPORT cudaError_t cudaGraphNodeGetEnabled(cudaGraphExec_t e, cudaGraphNode_t hNode, unsigned int *isEnabled) {
    CALL("cudaGraphNodeGetEnabled", "(KKK)", CM_P(e), CM_P(hNode), CM_P(isEnabled));
}
CM_EXPORT cudaError_t cudaGraphExecGetFlags(cudaGraphExec_t e, unsigned long long *flags) {
    CALL("cudaGraphExecGetFlags", "(KK)", CM_P(e), CM_P(flags));
}

/* ---- graph memory */
CM_EXPORT cudaError_t cudaDeviceGraphMemTrim(int device) { CALL("cudaDeviceGraphMemTrim", "(i)", device); }
CM_EXPORT cudaError_t cudaDeviceGetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value) {
    CALL("cudaDeviceGetGraphMemAttribute", "(iiK)", device, (int)attr, CM_P(value));
}
CM_EXPORT cudaError_t cudaDeviceSetGraphMemAttribute(int device, enum cudaGraphMemAttributeType attr, void *value) {
    CALL("cudaDeviceSetGraphMemAttribute", "(iiK)", device, (int)attr, CM_P(value));
}

/* ---- stream capture */
CM_EXPORT cudaError_t cudaStreamBeginCaptureToGraph(cudaStream_t stream, cudaGraph_t graph,
                                                    const cudaGraphNode_t *dependencies,
                                                    const cudaGraphEdgeData *dependencyData, size_t numDependencies,
                                                    enum cudaStreamCaptureMode mode) {
    CALL("cudaStreamBeginCaptureToGraph", "(KKKKKi)", CM_P(stream), CM_P(graph), CM_P(dependencies),
         CM_P(dependencyData), K(numDependencies), (int)mode);
}
CM_EXPORT cudaError_t cudaStreamGetCaptureInfo(cudaStream_t stream, enum cudaStreamCaptureStatus *captureStatus_out,
                                               unsigned long long *id_out, cudaGraph_t *graph_out,
                                               const cudaGraphNode_t **dependencies_out,
                                               const cudaGraphEdgeData **edgeData_out, size_t *numDependencies_out) {
    CALL("cudaStreamGetCaptureInfo", "(KKKKKKK)", CM_P(stream), CM_P(captureStatus_out), CM_P(id_out),
         CM_P(graph_out), CM_P(dependencies_out), CM_P(edgeData_out), CM_P(numDependencies_out));
}
CM_EXPORT cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                          const cudaGraphEdgeData *dependencyData,
                                                          size_t numDependencies, unsigned int flags) {
    CALL("cudaStreamUpdateCaptureDependencies", "(KKKKI)", CM_P(stream), CM_P(dependencies), CM_P(dependencyData),
         K(numDependencies), flags);
}
