/* libcumetal: the C functions behind cuGetProcAddress / cudaGetDriverEntryPoint. A program (or CCCL's
 * cuda::stream, cuda::device_ref, ...) calls the pointer it gets, so it must be the address of this
 * library's exported C function with the ABI of the requested CUDA version — never a Python object.
 * Most exported names already carry CUDA 13's ABI (their _v2/_v3 names are aliases); the table lists
 * the names whose ABI changed and for which this library keeps more than one form. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include "cm_core.h"
#include "cm_proc_address.h"

struct proc_version {
    const char *name;
    int since;          /* the CUDA version (1000 major + 10 minor) that introduced this ABI */
    const char *symbol; /* this library's function with that ABI; NULL: not provided */
};

/* Newest first for each name (CUDA Driver API documentation, "Driver Entry Point Access" and the
 * versioned names in cudaTypedefs.h). */
static const struct proc_version VERSIONS[] = {
    {"cuCtxCreate", 12050, "cuCtxCreate"},      /* CUctxCreateParams form (CUDA 13's cuCtxCreate) */
    {"cuCtxCreate", 11040, NULL},               /* the execution-affinity form: not provided */
    {"cuCtxCreate", 3020, "cuCtxCreate_v2"},    /* (pctx, flags, dev) */
    {"cuStreamGetCtx", 12050, "cuStreamGetCtx_v2"},
    {"cuStreamGetCtx", 0, "cuStreamGetCtx"},
};

static void *self_handle(void) {
    static void *handle;
    if (!handle) {
        Dl_info info;
        if (dladdr((void *)&cm_resolve_proc, &info) && info.dli_fname)
            handle = dlopen(info.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
    }
    return handle;
}

static void *lookup(const char *symbol) {
    void *handle = self_handle();
    return handle ? dlsym(handle, symbol) : NULL;
}

void cm_resolve_proc(const char *symbol, int cuda_version, void **pfn, int *status) {
    if (!symbol || !pfn || *status != 0)
        return;
    void *fn = NULL;
    int listed = 0;
    for (size_t i = 0; i < sizeof VERSIONS / sizeof VERSIONS[0]; i++) {
        if (strcmp(VERSIONS[i].name, symbol) == 0) {
            listed = 1;
            if (cuda_version >= VERSIONS[i].since) {
                fn = VERSIONS[i].symbol ? lookup(VERSIONS[i].symbol) : NULL;
                break;
            }
        }
    }
    if (!listed && strncmp(symbol, "cu", 2) == 0 && strncmp(symbol, "cuda", 4) != 0) {
        fn = lookup(symbol);
        const char *v = strrchr(symbol, '_');
        if (!fn && v && v[1] == 'v' && v[2] >= '2' && v[2] <= '9' && v[3] == '\0' && (size_t)(v - symbol) < 128) {
            char base[128]; /* a versioned name asked for directly: the plain export has that ABI */
            memcpy(base, symbol, (size_t)(v - symbol));
            base[v - symbol] = '\0';
            fn = lookup(base);
        }
    }
    *pfn = fn;
    if (!fn)
        *status = 1;
}
