/* CuMetal libraries: call into cumetal.libs.<library>.capi (see cml_core.h).
 *
 * The interpreter is libcumetal's: the first call of each C thread goes through one harmless
 * Runtime API call (cudaPeekAtLastError), which starts Python if the process has none and gives the
 * thread a Python thread state it keeps for its life (as every libcumetal call does). After that
 * the GIL is taken around each call. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>

#include "cml_core.h"

extern int cudaPeekAtLastError(void); /* libcumetal */

static const char *const module_names[CML_MODULES] = {"cumetal.libs.cublas.capi", "cumetal.libs.cublas.lt_capi",
                                                      "cumetal.libs.curand.capi"};
static PyObject *modules[CML_MODULES]; /* imported on first use, under the GIL */
static __thread int thread_ready;

static int cml_enter_thread(void) {
    if (!thread_ready) {
        int err = cudaPeekAtLastError();
        if (err == 3 /* cudaErrorInitializationError: libcumetal explained why on stderr */ || !Py_IsInitialized())
            return 0;
        thread_ready = 1;
    }
    return 1;
}

long long cml_call(enum cml_module module, const char *name, const char *fmt, ...) {
    if (!cml_enter_thread())
        return CML_FAILED;
    fflush(stdout); /* keep the program's output ahead of anything Python writes */
    PyGILState_STATE gil = PyGILState_Ensure();
    long long v = CML_FAILED;
    if (modules[module] == NULL) {
        modules[module] = PyImport_ImportModule(module_names[module]);
        if (modules[module] == NULL) {
            fprintf(stderr, "cumetal: cannot import %s:\n", module_names[module]);
            PyErr_Print();
            PyGILState_Release(gil);
            return CML_FAILED;
        }
    }
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    if (args != NULL && !PyTuple_Check(args)) {
        PyObject *t = PyTuple_Pack(1, args);
        Py_DECREF(args);
        args = t;
    }
    PyObject *fn = args ? PyObject_GetAttrString(modules[module], name) : NULL;
    PyObject *res = fn ? PyObject_Call(fn, args, NULL) : NULL;
    if (res != NULL) {
        v = PyLong_AsLongLong(res);
        if (v == -1 && PyErr_Occurred())
            v = CML_FAILED;
        Py_DECREF(res);
    }
    if (PyErr_Occurred()) {
        fprintf(stderr, "cumetal: internal error in %s.%s:\n", module_names[module], name);
        PyErr_Print();
        v = CML_FAILED;
    }
    Py_XDECREF(fn);
    Py_XDECREF(args);
    PyGILState_Release(gil);
    return v;
}
