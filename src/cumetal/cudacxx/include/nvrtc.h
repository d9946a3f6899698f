/* CuMetal clean-room CUDA headers: nvrtc.h — the NVRTC runtime compilation API, written from the
 * NVRTC documentation (13.x). Implemented by libcumetal (capi/csrc/cm_nvrtc.c) over cumetal.nvrtc:
 * CUDA C++ compiled by CuMetal's front end; "PTX" and "CUBIN" are the PTX text CuMetal loads with
 * cuModuleLoadData. Link with -lnvrtc (libcumetal provides it). */
#ifndef CUMETAL_NVRTC_H
#define CUMETAL_NVRTC_H
#define __NVRTC_H__

#include <stddef.h>
#include "cumetal/host_nvrtc_types.h" /* nvrtcResult, generated from cumetal.nvrtc.enums */

#if defined(__cplusplus)
extern "C" {
#endif

typedef struct _nvrtcProgram *nvrtcProgram;

const char *nvrtcGetErrorString(nvrtcResult result);
nvrtcResult nvrtcVersion(int *major, int *minor);
nvrtcResult nvrtcGetNumSupportedArchs(int *numArchs);
nvrtcResult nvrtcGetSupportedArchs(int *supportedArchs);
nvrtcResult nvrtcCreateProgram(nvrtcProgram *prog, const char *src, const char *name, int numHeaders,
                               const char *const *headers, const char *const *includeNames);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram *prog);
nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char *const *options);
nvrtcResult nvrtcGetPTXSize(nvrtcProgram prog, size_t *ptxSizeRet);
nvrtcResult nvrtcGetPTX(nvrtcProgram prog, char *ptx);
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t *cubinSizeRet);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char *cubin);
nvrtcResult nvrtcGetLTOIRSize(nvrtcProgram prog, size_t *LTOIRSizeRet);
nvrtcResult nvrtcGetLTOIR(nvrtcProgram prog, char *LTOIR);
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t *logSizeRet);
nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char *log);
nvrtcResult nvrtcAddNameExpression(nvrtcProgram prog, const char *const name_expression);
nvrtcResult nvrtcGetLoweredName(nvrtcProgram prog, const char *const name_expression, const char **lowered_name);

#if defined(__cplusplus)
}
#endif

#endif
