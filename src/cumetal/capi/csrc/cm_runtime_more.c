/* libcumetal: Runtime API calls declared in cumetal/host_runtime_misc.h beyond cm_runtime_misc.c's
 * (interprocess communication, user objects, ...). Each passes its arguments to the same-named
 * function of cumetal.capi.bridge (implemented in capi/bridge_runtime_more.py). Handles passed by
 * value (cudaIpcMemHandle_t is 64 bytes) are passed as the address of the parameter. */
#include "cuda_runtime_api.h"

#include "cm_core.h"

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
