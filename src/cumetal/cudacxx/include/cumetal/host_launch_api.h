/* CuMetal clean-room CUDA headers: launch and stream attributes (cudaLaunchKernelEx,
 * cudaStreamSet/GetAttribute), written from the CUDA Runtime API documentation (13.x).
 * cuda_runtime_api.h includes this inside its extern "C" block; the C++ template
 * cudaLaunchKernelEx is in cumetal/host_launch_templates.h. Implemented by capi/csrc/cm_launch.c. */
#ifndef CUMETAL_HOST_LAUNCH_API_H
#define CUMETAL_HOST_LAUNCH_API_H

typedef struct cudaAccessPolicyWindow {
    void *base_ptr;
    size_t num_bytes;
    float hitRatio;
    enum cudaAccessProperty hitProp;
    enum cudaAccessProperty missProp;
} cudaAccessPolicyWindow;

typedef struct cudaLaunchMemSyncDomainMap_st {
    unsigned char default_;
    unsigned char remote;
} cudaLaunchMemSyncDomainMap;

/* the value of one attribute: only the member its ID names is meaningful */
typedef union cudaLaunchAttributeValue {
    char pad[64];
    struct cudaAccessPolicyWindow accessPolicyWindow;
    int cooperative;
    enum cudaSynchronizationPolicy syncPolicy;
    struct { unsigned int x, y, z; } clusterDim;
    enum cudaClusterSchedulingPolicy clusterSchedulingPolicyPreference;
    int programmaticStreamSerializationAllowed;
    struct { cudaEvent_t event; int flags; int triggerAtBlockStart; } programmaticEvent;
    int priority;
    cudaLaunchMemSyncDomainMap memSyncDomainMap;
    enum cudaLaunchMemSyncDomain memSyncDomain;
    struct { unsigned int x, y, z; } preferredClusterDim;
    struct { cudaEvent_t event; int flags; } launchCompletionEvent;
    struct { int deviceUpdatable; void *devNode; } deviceUpdatableKernelNode;
    unsigned int sharedMemCarveout;
    unsigned int nvlinkUtilCentricScheduling;
} cudaLaunchAttributeValue;
typedef union cudaLaunchAttributeValue cudaStreamAttrValue;
typedef union cudaLaunchAttributeValue cudaKernelNodeAttrValue;

typedef struct cudaLaunchAttribute_st {
    cudaLaunchAttributeID id;
    char pad[8 - sizeof(cudaLaunchAttributeID)];
    cudaLaunchAttributeValue val;
} cudaLaunchAttribute;

typedef struct cudaLaunchConfig_st {
    dim3 gridDim;
    dim3 blockDim;
    size_t dynamicSmemBytes;
    cudaStream_t stream;
    cudaLaunchAttribute *attrs;
    unsigned int numAttrs;
} cudaLaunchConfig_t;

CUMETAL_STATIC_ASSERT(sizeof(cudaAccessPolicyWindow) == 32, "cudaAccessPolicyWindow layout");
CUMETAL_STATIC_ASSERT(sizeof(cudaLaunchAttributeValue) == 64, "cudaLaunchAttributeValue layout");
CUMETAL_STATIC_ASSERT(sizeof(cudaLaunchAttribute) == 72, "cudaLaunchAttribute layout");
CUMETAL_STATIC_ASSERT(sizeof(cudaLaunchConfig_t) == 56, "cudaLaunchConfig_t layout");

cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args);
cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, const cudaStreamAttrValue *value);
cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr, cudaStreamAttrValue *value_out);
cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src);

#if !defined(__cplusplus)
#define cudaLaunchKernelEx cudaLaunchKernelExC /* C: the same call (C++ has the typed template) */
#endif

#endif
