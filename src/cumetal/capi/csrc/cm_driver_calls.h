/* libcumetal: how the Driver API sources call into Python. DRV passes the arguments (built by
 * Py_BuildValue's format) to cumetal.capi.bridge's "drv_"-prefixed function of the same name. Each
 * function is also exported under the versioned name NVIDIA's cuda.h maps it to (ALIAS), so
 * programs compiled against either header link. */
#ifndef CUMETAL_CAPI_DRIVER_CALLS_H
#define CUMETAL_CAPI_DRIVER_CALLS_H

#include "cm_core.h"

#define K(x) ((unsigned long long)(x))
#define DRV(name, fmt, ...) return (CUresult)cm_call("drv_" name, fmt, __VA_ARGS__)
#define DRV0(name) return (CUresult)cm_call("drv_" name, "()")
#if defined(__APPLE__) /* Mach-O has no symbol aliases; the versioned names exist only on ELF */
#define ALIAS(versioned, plain)
#else
#define ALIAS(versioned, plain) \
    CM_EXPORT __typeof__(plain) versioned __attribute__((alias(#plain)));
#endif

#endif
