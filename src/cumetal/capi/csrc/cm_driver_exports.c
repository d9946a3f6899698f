/* libcumetal: Driver API calls cumetal/host_driver_more.h declared that no source defined (a C program
 * calling one failed to link): launches with attributes, memory pools made from properties, pool
 * attributes and access, tensor maps, green contexts, kernel names, kernel-node attributes. Arguments
 * go to cumetal.capi.bridge's drv_<name> (capi/bridge_driver_exports.py). */
#include "cuda.h"

#include "cm_core.h"

#include "cm_driver_calls.h"

CM_EXPORT CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kernelParams, void **extra) {
    DRV("cuLaunchKernelEx", "(KKKK)", CM_P(config), CM_P(f), CM_P(kernelParams), CM_P(extra));
}
CM_EXPORT CUresult cuKernelGetName(const char **name, CUkernel hfunc) {
    DRV("cuKernelGetName", "(KK)", CM_P(name), CM_P(hfunc));
}
CM_EXPORT CUresult cuStreamGetCtx_v2(CUstream hStream, CUcontext *pCtx, CUgreenCtx *pGreenCtx) {
    DRV("cuStreamGetCtx_v2", "(KKK)", CM_P(hStream), CM_P(pCtx), CM_P(pGreenCtx));
}
CM_EXPORT CUresult cuGraphKernelNodeSetAttribute(CUgraphNode hNode, CUkernelNodeAttrID attr,
                                                 const CUkernelNodeAttrValue *value) {
    DRV("cuGraphKernelNodeSetAttribute", "(KiK)", CM_P(hNode), (int)attr, CM_P(value));
}

/* ---- pools */
CM_EXPORT CUresult cuMemGetDefaultMemPool(CUmemoryPool *pool_out, CUmemLocation *location, CUmemAllocationType type) {
    DRV("cuMemGetDefaultMemPool", "(KKi)", CM_P(pool_out), CM_P(location), (int)type);
}
CM_EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *poolProps) {
    DRV("cuMemPoolCreate", "(KK)", CM_P(pool), CM_P(poolProps));
}
CM_EXPORT CUresult cuMemPoolGetAccess(CUmemAccess_flags *flags, CUmemoryPool memPool, CUmemLocation *location) {
    DRV("cuMemPoolGetAccess", "(KKK)", CM_P(flags), CM_P(memPool), CM_P(location));
}
CM_EXPORT CUresult cuMemPoolGetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    DRV("cuMemPoolGetAttribute", "(KiK)", CM_P(pool), (int)attr, CM_P(value));
}
CM_EXPORT CUresult cuMemPoolSetAccess(CUmemoryPool pool, const CUmemAccessDesc *map, size_t count) {
    DRV("cuMemPoolSetAccess", "(KKK)", CM_P(pool), CM_P(map), K(count));
}
CM_EXPORT CUresult cuMemPoolSetAttribute(CUmemoryPool pool, CUmemPool_attribute attr, void *value) {
    DRV("cuMemPoolSetAttribute", "(KiK)", CM_P(pool), (int)attr, CM_P(value));
}

/* ---- green contexts (a CUdevResourceDesc is a handle CuMetal's driver made) */
CM_EXPORT CUresult cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc, CUdevice dev, unsigned int flags) {
    DRV("cuGreenCtxCreate", "(KKiI)", CM_P(phCtx), CM_P(desc), dev, flags);
}
CM_EXPORT CUresult cuGreenCtxDestroy(CUgreenCtx hCtx) { DRV("cuGreenCtxDestroy", "(K)", CM_P(hCtx)); }
CM_EXPORT CUresult cuGreenCtxGetId(CUgreenCtx greenCtx, unsigned long long *greenCtxId) {
    DRV("cuGreenCtxGetId", "(KK)", CM_P(greenCtx), CM_P(greenCtxId));
}
CM_EXPORT CUresult cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx) {
    DRV("cuCtxFromGreenCtx", "(KK)", CM_P(pContext), CM_P(hCtx));
}

/* ---- tensor maps */
CM_EXPORT CUresult cuTensorMapEncodeTiled(CUtensorMap *tensorMap, CUtensorMapDataType tensorDataType,
                                          cuuint32_t tensorRank, void *globalAddress, const cuuint64_t *globalDim,
                                          const cuuint64_t *globalStrides, const cuuint32_t *boxDim,
                                          const cuuint32_t *elementStrides, CUtensorMapInterleave interleave,
                                          CUtensorMapSwizzle swizzle, CUtensorMapL2promotion l2Promotion,
                                          CUtensorMapFloatOOBfill oobFill) {
    DRV("cuTensorMapEncodeTiled", "(KiIKKKKKiiii)", CM_P(tensorMap), (int)tensorDataType, tensorRank,
        CM_P(globalAddress), CM_P(globalDim), CM_P(globalStrides), CM_P(boxDim), CM_P(elementStrides),
        (int)interleave, (int)swizzle, (int)l2Promotion, (int)oobFill);
}

/* ---- graphs */
CM_EXPORT CUresult cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
                                        size_t numDependencies, const CUDA_KERNEL_NODE_PARAMS *nodeParams) {
    DRV("cuGraphAddKernelNode", "(KKKKK)", CM_P(phGraphNode), CM_P(hGraph), CM_P(dependencies), K(numDependencies),
        CM_P(nodeParams));
}
ALIAS(cuGraphAddKernelNode_v2, cuGraphAddKernelNode)

/* ---- batched copies (CUDA 13 signature, no failIdx) */
CM_EXPORT CUresult cuMemcpyBatchAsync(CUdeviceptr *dsts, CUdeviceptr *srcs, size_t *sizes, size_t count,
                                      CUmemcpyAttributes *attrs, size_t *attrsIdxs, size_t numAttrs, CUstream hStream) {
    DRV("cuMemcpyBatchAsync", "(KKKKKKKK)", CM_P(dsts), CM_P(srcs), CM_P(sizes), K(count), CM_P(attrs),
        CM_P(attrsIdxs), K(numAttrs), CM_P(hStream));
}
