/* libcumetal core: start (or join) the Python interpreter and call into cumetal.capi.bridge.
 *
 * Interpreter: if the process has none (a C/C++ program), one is created on the first CUDA call
 * with an isolated configuration (no PYTHON* environment variables, no signal handlers, C stdio
 * untouched) whose program name is the Python that built this library, so sys.prefix, a venv's
 * site-packages and editable installs resolve exactly as for that Python, from any shell. The
 * sys.path entries of the building Python are appended too (cm_buildinfo.h), and
 * $CUMETAL_PYTHONPATH is prepended when set. If the process already runs Python (the library was
 * loaded with ctypes), that interpreter is used.
 *
 * Threads: a C thread that has no Python thread state gets one on its first call and keeps it for
 * its lifetime, so Python's per-thread state (the CUDA per-thread last error, the per-thread
 * default stream) survives between calls. The GIL is held only while Python runs. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__linux__)
#include <sys/syscall.h>
#endif

#include "cm_buildinfo.h"
#include "cm_core.h"
#include "cm_native_launch.h"

static pthread_once_t cm_once = PTHREAD_ONCE_INIT;
static PyObject *cm_bridge;      /* cumetal.capi.bridge, owned for the life of the process */
static int cm_init_failed;
static __thread int cm_thread_kept; /* this C thread owns a Python thread state created by us */

static void cm_fail(const char *what) {
    fprintf(stderr,
            "libcumetal: %s.\n"
            "libcumetal: this library was built for the Python at %s; CuMetal must be importable\n"
            "libcumetal: there (pip install cumetal), or name its location in $CUMETAL_PYTHONPATH.\n",
            what, CM_PY_EXECUTABLE);
    fflush(stderr);
    cm_init_failed = 1;
}

static void cm_path_add(PyObject *sys_path, const char *entry, int front) {
    PyObject *s = PyUnicode_DecodeFSDefault(entry);
    if (s == NULL) {
        PyErr_Clear();
        return;
    }
    int present = PySequence_Contains(sys_path, s);
    if (present == 0) {
        if (front)
            PyList_Insert(sys_path, 0, s);
        else
            PyList_Append(sys_path, s);
    }
    PyErr_Clear();
    Py_DECREF(s);
}

/* Split a PATH-like list (':' separated) and add each entry. */
static void cm_path_add_list(PyObject *sys_path, const char *list, int front) {
    if (list == NULL || *list == '\0')
        return;
    char *copy = strdup(list);
    if (copy == NULL)
        return;
    char *save = NULL;
    /* front: insert in reverse so the first entry ends up first */
    char *items[256];
    int n = 0;
    for (char *tok = strtok_r(copy, ":", &save); tok && n < 256; tok = strtok_r(NULL, ":", &save))
        items[n++] = tok;
    if (front)
        for (int i = n - 1; i >= 0; i--)
            cm_path_add(sys_path, items[i], 1);
    else
        for (int i = 0; i < n; i++)
            cm_path_add(sys_path, items[i], 0);
    free(copy);
}

static void cm_at_exit(void);
static void cm_arm_main_thread_exit(void);
CM_EXPORT void cm_rearm_exit_handler(void);

/* Signal dispositions belong to the program: Python code (or a library it imports) may install its
 * own SIGINT handler, which would turn Ctrl-C into a KeyboardInterrupt inside a CUDA call instead of
 * ending the program (or running the program's handler). When CuMetal starts the interpreter, the
 * dispositions before the start are put back after it, and SIGINT's before each call is put back
 * after the call if Python changed it (the program may install handlers at any time itself). */
static const int cm_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE, SIGXFSZ};
#define CM_NSIGNALS (int)(sizeof cm_signals / sizeof cm_signals[0])
static struct sigaction cm_saved_actions[CM_NSIGNALS];
static int cm_guard_signals;

static void cm_save_signals(void) {
    for (int i = 0; i < CM_NSIGNALS; i++)
        sigaction(cm_signals[i], NULL, &cm_saved_actions[i]);
    cm_guard_signals = 1;
}

static void cm_restore_signals(void) { /* after the interpreter's start */
    for (int i = 0; i < CM_NSIGNALS; i++) {
        struct sigaction now;
        if (sigaction(cm_signals[i], NULL, &now) == 0 && now.sa_handler != cm_saved_actions[i].sa_handler)
            sigaction(cm_signals[i], &cm_saved_actions[i], NULL);
    }
}

