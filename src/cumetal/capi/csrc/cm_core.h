/* libcumetal: the C ABI of CuMetal. Every exported CUDA function marshals its arguments into a
 * call of the same-named function of the Python module cumetal.capi.bridge, which does the work
 * through cumetal.runtime / cumetal.driver. This header is the small core all sources share. */
#ifndef CUMETAL_CAPI_CORE_H
#define CUMETAL_CAPI_CORE_H

#include <stddef.h>
#include <stdint.h>

/* Error codes the core itself returns (the same values in the runtime and the driver API). */
#define CM_ERR_NOT_INITIALIZED 3 /* cudaErrorInitializationError / CUDA_ERROR_NOT_INITIALIZED */
#define CM_ERR_UNKNOWN 999       /* cudaErrorUnknown / CUDA_ERROR_UNKNOWN */

#define CM_EXPORT __attribute__((visibility("default")))

/* Call cumetal.capi.bridge.<name>(*args) with args built by Py_BuildValue's format `fmt`
 * (the parentheses are added here). The Python function returns an int: the CUDA error code (or,
 * for a few entry points, a value such as a handle). Python exceptions never leave the bridge; if
 * one does, or the interpreter cannot start, the result is CM_ERR_UNKNOWN / CM_ERR_NOT_INITIALIZED
 * and the reason is printed once on stderr. */
long long cm_call(const char *name, const char *fmt, ...);

/* 1 once after __cudaPopCallConfiguration found no configuration (a kernel stub called without <<<>>>),
 * then 0 again (cm_register.c). */
int cm_take_unconfigured_call(void);

/* Pointer -> the unsigned 64-bit integer passed to Python ("K" in a format). */
#define CM_P(p) ((unsigned long long)(uintptr_t)(p))

#endif
