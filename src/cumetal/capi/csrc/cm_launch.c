/* libcumetal: launches with attributes (cudaLaunchKernelExC) and stream attributes, implemented by
 * cumetal.capi.bridge_launch over cumetal.runtime (cumetal/host_launch_api.h). */
#include "cuda_runtime_api.h"

#include "cm_core.h"

#define CALL(name, fmt, ...) return (cudaError_t)cm_call(name, fmt, __VA_ARGS__)

CM_EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func, void **args) {
    CALL("cudaLaunchKernelExC", "(KKK)", CM_P(config), CM_P(func), CM_P(args));
}
CM_EXPORT cudaError_t cudaStreamSetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                             const cudaStreamAttrValue *value) {
    CALL("cudaStreamSetAttribute", "(KiK)", CM_P(hStream), (int)attr, CM_P(value));
}
CM_EXPORT cudaError_t cudaStreamGetAttribute(cudaStream_t hStream, cudaStreamAttrID attr,
                                             cudaStreamAttrValue *value_out) {
    CALL("cudaStreamGetAttribute", "(KiK)", CM_P(hStream), (int)attr, CM_P(value_out));
}
CM_EXPORT cudaError_t cudaStreamCopyAttributes(cudaStream_t dst, cudaStream_t src) {
    CALL("cudaStreamCopyAttributes", "(KK)", CM_P(dst), CM_P(src));
}
