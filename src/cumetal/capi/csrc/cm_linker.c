/* libcumetal: the Driver API's JIT linker (cuLinkCreate … cuLinkDestroy), implemented by
 * cumetal.driver.linker through cumetal.capi.bridge_linker. JIT options arrive as the C arrays CUDA
 * defines (keys, and values that are pointers or integers in a void* slot). */
#include "cuda.h"

#include "cm_driver_calls.h"

CM_EXPORT CUresult cuLinkCreate(unsigned int numOptions, CUjit_option *options, void **optionValues,
                                CUlinkState *stateOut) {
    DRV("cuLinkCreate", "(IKKK)", numOptions, CM_P(options), CM_P(optionValues), CM_P(stateOut));
}
ALIAS(cuLinkCreate_v2, cuLinkCreate)
CM_EXPORT CUresult cuLinkAddData(CUlinkState state, CUjitInputType type, void *data, size_t size, const char *name,
                                 unsigned int numOptions, CUjit_option *options, void **optionValues) {
    DRV("cuLinkAddData", "(KiKKKIKK)", CM_P(state), (int)type, CM_P(data), K(size), CM_P(name), numOptions,
        CM_P(options), CM_P(optionValues));
}
ALIAS(cuLinkAddData_v2, cuLinkAddData)
CM_EXPORT CUresult cuLinkAddFile(CUlinkState state, CUjitInputType type, const char *path, unsigned int numOptions,
                                 CUjit_option *options, void **optionValues) {
    DRV("cuLinkAddFile", "(KiKIKK)", CM_P(state), (int)type, CM_P(path), numOptions, CM_P(options),
        CM_P(optionValues));
}
ALIAS(cuLinkAddFile_v2, cuLinkAddFile)
CM_EXPORT CUresult cuLinkComplete(CUlinkState state, void **cubinOut, size_t *sizeOut) {
    DRV("cuLinkComplete", "(KKK)", CM_P(state), CM_P(cubinOut), CM_P(sizeOut));
}
CM_EXPORT CUresult cuLinkDestroy(CUlinkState state) { DRV("cuLinkDestroy", "(K)", CM_P(state)); }
