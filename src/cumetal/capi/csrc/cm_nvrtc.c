/* libcumetal: NVRTC (nvrtc.h) over cumetal.nvrtc, through cumetal.capi.bridge_nvrtc. The functions
 * return nvrtcResult codes; nvrtcGetErrorString returns a string the bridge keeps alive. */
#include "nvrtc.h"

#include "cm_core.h"

#define K(x) ((unsigned long long)(x))
#define NVRTC(name, fmt, ...) return (nvrtcResult)cm_call("nvrtc_" name, fmt, __VA_ARGS__)

CM_EXPORT const char *nvrtcGetErrorString(nvrtcResult result) {
    long long p = cm_call("nvrtc_nvrtcGetErrorString", "(i)", (int)result);
    return p > 0 ? (const char *)(uintptr_t)p : "NVRTC_ERROR unknown";
}
CM_EXPORT nvrtcResult nvrtcVersion(int *major, int *minor) {
    NVRTC("nvrtcVersion", "(KK)", CM_P(major), CM_P(minor));
}
CM_EXPORT nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs) {
    NVRTC("nvrtcGetNumSupportedArchs", "(K)", CM_P(numArchs));
}
CM_EXPORT nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs) {
    NVRTC("nvrtcGetSupportedArchs", "(K)", CM_P(supportedArchs));
}
CM_EXPORT nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                                         const char *const *headers, const char *const *includeNames) {
    NVRTC("nvrtcCreateProgram", "(KKKiKK)", CM_P(prog), CM_P(src), CM_P(name), numHeaders, CM_P(headers),
          CM_P(includeNames));
}
CM_EXPORT nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog) { NVRTC("nvrtcDestroyProgram", "(K)", CM_P(prog)); }
CM_EXPORT nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options) {
    NVRTC("nvrtcCompileProgram", "(KiK)", CM_P(prog), numOptions, CM_P(options));
}
#define SIZE_AND_DATA(WHAT)                                                                                      \
    CM_EXPORT nvrtcResult nvrtcGet##WHAT##Size(nvrtcProgram prog, size_t *size) {                              \
        NVRTC("nvrtcGet" #WHAT "Size", "(KK)", CM_P(prog), CM_P(size));                                          \
    }                                                                                                            \
    CM_EXPORT nvrtcResult nvrtcGet##WHAT(nvrtcProgram prog, char *out) {                                       \
        NVRTC("nvrtcGet" #WHAT, "(KK)", CM_P(prog), CM_P(out));                                                  \
    }
SIZE_AND_DATA(PTX)
SIZE_AND_DATA(CUBIN)
SIZE_AND_DATA(LTOIR)
SIZE_AND_DATA(ProgramLog)
CM_EXPORT nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression) {
    NVRTC("nvrtcAddNameExpression", "(KK)", CM_P(prog), CM_P(name_expression));
}
CM_EXPORT nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression,
                                          const char **lowered_name) {
    NVRTC("nvrtcGetLoweredName", "(KKK)", CM_P(prog), CM_P(name_expression), CM_P(lowered_name));
}