/* A program may load this library itself with dlopen(RTLD_LOCAL) (NVIDIA's matrixMulDynlinkJIT opens
 * "libcuda.so.1"; so does the opt-in shim): libpython's symbols then stay local and Python's
 * extension modules (_ctypes…) fail to load. Make libpython global before starting Python. */
static void cm_promote_libpython(void) {
    Dl_info info;
    if (dladdr((void *)&Py_InitializeFromConfig, &info) && info.dli_fname != NULL)
        (void)dlopen(info.dli_fname, RTLD_NOW | RTLD_GLOBAL | RTLD_NOLOAD);
}

/* Whether the process's locale settings (LC_ALL, else LC_CTYPE, else LANG: the first set one decides)
 * ask for UTF-8. The isolated configuration leaves Python's stdio ASCII (LC_CTYPE stays "C" in the
 * host program, whose locale libcumetal must not change), which printed CuMetal's messages' em dashes
 * and >= signs as \u escapes. */
static int cm_env_wants_utf8(void) {
    const char *names[] = {"LC_ALL", "LC_CTYPE", "LANG"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *v = getenv(names[i]);
        if (v == NULL || *v == '\0')
            continue;
        char low[64];
        size_t n = 0;
        for (; v[n] != '\0' && n + 1 < sizeof low; n++)
            low[n] = (char)((v[n] >= 'A' && v[n] <= 'Z') ? v[n] - 'A' + 'a' : v[n]);
        low[n] = '\0';
        return strstr(low, "utf-8") != NULL || strstr(low, "utf8") != NULL;
    }
    return 0;
}

static void cm_init(void) {
    int created = 0;
    PyGILState_STATE gil = PyGILState_UNLOCKED;
    if (!Py_IsInitialized()) {
        cm_promote_libpython();
        cm_save_signals();
        PyConfig config;
        PyConfig_InitIsolatedConfig(&config);
        config.install_signal_handlers = 0;
        config.parse_argv = 0;
        config.site_import = 1;
        PyStatus st = PyConfig_SetBytesString(&config, &config.program_name, CM_PY_EXECUTABLE);
        if (!PyStatus_Exception(st) && cm_env_wants_utf8())
            st = PyConfig_SetString(&config, &config.stdio_encoding, L"utf-8");
        if (!PyStatus_Exception(st))
            st = Py_InitializeFromConfig(&config);
        PyConfig_Clear(&config);
        if (PyStatus_Exception(st)) {
            fprintf(stderr, "libcumetal: cannot start Python: %s\n", st.err_msg ? st.err_msg : "unknown error");
            cm_fail("the embedded Python interpreter did not start");
            return;
        }
        created = 1;
    } else {
        gil = PyGILState_Ensure();
    }
    PyObject *sys_path = PySys_GetObject("path"); /* borrowed */
    if (sys_path != NULL && PyList_Check(sys_path)) {
        cm_path_add_list(sys_path, CM_PY_PATH, 0);
        cm_path_add_list(sys_path, getenv("CUMETAL_PYTHONPATH"), 1);
    }
    cm_bridge = PyImport_ImportModule("cumetal.capi.bridge");
    if (cm_bridge == NULL) {
        PyErr_Print();
        cm_fail("cannot import the Python side of CuMetal (cumetal.capi.bridge)");
    }
    if (created && cm_bridge != NULL) { /* a C program: its driver contexts are asynchronous, as CUDA's */
        PyObject *res = PyObject_CallMethod(cm_bridge, "started_by_library", "K",
                                            (unsigned long long)(uintptr_t)cm_rearm_exit_handler);
        if (res == NULL)
            PyErr_Print();
        Py_XDECREF(res);
    }
    if (created) {
        cm_thread_kept = 1;
        PyEval_SaveThread(); /* keep this thread's state; release the GIL */
    } else {
        PyGILState_Release(gil);
    }
    if (!cm_init_failed) {
        atexit(cm_at_exit);
        if (created)
            cm_arm_main_thread_exit();
    }
    if (cm_guard_signals)
        cm_restore_signals();
}

static PyGILState_STATE cm_enter(void) {
    if (!cm_thread_kept && PyGILState_GetThisThreadState() == NULL) {
        /* a C thread new to Python: create its thread state and keep it (counter stays >= 1) */
        PyGILState_Ensure();
        cm_thread_kept = 1;
        PyEval_SaveThread();
    }
    return PyGILState_Ensure();
}

