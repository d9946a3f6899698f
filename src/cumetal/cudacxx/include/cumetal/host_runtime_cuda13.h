/* CuMetal: Runtime API calls of CUDA 12.x/13 beyond host_runtime_misc.h: external memory and
 * semaphores, execution contexts and green contexts, attributed and 3D batch copies, atomic
 * capability queries. Written from the CUDA Runtime API documentation; the struct layouts are
 * CUDA 13's (the sizes are asserted below and equal the ctypes layouts cumetal.runtime reads).
 * Included by cuda_runtime_api.h. */
#ifndef CUMETAL_HOST_RUNTIME_CUDA13_H
#define CUMETAL_HOST_RUNTIME_CUDA13_H

#ifdef __cplusplus
#define CUMETAL_DEFAULT_0 = 0 /* CUDA's default stream argument, C++ only */
extern "C" {
#else
#define CUMETAL_DEFAULT_0
#endif

/* ---- external memory and semaphores (CuMetal: POSIX file descriptors; docs/runtime-api.md) */
typedef struct CUexternalMemory_st *cudaExternalMemory_t;
typedef struct CUexternalSemaphore_st *cudaExternalSemaphore_t;

struct cudaExternalMemoryHandleDesc {
    enum cudaExternalMemoryHandleType type;
    union {
        int fd;
        struct {
            void *handle;
            const void *name;
        } win32;
        const void *nvSciBufObject;
    } handle;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};
struct cudaExternalMemoryBufferDesc {
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
};
struct cudaExternalMemoryMipmappedArrayDesc {
    unsigned long long offset;
    struct cudaChannelFormatDesc formatDesc;
    struct cudaExtent extent;
    unsigned int flags;
    unsigned int numLevels;
    unsigned int reserved[16];
};
struct cudaExternalSemaphoreHandleDesc {
    enum cudaExternalSemaphoreHandleType type;
    union {
        int fd;
        struct {
            void *handle;
            const void *name;
        } win32;
        const void *nvSciSyncObj;
    } handle;
    unsigned int flags;
    unsigned int reserved[16];
};
struct cudaExternalSemaphoreSignalParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
        } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};
struct cudaExternalSemaphoreWaitParams {
    struct {
        struct {
            unsigned long long value;
        } fence;
        union {
            void *fence;
            unsigned long long reserved;
        } nvSciSync;
        struct {
            unsigned long long key;
            unsigned int timeoutMs;
        } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
};
struct cudaExternalSemaphoreSignalNodeParams {
    cudaExternalSemaphore_t *extSemArray;
    const struct cudaExternalSemaphoreSignalParams *paramsArray;
    unsigned int numExtSems;
};
struct cudaExternalSemaphoreWaitNodeParams {
    cudaExternalSemaphore_t *extSemArray;
    const struct cudaExternalSemaphoreWaitParams *paramsArray;
    unsigned int numExtSems;
};
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalMemoryHandleDesc) == 104, "cudaExternalMemoryHandleDesc layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalMemoryBufferDesc) == 88, "cudaExternalMemoryBufferDesc layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalMemoryMipmappedArrayDesc) == 128, "cudaExternalMemoryMipmappedArrayDesc");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalSemaphoreHandleDesc) == 96, "cudaExternalSemaphoreHandleDesc layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalSemaphoreSignalParams) == 144, "cudaExternalSemaphoreSignalParams");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaExternalSemaphoreWaitParams) == 144, "cudaExternalSemaphoreWaitParams");

cudaError_t cudaImportExternalMemory(cudaExternalMemory_t *extMem_out,
                                     const struct cudaExternalMemoryHandleDesc *memHandleDesc);
cudaError_t cudaExternalMemoryGetMappedBuffer(void **devPtr, cudaExternalMemory_t extMem,
                                              const struct cudaExternalMemoryBufferDesc *bufferDesc);
cudaError_t cudaExternalMemoryGetMappedMipmappedArray(cudaMipmappedArray_t *mipmap, cudaExternalMemory_t extMem,
                                                      const struct cudaExternalMemoryMipmappedArrayDesc *mipmapDesc);
