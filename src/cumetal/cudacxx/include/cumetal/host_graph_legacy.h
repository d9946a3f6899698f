/* CuMetal clean-room CUDA headers: C++ overloads with the graph calls' CUDA 11/12 signatures, which
 * programs written for those versions (NVIDIA's samples among them) still use; CUDA's own C++ headers
 * keep such forms. Each forwards to the 13.x call (cumetal/host_graph_api.h). */
#ifndef CUMETAL_HOST_GRAPH_LEGACY_H
#define CUMETAL_HOST_GRAPH_LEGACY_H

static inline cudaError_t cudaGraphInstantiate(cudaGraphExec_t *pGraphExec, cudaGraph_t graph,
                                               cudaGraphNode_t *pErrorNode, char *pLogBuffer, size_t bufferSize) {
    if (pErrorNode) *pErrorNode = 0;
    if (pLogBuffer && bufferSize) pLogBuffer[0] = '\0';
    return cudaGraphInstantiate(pGraphExec, graph, 0ULL);
}

static inline cudaError_t cudaGraphExecUpdate(cudaGraphExec_t hGraphExec, cudaGraph_t hGraph,
                                              cudaGraphNode_t *hErrorNode_out,
                                              enum cudaGraphExecUpdateResult *updateResult_out) {
    cudaGraphExecUpdateResultInfo info;
    cudaError_t err = cudaGraphExecUpdate(hGraphExec, hGraph, &info);
    if (hErrorNode_out) *hErrorNode_out = info.errorNode;
    if (updateResult_out) *updateResult_out = info.result;
    return err;
}

static inline cudaError_t cudaGraphAddDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                   const cudaGraphNode_t *to, size_t numDependencies) {
    return cudaGraphAddDependencies(graph, from, to, (const cudaGraphEdgeData *)0, numDependencies);
}

static inline cudaError_t cudaGraphRemoveDependencies(cudaGraph_t graph, const cudaGraphNode_t *from,
                                                      const cudaGraphNode_t *to, size_t numDependencies) {
    return cudaGraphRemoveDependencies(graph, from, to, (const cudaGraphEdgeData *)0, numDependencies);
}

static inline cudaError_t cudaGraphGetEdges(cudaGraph_t graph, cudaGraphNode_t *from, cudaGraphNode_t *to,
                                            size_t *numEdges) {
    return cudaGraphGetEdges(graph, from, to, (cudaGraphEdgeData *)0, numEdges);
}

static inline cudaError_t cudaGraphNodeGetDependencies(cudaGraphNode_t node, cudaGraphNode_t *pDependencies,
                                                       size_t *pNumDependencies) {
    return cudaGraphNodeGetDependencies(node, pDependencies, (cudaGraphEdgeData *)0, pNumDependencies);
}

static inline cudaError_t cudaGraphNodeGetDependentNodes(cudaGraphNode_t node, cudaGraphNode_t *pDependentNodes,
                                                         size_t *pNumDependentNodes) {
    return cudaGraphNodeGetDependentNodes(node, pDependentNodes, (cudaGraphEdgeData *)0, pNumDependentNodes);
}

static inline cudaError_t cudaStreamUpdateCaptureDependencies(cudaStream_t stream, cudaGraphNode_t *dependencies,
                                                              size_t numDependencies, unsigned int flags) {
    return cudaStreamUpdateCaptureDependencies(stream, dependencies, (const cudaGraphEdgeData *)0,
                                               numDependencies, flags);
}

/* CUDA 12.3's cudaGraphAddNode had no edge data */
static inline cudaError_t cudaGraphAddNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                           const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                           struct cudaGraphNodeParams *nodeParams) {
    return cudaGraphAddNode(pGraphNode, graph, pDependencies, (const cudaGraphEdgeData *)0, numDependencies,
                            nodeParams);
}

#endif