static long long cm_result(PyObject *res, const char *name) {
    if (res == NULL) {
        fprintf(stderr, "libcumetal: internal error in %s:\n", name);
        PyErr_Print();
        return CM_ERR_UNKNOWN;
    }
    long long v = PyLong_AsLongLong(res);
    if (v == -1 && PyErr_Occurred()) {
        fprintf(stderr, "libcumetal: internal error in %s: the bridge returned a non-integer\n", name);
        PyErr_Clear();
        v = CM_ERR_UNKNOWN;
    }
    Py_DECREF(res);
    return v;
}

long long cm_call(const char *name, const char *fmt, ...) {
    pthread_once(&cm_once, cm_init);
    if (cm_init_failed)
        return CM_ERR_NOT_INITIALIZED;
    cm_native_note_call(name); /* most calls invalidate the native launch plans (cm_native_launch.c) */
    fflush(stdout); /* keep the program's own output ahead of device printf written by Python */
    struct sigaction sigint_before;
    if (cm_guard_signals)
        sigaction(SIGINT, NULL, &sigint_before);
    PyGILState_STATE gil = cm_enter();
    long long v = CM_ERR_UNKNOWN;
    va_list ap;
    va_start(ap, fmt);
    PyObject *args = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    if (args != NULL && !PyTuple_Check(args)) {
        PyObject *t = PyTuple_Pack(1, args);
        Py_DECREF(args);
        args = t;
    }
    PyObject *fn = args ? PyObject_GetAttrString(cm_bridge, name) : NULL;
    if (fn != NULL) {
        v = cm_result(PyObject_Call(fn, args, NULL), name);
        Py_DECREF(fn);
    } else {
        fprintf(stderr, "libcumetal: internal error: bridge function %s unavailable\n", name);
        PyErr_Print();
    }
    Py_XDECREF(args);
    PyGILState_Release(gil);
    if (cm_guard_signals) {
        struct sigaction now;
        if (sigaction(SIGINT, NULL, &now) == 0 && now.sa_handler != sigint_before.sa_handler)
            sigaction(SIGINT, &sigint_before, NULL);
    }
    return v;
}

/* exit() runs atexit handlers and C++ static destructors in reverse order of registration, and a
 * function-local static of a library (LLVM's pass registry, ...) registers its destructor when it is
 * first used, i.e. after this handler was registered: LLVM's globals were destroyed before this
 * handler could wait for a compile or a launch still using them (heap corruption, aborts at exit).
 * So Python registers the handler again after each use of LLVM (cm_rearm_exit_handler); it runs
 * once, at the first of its registrations that exit() reaches, ahead of those destructors. */
static int cm_exit_ran = 0;

CM_EXPORT void cm_rearm_exit_handler(void) {
    if (!cm_init_failed && !cm_exit_ran)
        atexit(cm_at_exit);
}

/* Re-registering is not enough when exit() comes while a compile runs: the compile registers LLVM's
 * function-local statics as it first uses them (SelectionDAG's value-type list, X86 fold tables...)
 * after the last re-registration, and exit() destroys them under it (memMapIPCDrv: "MVT::
 * getSizeInBits ... Unexpected value type"). glibc's exit() runs the exiting thread's thread_local
 * destructors before any atexit handler (__call_tls_dtors, since glibc 2.18), so on the main thread,
 * which returns from main() or calls exit() in nearly every program, one such destructor runs the
 * exit work ahead of everything registered later. (It also runs if the main thread ends with
 * pthread_exit while others go on: Python's exit hooks then run early, a documented limit.)
 * Elsewhere (no __cxa_thread_atexit_impl: macOS, musl) the re-registration alone remains. */
#if defined(__linux__)
extern int __cxa_thread_atexit_impl(void (*fn)(void *), void *obj, void *dso_symbol) __attribute__((weak));

static void cm_main_thread_exit(void *unused) {
    (void)unused;
    cm_at_exit();
}

static void cm_arm_main_thread_exit(void) {
    if (__cxa_thread_atexit_impl != NULL && (pid_t)syscall(SYS_gettid) == getpid())
        __cxa_thread_atexit_impl(cm_main_thread_exit, NULL, (void *)&cm_main_thread_exit);
}
#else
static void cm_arm_main_thread_exit(void) {}
#endif

static void cm_at_exit(void) {
    if (cm_exit_ran)
        return;
    cm_exit_ran = 1;
    fflush(stdout);
    fflush(stderr);
    if (cm_init_failed || cm_bridge == NULL || !Py_IsInitialized())
        return;
    PyGILState_STATE gil = cm_enter();
    PyObject *res = PyObject_CallMethod(cm_bridge, "at_exit", NULL);
    if (res == NULL)
        PyErr_Clear();
    Py_XDECREF(res);
    PyGILState_Release(gil);
}
