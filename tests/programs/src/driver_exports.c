/* Driver API calls cuda.h declares, from C: cuLaunchKernelEx with a cluster attribute (the cpu device
 * runs a cluster's blocks together), a kernel node added with cuGraphAddKernelNode, memory pools made
 * from CUmemPoolProps (attributes, access, allocation), the default pool of a location, kernel names,
 * stream contexts, a tiled tensor map, and CUDA's error codes for bad arguments. */
#include <cuda.h>
#include <cuda_runtime_api.h> /* the driver's graph calls are not exported to C: one graph serves both APIs */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"

#define CHECK_CU(call) CHECK((call) == CUDA_SUCCESS)

static const char *PTX =
    ".version 8.0\n.target sm_90\n.address_size 64\n"
    ".visible .entry fill(.param .u64 out)\n{\n"
    "  .reg .pred %p<2>;\n  .reg .b32 %r<6>;\n  .reg .b64 %rd<4>;\n"
    "  mov.u32 %r1, %tid.x;\n  setp.ne.u32 %p1, %r1, 0;\n  @%p1 bra DONE;\n"
    "  ld.param.u64 %rd1, [out];\n  cvta.to.global.u64 %rd1, %rd1;\n"
    "  mov.u32 %r2, %cluster_ctarank;\n  mov.u32 %r3, %clusterid.x;\n  mad.lo.u32 %r4, %r3, 100, %r2;\n"
    "  mov.u32 %r5, %ctaid.x;\n  mul.wide.u32 %rd2, %r5, 4;\n  add.u64 %rd3, %rd1, %rd2;\n"
    "  st.global.u32 [%rd3], %r4;\nDONE:\n  ret;\n}\n";