cudaError_t cudaDestroyExternalMemory(cudaExternalMemory_t extMem);
cudaError_t cudaImportExternalSemaphore(cudaExternalSemaphore_t *extSem_out,
                                        const struct cudaExternalSemaphoreHandleDesc *semHandleDesc);
cudaError_t cudaSignalExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                              const struct cudaExternalSemaphoreSignalParams *paramsArray,
                                              unsigned int numExtSems, cudaStream_t stream CUMETAL_DEFAULT_0);
cudaError_t cudaWaitExternalSemaphoresAsync(const cudaExternalSemaphore_t *extSemArray,
                                            const struct cudaExternalSemaphoreWaitParams *paramsArray,
                                            unsigned int numExtSems, cudaStream_t stream CUMETAL_DEFAULT_0);
cudaError_t cudaDestroyExternalSemaphore(cudaExternalSemaphore_t extSem);
cudaError_t cudaGraphAddExternalSemaphoresSignalNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                     const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                     const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);
cudaError_t cudaGraphAddExternalSemaphoresWaitNode(cudaGraphNode_t *pGraphNode, cudaGraph_t graph,
                                                   const cudaGraphNode_t *pDependencies, size_t numDependencies,
                                                   const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);
cudaError_t cudaGraphExternalSemaphoresSignalNodeSetParams(cudaGraphNode_t hNode,
                                                           const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);
cudaError_t cudaGraphExternalSemaphoresWaitNodeSetParams(cudaGraphNode_t hNode,
                                                         const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);
/* the arrays *params_out points at belong to the node (valid until its next GetParams or destruction) */
cudaError_t cudaGraphExternalSemaphoresSignalNodeGetParams(cudaGraphNode_t hNode,
                                                           struct cudaExternalSemaphoreSignalNodeParams *params_out);
cudaError_t cudaGraphExternalSemaphoresWaitNodeGetParams(cudaGraphNode_t hNode,
                                                         struct cudaExternalSemaphoreWaitNodeParams *params_out);
cudaError_t cudaGraphExecExternalSemaphoresSignalNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreSignalNodeParams *nodeParams);
cudaError_t cudaGraphExecExternalSemaphoresWaitNodeSetParams(
    cudaGraphExec_t hGraphExec, cudaGraphNode_t hNode, const struct cudaExternalSemaphoreWaitNodeParams *nodeParams);

