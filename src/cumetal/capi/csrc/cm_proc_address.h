/* libcumetal: driver entry points by name (cuGetProcAddress, cudaGetDriverEntryPoint). */
#ifndef CUMETAL_CAPI_PROC_ADDRESS_H
#define CUMETAL_CAPI_PROC_ADDRESS_H

#include "cm_buildinfo.h"

#define CM_PROC_CURRENT_VERSION CM_DRIVER_VERSION

/* After Python has checked the arguments and set *status (0 found, 1 symbol not found, 2 version not
 * sufficient — the values of CUdriverProcAddressQueryResult and cudaDriverEntryPointQueryResult):
 * store in *pfn the address of this library's C function that has the ABI `symbol` had in CUDA
 * `cuda_version`, or NULL with *status 1 where this library has none. */
void cm_resolve_proc(const char *symbol, int cuda_version, void **pfn, int *status);

#endif