int main(void) {
    CUdevice dev;
    CUcontext ctx;
    CHECK_CU(cuInit(0));
    CHECK_CU(cuDeviceGet(&dev, 0));
    CHECK_CU(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK_CU(cuCtxSetCurrent(ctx));

    CUlibrary lib = NULL;
    CUkernel kern = NULL;
    CUfunction fn = NULL;
    CHECK_CU(cuLibraryLoadData(&lib, PTX, NULL, NULL, 0, NULL, NULL, 0));
    CHECK_CU(cuLibraryGetKernel(&kern, lib, "fill"));
    CHECK_CU(cuKernelGetFunction(&fn, kern));
    const char *name = NULL;
    CHECK_CU(cuKernelGetName(&name, kern));
    CHECK(name != NULL && strcmp(name, "fill") == 0);

    CUstream stream;
    CHECK_CU(cuStreamCreate(&stream, CU_STREAM_NON_BLOCKING));
    CUcontext sctx = NULL;
    CUgreenCtx green = (CUgreenCtx)1;
    CHECK_CU(cuStreamGetCtx_v2(stream, &sctx, &green));
    CHECK(sctx == ctx && green == NULL);

    /* ---- a launch of 4 blocks in clusters of 2 */
    CUdeviceptr out;
    unsigned host[4];
    CHECK_CU(cuMemAlloc(&out, sizeof host));
    CHECK_CU(cuMemsetD32(out, 0xFFFFFFFFu, 4));
    CUlaunchAttribute attr;
    memset(&attr, 0, sizeof attr);
    attr.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
    attr.value.clusterDim.x = 2;
    attr.value.clusterDim.y = 1;
    attr.value.clusterDim.z = 1;
    CUlaunchConfig cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.gridDimX = 4, cfg.gridDimY = 1, cfg.gridDimZ = 1;
    cfg.blockDimX = 32, cfg.blockDimY = 1, cfg.blockDimZ = 1;
    cfg.hStream = stream;
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    void *args[] = {&out};
    CHECK_CU(cuLaunchKernelEx(&cfg, fn, args, NULL));
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuMemcpyDtoH(host, out, sizeof host));
    for (int b = 0; b < 4; ++b) CHECK(host[b] == (unsigned)(b % 2 + 100 * (b / 2)));
    CHECK(cuLaunchKernelEx(NULL, fn, args, NULL) == CUDA_ERROR_INVALID_VALUE);
    cfg.attrs = (CUlaunchAttribute *)0x10;  /* unreadable: an error, not a crash */
    CHECK(cuLaunchKernelEx(&cfg, fn, args, NULL) == CUDA_ERROR_INVALID_VALUE);

    /* ---- the same kernel as a graph node, no clusters: cluster id = block id */
    cudaGraph_t graph;
    CUgraphNode node;
    cudaGraphExec_t exec;
    CHECK(cudaGraphCreate(&graph, 0) == cudaSuccess);
    CUDA_KERNEL_NODE_PARAMS kp;
    memset(&kp, 0, sizeof kp);
    kp.func = fn;
    kp.gridDimX = 4, kp.gridDimY = 1, kp.gridDimZ = 1;
    kp.blockDimX = 32, kp.blockDimY = 1, kp.blockDimZ = 1;
    kp.kernelParams = args;
    CHECK_CU(cuGraphAddKernelNode(&node, (CUgraph)graph, NULL, 0, &kp));
    CHECK(cudaGraphInstantiate(&exec, graph, 0) == cudaSuccess);
    CHECK(cudaGraphLaunch(exec, (cudaStream_t)stream) == cudaSuccess);
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuMemcpyDtoH(host, out, sizeof host));
    for (int b = 0; b < 4; ++b) CHECK(host[b] == (unsigned)(100 * b));
    CHECK(cudaGraphExecDestroy(exec) == cudaSuccess);
    CHECK(cudaGraphDestroy(graph) == cudaSuccess);

    /* ---- pools */
    CUmemPoolProps props;
    memset(&props, 0, sizeof props);
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = dev;
    CUmemoryPool pool = NULL, def = NULL, def2 = NULL;
    CHECK_CU(cuMemPoolCreate(&pool, &props));
    cuuint64_t threshold = 1 << 20, got = 0;
    CHECK_CU(cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &threshold));
    CHECK_CU(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &got));
    CHECK(got == 1 << 20);
    CUmemAccess_flags flags = CU_MEM_ACCESS_FLAGS_PROT_NONE;
    CHECK_CU(cuMemPoolGetAccess(&flags, pool, &props.location));
    CHECK(flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
    CUmemAccessDesc access;
    access.location = props.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK_CU(cuMemPoolSetAccess(pool, &access, 1));
    CUdeviceptr p = 0;
    CHECK_CU(cuMemAllocFromPoolAsync(&p, 4096, pool, stream));
    CHECK_CU(cuMemsetD8Async(p, 7, 4096, stream));
    unsigned char bytes[4096];
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuMemcpyDtoH(bytes, p, sizeof bytes));
    CHECK(bytes[0] == 7 && bytes[4095] == 7);
    cuuint64_t used = 0;
    CHECK_CU(cuMemPoolGetAttribute(pool, CU_MEMPOOL_ATTR_USED_MEM_CURRENT, &used));
    CHECK(used >= 4096);
    CHECK_CU(cuMemFreeAsync(p, stream));
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuMemPoolDestroy(pool));
    CHECK_CU(cuMemGetDefaultMemPool(&def, &props.location, CU_MEM_ALLOCATION_TYPE_PINNED));
    CHECK_CU(cuDeviceGetDefaultMemPool(&def2, dev));
    CHECK(def != NULL && def == def2);
    CHECK(cuMemPoolCreate(&pool, NULL) == CUDA_ERROR_INVALID_VALUE);
    CHECK(cuMemPoolGetAttribute(def, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, NULL) == CUDA_ERROR_INVALID_VALUE);

    /* ---- a 2D tiled tensor map over 64 x 64 floats, 16 x 16 boxes */
    CUdeviceptr tensor;
    CHECK_CU(cuMemAlloc(&tensor, 64 * 64 * 4));
    CUtensorMap map;
    memset(&map, 0, sizeof map);
    cuuint64_t dims[2] = {64, 64}, strides[1] = {64 * 4};
    cuuint32_t box[2] = {16, 16}, estrides[2] = {1, 1};
    CHECK_CU(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)tensor, dims, strides, box,
                                    estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                    CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
    int nonzero = 0;
    for (int i = 0; i < 16; ++i) nonzero |= map.opaque[i] != 0;
    CHECK(nonzero);
    CHECK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, (void *)(tensor + 4), dims, strides, box,
                                 estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE,
                                 CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) == CUDA_ERROR_INVALID_VALUE); /* 16 B aligned */
    CHECK(cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 0, (void *)tensor, dims, strides, box,
                                 estrides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE,
                                 CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) ==
          CUDA_ERROR_INVALID_VALUE);

    /* ---- a batch of two copies: host -> device, device -> device */
    unsigned src[4] = {11, 22, 33, 44}, back[4] = {0};
    CUdeviceptr d2;
    CHECK_CU(cuMemAlloc(&d2, sizeof src));
    CUdeviceptr dsts[2] = {out, d2}, srcs[2] = {(CUdeviceptr)src, out};
    size_t sizes[2] = {sizeof src, sizeof src}, idx[1] = {0};
    CUmemcpyAttributes cattr;
    memset(&cattr, 0, sizeof cattr);
    cattr.srcAccessOrder = CU_MEMCPY_SRC_ACCESS_ORDER_STREAM;
    CHECK_CU(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, &cattr, idx, 1, stream));
    CHECK_CU(cuStreamSynchronize(stream));
    CHECK_CU(cuMemcpyDtoH(back, d2, sizeof back));
    CHECK(back[0] == 11 && back[3] == 44);
    CHECK(cuMemcpyBatchAsync(dsts, srcs, sizes, 2, NULL, idx, 1, stream) == CUDA_ERROR_INVALID_VALUE);
    CHECK_CU(cuMemFree(d2));

    /* ---- green-context calls on what is not one */
    CHECK(cuGreenCtxDestroy(NULL) != CUDA_SUCCESS);
    CHECK(cuCtxFromGreenCtx(NULL, NULL) == CUDA_ERROR_INVALID_VALUE);

    CHECK_CU(cuMemFree(tensor));
    CHECK_CU(cuMemFree(out));
    CHECK_CU(cuStreamDestroy(stream));
    CHECK_CU(cuLibraryUnload(lib));
    CHECK_CU(cuDevicePrimaryCtxRelease(dev));
    return finish("driver_exports");
}