/* ---- device resources, green contexts, execution contexts */
typedef struct cudaDevResourceDesc_st *cudaDevResourceDesc_t;
struct cudaDevSmResource {
    unsigned int smCount;
    unsigned int minSmPartitionSize;
    unsigned int smCoscheduledAlignment;
    unsigned int flags;
    unsigned int localityDomainId;
};
struct cudaDevWorkqueueConfigResource {
    int device;
    unsigned int wqConcurrencyLimit;
    enum cudaDevWorkqueueConfigScope sharingScope;
};
struct cudaDevWorkqueueResource {
    unsigned char reserved[40];
};
struct cudaDevSmResourceGroupParams {
    unsigned int smCount;
    unsigned int coscheduledSmCount;
    unsigned int preferredCoscheduledSmCount;
    unsigned int flags;
    unsigned int localityDomainId;
    unsigned int reserved[11];
};
typedef struct cudaDevResource_st {
    enum cudaDevResourceType type;
    unsigned char _internal_padding[92]; /* CuMetal keeps the split a resource came from here */
    union {
        struct cudaDevSmResource sm;
        struct cudaDevWorkqueueConfigResource wqConfig;
        struct cudaDevWorkqueueResource wq;
    };
    struct cudaDevResource_st *nextResource;
} cudaDevResource;
typedef struct cudaDevSmResource cudaDevSmResource;
typedef struct cudaDevSmResourceGroupParams cudaDevSmResourceGroupParams;
CUMETAL_STATIC_ASSERT(sizeof(cudaDevResource) == 144, "cudaDevResource layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaDevSmResourceGroupParams) == 64, "cudaDevSmResourceGroupParams layout");

cudaError_t cudaDeviceGetDevResource(int device, cudaDevResource *resource, enum cudaDevResourceType type);
cudaError_t cudaDevSmResourceSplitByCount(cudaDevResource *result, unsigned int *nbGroups, const cudaDevResource *input,
                                          cudaDevResource *remaining, unsigned int flags, unsigned int minCount);
cudaError_t cudaDevSmResourceSplit(cudaDevResource *result, unsigned int nbGroups, const cudaDevResource *input,
                                   cudaDevResource *remainder, unsigned int flags,
                                   cudaDevSmResourceGroupParams *groupParams);
cudaError_t cudaDevResourceGenerateDesc(cudaDevResourceDesc_t *phDesc, cudaDevResource *resources,
                                        unsigned int nbResources);
cudaError_t cudaGreenCtxCreate(cudaExecutionContext_t *phCtx, cudaDevResourceDesc_t desc, int device,
                               unsigned int flags);
cudaError_t cudaDeviceGetExecutionCtx(cudaExecutionContext_t *ctx, int device);
cudaError_t cudaExecutionCtxDestroy(cudaExecutionContext_t ctx);
cudaError_t cudaExecutionCtxGetDevResource(cudaExecutionContext_t ctx, cudaDevResource *resource,
                                           enum cudaDevResourceType type);
cudaError_t cudaExecutionCtxGetDevice(int *device, cudaExecutionContext_t ctx);
cudaError_t cudaExecutionCtxGetId(cudaExecutionContext_t ctx, unsigned long long *ctxId);
cudaError_t cudaExecutionCtxRecordEvent(cudaExecutionContext_t ctx, cudaEvent_t event);
cudaError_t cudaExecutionCtxWaitEvent(cudaExecutionContext_t ctx, cudaEvent_t event);
cudaError_t cudaExecutionCtxStreamCreate(cudaStream_t *phStream, cudaExecutionContext_t ctx, unsigned int flags,
                                         int priority);
cudaError_t cudaExecutionCtxSynchronize(cudaExecutionContext_t ctx);
cudaError_t cudaStreamGetDevResource(cudaStream_t hStream, cudaDevResource *resource, enum cudaDevResourceType type);

/* ---- copies with attributes, 3D batches */
struct cudaOffset3D {
    size_t x;
    size_t y;
    size_t z;
};
struct cudaMemcpy3DOperand {
    enum cudaMemcpy3DOperandType type;
    union {
        struct {
            void *ptr;
            size_t rowLength;
            size_t layerHeight;
            struct cudaMemLocation locHint;
        } ptr;
        struct {
            cudaArray_t array;
            struct cudaOffset3D offset;
        } array;
    } op;
};
struct cudaMemcpy3DBatchOp {
    struct cudaMemcpy3DOperand src;
    struct cudaMemcpy3DOperand dst;
    struct cudaExtent extent;
    enum cudaMemcpySrcAccessOrder srcAccessOrder;
    unsigned int flags;
};
typedef struct cudaOffset3D cudaOffset3D;
typedef struct cudaMemcpy3DOperand cudaMemcpy3DOperand;
typedef struct cudaMemcpy3DBatchOp cudaMemcpy3DBatchOp;
CUMETAL_STATIC_ASSERT(sizeof(struct cudaMemcpy3DBatchOp) == 112, "cudaMemcpy3DBatchOp layout");

cudaError_t cudaMemcpyWithAttributesAsync(void *dst, const void *src, size_t size, struct cudaMemcpyAttributes *attr,
                                          cudaStream_t stream CUMETAL_DEFAULT_0);
cudaError_t cudaMemcpy3DBatchAsync(size_t numOps, struct cudaMemcpy3DBatchOp *opList, unsigned long long flags,
                                   cudaStream_t stream CUMETAL_DEFAULT_0);
cudaError_t cudaMemcpy3DWithAttributesAsync(struct cudaMemcpy3DBatchOp *op, unsigned long long flags,
                                            cudaStream_t stream CUMETAL_DEFAULT_0);

/* ---- capability queries */
cudaError_t cudaDeviceGetHostAtomicCapabilities(unsigned int *capabilities, const enum cudaAtomicOperation *operations,
                                                unsigned int count, int device);
cudaError_t cudaDeviceGetP2PAtomicCapabilities(unsigned int *capabilities, const enum cudaAtomicOperation *operations,
                                               unsigned int count, int srcDevice, int dstDevice);
cudaError_t cudaDeviceFlushGPUDirectRDMAWrites(enum cudaFlushGPUDirectRDMAWritesTarget target,
                                               enum cudaFlushGPUDirectRDMAWritesScope scope);

/* ---- queries answered from what CuMetal's devices are (docs/runtime-api.md) */
struct cudaArrayMemoryRequirements {
    size_t size;
    size_t alignment;
    unsigned int reserved[4];
};
struct cudaArraySparseProperties {
    struct {
        unsigned int width;
        unsigned int height;
        unsigned int depth;
    } tileExtent;
    unsigned int miptailFirstLevel;
    unsigned long long miptailSize;
    unsigned int flags;
    unsigned int reserved[4];
};
CUMETAL_STATIC_ASSERT(sizeof(struct cudaArrayMemoryRequirements) == 32, "cudaArrayMemoryRequirements layout");
CUMETAL_STATIC_ASSERT(sizeof(struct cudaArraySparseProperties) == 48, "cudaArraySparseProperties layout");
typedef struct cudaAsyncCallbackEntry *cudaAsyncCallbackHandle_t;
struct cudaAsyncNotificationInfo;
typedef void (*cudaAsyncCallback)(struct cudaAsyncNotificationInfo *, void *, cudaAsyncCallbackHandle_t);

cudaError_t cudaArrayGetPlane(cudaArray_t *pPlaneArray, cudaArray_t hArray, unsigned int planeIdx);
cudaError_t cudaArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements, cudaArray_t array,
                                           int device);
