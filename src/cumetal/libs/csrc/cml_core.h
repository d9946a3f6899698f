/* The C core shared by CuMetal's CUDA libraries (cuBLAS, cuBLASLt, cuRAND): each exported function
 * marshals its arguments into a call of a Python function in cumetal.libs.<library>.capi, which
 * does the work and returns the library's status code. Python is started (or joined) through
 * libcumetal, so the libraries share the program's one interpreter and CUDA runtime. */
#ifndef CUMETAL_LIBS_CORE_H
#define CUMETAL_LIBS_CORE_H

#include <stdint.h>

#define CML_EXPORT __attribute__((visibility("default")))

enum cml_module { CML_CUBLAS = 0, CML_CUBLASLT = 1, CML_CURAND = 2, CML_MODULES = 3 };

/* The value cml_call returns when Python could not run the call (no interpreter, import failure,
 * an exception escaping the Python side); each library maps it to its own error status. */
#define CML_FAILED (-0x7fffffffLL)

/* cumetal.libs.<module>.capi.<name>(*Py_BuildValue(fmt, ...)) -> int */
long long cml_call(enum cml_module module, const char *name, const char *fmt, ...);

#define CML_P(p) ((unsigned long long)(uintptr_t)(p))

#endif
