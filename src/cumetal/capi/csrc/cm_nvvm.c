/* libcumetal: libNVVM (nvvm.h) over cumetal.nvvm, through cumetal.capi.bridge_nvvm. The functions
 * return nvvmResult codes; nvvmGetErrorString returns a string the bridge keeps alive. */
#include "nvvm.h"

#include "cm_core.h"

#define K(x) ((unsigned long long)(x))
#define NVVM(name, fmt, ...) return (nvvmResult)cm_call("nvvm_" name, fmt, __VA_ARGS__)

CM_EXPORT const char *nvvmGetErrorString(nvvmResult result) {
    long long p = cm_call("nvvm_nvvmGetErrorString", "(i)", (int)result);
    return p > 0 ? (const char *)(uintptr_t)p : "NVVM_ERROR unknown";
}
CM_EXPORT nvvmResult nvvmVersion(int *major, int *minor) { NVVM("nvvmVersion", "(KK)", CM_P(major), CM_P(minor)); }
CM_EXPORT nvvmResult nvvmIRVersion(int *majorIR, int *minorIR, int *majorDbg, int *minorDbg) {
    NVVM("nvvmIRVersion", "(KKKK)", CM_P(majorIR), CM_P(minorIR), CM_P(majorDbg), CM_P(minorDbg));
}
CM_EXPORT nvvmResult nvvmCreateProgram(nvvmProgram *prog) { NVVM("nvvmCreateProgram", "(K)", CM_P(prog)); }
CM_EXPORT nvvmResult nvvmDestroyProgram(nvvmProgram *prog) { NVVM("nvvmDestroyProgram", "(K)", CM_P(prog)); }
CM_EXPORT nvvmResult nvvmAddModuleToProgram(nvvmProgram prog, const char *buffer, size_t size, const char *name) {
    NVVM("nvvmAddModuleToProgram", "(KKKK)", CM_P(prog), CM_P(buffer), K(size), CM_P(name));
}
CM_EXPORT nvvmResult nvvmLazyAddModuleToProgram(nvvmProgram prog, const char *buffer, size_t size, const char *name) {
    NVVM("nvvmLazyAddModuleToProgram", "(KKKK)", CM_P(prog), CM_P(buffer), K(size), CM_P(name));
}
CM_EXPORT nvvmResult nvvmCompileProgram(nvvmProgram prog, int numOptions, const char **options) {
    NVVM("nvvmCompileProgram", "(KiK)", CM_P(prog), numOptions, CM_P(options));
}
CM_EXPORT nvvmResult nvvmVerifyProgram(nvvmProgram prog, int numOptions, const char **options) {
    NVVM("nvvmVerifyProgram", "(KiK)", CM_P(prog), numOptions, CM_P(options));
}
CM_EXPORT nvvmResult nvvmGetCompiledResultSize(nvvmProgram prog, size_t *bufferSizeRet) {
    NVVM("nvvmGetCompiledResultSize", "(KK)", CM_P(prog), CM_P(bufferSizeRet));
}
CM_EXPORT nvvmResult nvvmGetCompiledResult(nvvmProgram prog, char *buffer) {
    NVVM("nvvmGetCompiledResult", "(KK)", CM_P(prog), CM_P(buffer));
}
CM_EXPORT nvvmResult nvvmGetProgramLogSize(nvvmProgram prog, size_t *bufferSizeRet) {
    NVVM("nvvmGetProgramLogSize", "(KK)", CM_P(prog), CM_P(bufferSizeRet));
}
CM_EXPORT nvvmResult nvvmGetProgramLog(nvvmProgram prog, char *buffer) {
    NVVM("nvvmGetProgramLog", "(KK)", CM_P(prog), CM_P(buffer));
}