cudaError_t cudaMipmappedArrayGetMemoryRequirements(struct cudaArrayMemoryRequirements *memoryRequirements,
                                                    cudaMipmappedArray_t mipmap, int device);
cudaError_t cudaArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties, cudaArray_t array);
cudaError_t cudaMipmappedArrayGetSparseProperties(struct cudaArraySparseProperties *sparseProperties,
                                                  cudaMipmappedArray_t mipmap);
cudaError_t cudaGetTextureObjectResourceViewDesc(struct cudaResourceViewDesc *pResViewDesc,
                                                 cudaTextureObject_t texObject);
cudaError_t cudaDeviceRegisterAsyncNotification(int device, cudaAsyncCallback callbackFunc, void *userData,
                                                cudaAsyncCallbackHandle_t *callback);
cudaError_t cudaDeviceUnregisterAsyncNotification(int device, cudaAsyncCallbackHandle_t callback);
cudaError_t cudaDeviceGetNvSciSyncAttributes(void *nvSciSyncAttrList, int device, int flags);
cudaError_t cudaGetExportTable(const void **ppExportTable, const cudaUUID_t *pExportTableId);
cudaError_t cudaLibraryGetUnifiedFunction(void **fptr, cudaLibrary_t library, const char *symbol);

/* ---- recapture into an existing graph, memory location summaries */
typedef cudaError_t (*cudaGraphRecaptureCallback_t)(void *data, cudaGraphNode_t node,
                                                    const struct cudaGraphNodeParams *originalParams,
                                                    const struct cudaGraphNodeParams *recaptureParams,
                                                    enum cudaGraphRecaptureStatus status);
struct cudaGraphRecaptureCallbackData {
    cudaGraphRecaptureCallback_t callbackFunc;
    void *userData;
};
cudaError_t cudaStreamBeginRecaptureToGraph(cudaStream_t stream, enum cudaStreamCaptureMode mode, cudaGraph_t graph,
                                            struct cudaGraphRecaptureCallbackData *callbackData);
cudaError_t cudaMemGetLocationInfo(void *devPtr, size_t size, size_t summaryGranularity, size_t samplingGranularity,
                                   struct cudaMemLocation *location_out);

#ifdef __cplusplus
}
#endif
#undef CUMETAL_DEFAULT_0

#endif
