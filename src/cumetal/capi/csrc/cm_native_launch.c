/* libcumetal: the native launch path (see cm_native_launch.h and docs/c-abi.md, "Native launches").
 *
 * Plans. After a launch from C has gone through Python (cumetal.capi.bridge_launch), the Python side
 * (devices/native_launch.py) may arm a plan for its key (host function, grid, block, dynamic shared
 * bytes, stream): the parameter layout, the stream's doorbell, and what running it takes (the air-sim
 * runtime's sim_run and the prepared launch record of the compiled kernel). A later launch with the
 * same key copies its arguments into an entry of the doorbell and returns: no Python.
 *
 * The epoch. Every plan holds the epoch it was armed in and is used only while the epoch is unchanged.
 * The epoch moves whenever something a plan assumes may have changed: any entry point that goes into
 * Python except the few listed in `cm_keeps_plans` (so a capture, an attribute, a device switch, a
 * stream creation, an allocation ... all invalidate), a device allocation or free (Python), a fault.
 * A stale plan sends the launch to Python, which validates it again and may arm the plan again.
 *
 * Running. The doorbell's entries become one operation of the stream's queue (stream_worker.py); that
 * operation calls cm_native_run under the device's execution locks, which runs entries until one needs
 * Python (a plan made stale after the entry was enqueued, a launch record another launch changed) or
 * faults: that entry then runs through the device's Python launch (the fault's full report), and the
 * rest of the batch continues. */
#include "cm_native_launch.h"

#include <pthread.h>
#include <stddef.h>
#include <string.h>

#define NL_MAX_PARAMS 128
#define NL_MAX_BYTES 4096 /* larger parameter blocks take the Python path */
#define NL_SLOTS 1024     /* plans; when full, new keys take the Python path */

/* What the Python side fills (devices/native_launch.py mirrors it with ctypes: keep them together). */
typedef struct {
    uint64_t func, stream, shared; /* the key, with grid, block and thread */
    uint64_t thread;               /* pthread_self() of the launching thread: its current context/device */
    uint32_t grid[3], block[3];
    uint64_t epoch; /* the epoch the plan was armed in */
    uint32_t nparams, param_size;
    uint32_t offset[NL_MAX_PARAMS], size[NL_MAX_PARAMS];
    uint64_t bell;  /* the stream's cm_bell */
    uint64_t push;  /* int cm_bell_push(cm_bell *, const void *entry, size_t bytes, int64_t burst) */
    int64_t burst;
    uint64_t sim_run; /* int sim_run(sim_launch *) */
    uint64_t launch;  /* the prepared sim_launch */
    uint64_t scratch_params, scratch_info;
    uint64_t info; /* the launch_info bytes to copy to scratch_info */
    uint64_t info_len;
    uint64_t code;        /* uint32_t *: launch_info's fault-code word */
    uint64_t fault;       /* int32_t *: launch->fault */
    uint64_t first_block; /* uint64_t *: launch->first_block (tiering sets it; 0 for a whole launch) */
} cm_plan_desc;

typedef struct {
    uint32_t slot, bytes; /* bytes: the whole entry, a multiple of 8 */
    unsigned char params[];
} cm_entry;

typedef struct {
    uint64_t version, desc_size, epoch, bump, plan_set, run, launches, entry_header;
} cm_native_api;

static pthread_mutex_t nl_mu = PTHREAD_MUTEX_INITIALIZER; /* the slots (the launch path reads them under it) */
static cm_plan_desc nl_slots[NL_SLOTS];
static unsigned char nl_used[NL_SLOTS];
static int nl_armed;            /* a plan was ever armed */
static uint64_t nl_epoch = 1;   /* (atomic) */
static uint64_t nl_launches;    /* (atomic) launches enqueued natively */

static void nl_bump(void) { __atomic_add_fetch(&nl_epoch, 1, __ATOMIC_SEQ_CST); }

static uint32_t nl_hash(uint64_t func, uint64_t stream, uint64_t shared, uint64_t thread, const uint32_t *g,
                        const uint32_t *b) {
    uint64_t h = func * 0x9E3779B97F4A7C15ull ^ stream * 0xC2B2AE3D27D4EB4Full ^ shared ^ thread * 0x94D049BB133111EBull;
    h ^= ((uint64_t)g[0] << 32 | g[1]) * 0x165667B19E3779F9ull ^ ((uint64_t)g[2] << 32 | b[0]);
    h ^= ((uint64_t)b[1] << 32 | b[2]) * 0x27D4EB2F165667C5ull;
    return (uint32_t)(h ^ h >> 29) % NL_SLOTS;
}

static int nl_same(const cm_plan_desc *p, uint64_t func, uint64_t stream, uint64_t shared, uint64_t thread,
                   const uint32_t *g, const uint32_t *b) {
    return p->func == func && p->stream == stream && p->shared == shared && p->thread == thread && p->grid[0] == g[0] &&
           p->grid[1] == g[1] && p->grid[2] == g[2] && p->block[0] == b[0] && p->block[1] == b[1] &&
           p->block[2] == b[2];
}

/* (under nl_mu) the slot of the key, or where it would go (-1: the table is full) */
static int nl_find(uint64_t func, uint64_t stream, uint64_t shared, uint64_t thread, const uint32_t *g,
                   const uint32_t *b, int *found) {
    uint32_t h = nl_hash(func, stream, shared, thread, g, b);
    for (uint32_t i = 0; i < NL_SLOTS; i++) {
        uint32_t s = (h + i) % NL_SLOTS;
        if (!nl_used[s]) {
            *found = 0;
            return (int)s;
        }
        if (nl_same(&nl_slots[s], func, stream, shared, thread, g, b)) {
            *found = 1;
            return (int)s;
        }
    }
    *found = 0;
    return -1;
}

static void nl_after_fork_in_child(void);
static void nl_register_atfork(void) { pthread_atfork(NULL, NULL, nl_after_fork_in_child); }

/* A forked child has none of the parent's stream workers: its launches take the Python path. */
static void nl_after_fork_in_child(void) { __atomic_store_n(&nl_armed, 0, __ATOMIC_RELEASE); }

/* Python: arm (or re-arm) the plan of desc's key; the slot, or -1 (table full, bad layout). Under the
 * mutex (cm_native_run copies a slot under it); a re-armed slot keeps its key, so entries already
 * enqueued for it stay valid, and Python keeps every object a plan points into alive. */
static int nl_plan_set(const cm_plan_desc *d) {
    static pthread_once_t atfork = PTHREAD_ONCE_INIT;
    if (d->nparams > NL_MAX_PARAMS || d->param_size > NL_MAX_BYTES) return -1;
    pthread_once(&atfork, nl_register_atfork);
    for (uint32_t i = 0; i < d->nparams; i++)
        if ((uint64_t)d->offset[i] + d->size[i] > d->param_size) return -1;
    pthread_mutex_lock(&nl_mu);
    int found;
    int s = nl_find(d->func, d->stream, d->shared, d->thread, d->grid, d->block, &found);
    if (s >= 0) {
        nl_slots[s] = *d;
        nl_used[s] = 1;
        __atomic_store_n(&nl_armed, 1, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&nl_mu);
    return s;
}

/* The launch path of both APIs: `func` is the key's function (a host function's address, or a driver
 * CUfunction with bit 63 set), `params` the argument pointers. */
static int nl_launch(uint64_t func, const unsigned int grid[3], const unsigned int block[3], void **params,
                     uint64_t shared, uint64_t stream) {
    if (!__atomic_load_n(&nl_armed, __ATOMIC_ACQUIRE)) return 0;
    if (stream == 1 || stream == 2) return 0; /* the legacy / per-thread null stream handles: per-thread meaning */
    union {
        cm_entry e;
        uint64_t align[(sizeof(cm_entry) + NL_MAX_BYTES) / 8 + 1];
    } buf;
    uint64_t epoch = __atomic_load_n(&nl_epoch, __ATOMIC_ACQUIRE), thread = (uint64_t)pthread_self();
    int handled = 0, found;
    pthread_mutex_lock(&nl_mu);
    int s = nl_find(func, stream, shared, thread, grid, block, &found);
    if (s >= 0 && found && nl_slots[s].epoch == epoch) {
        const cm_plan_desc *p = &nl_slots[s];
        int ok = p->nparams == 0 || params != NULL;
        for (uint32_t i = 0; ok && i < p->nparams; i++) {
            if (params[i] == NULL) ok = 0; /* the Python path reports it */
            else memcpy(buf.e.params + p->offset[i], params[i], p->size[i]);
        }
        if (ok) {
            buf.e.slot = (uint32_t)s;
            buf.e.bytes = (uint32_t)((sizeof(cm_entry) + p->param_size + 7) / 8 * 8);
            int (*push)(void *, const void *, size_t, int64_t) =
                (int (*)(void *, const void *, size_t, int64_t))(uintptr_t)p->push;
            handled = push((void *)(uintptr_t)p->bell, &buf.e, buf.e.bytes, p->burst) == 0;
        }
    }
    pthread_mutex_unlock(&nl_mu);
    if (handled) __atomic_add_fetch(&nl_launches, 1, __ATOMIC_RELAXED);
    return handled;
}

int cm_native_launch(const void *func, const unsigned int grid[3], const unsigned int block[3], void **args,
                     size_t shared, const void *stream) {
    return nl_launch((uint64_t)(uintptr_t)func, grid, block, args, (uint64_t)shared, (uint64_t)(uintptr_t)stream);
}

int cm_native_launch_driver(const void *function, const unsigned int grid[3], const unsigned int block[3],
                            void **params, void **extra, unsigned int shared, const void *stream) {
    if (extra != NULL) return 0; /* (the packed-buffer form: the Python path) */
    return nl_launch((uint64_t)(uintptr_t)function | CM_NATIVE_DRIVER_KEY, grid, block, params, shared,
                     (uint64_t)(uintptr_t)stream);
}

/* Python (the stream's operation, holding the device's execution locks): run the entries of
 * buf[*pos .. len) in order. 0: all ran; 1: the entry at *pos needs the Python path (its plan went
 * stale, or the launch record is set for part of a grid); 2: the entry at *pos faulted (the epoch
 * moves: the Python path reruns it for the report). */
static int nl_run(const unsigned char *buf, uint64_t len, uint64_t *pos) {
    while (*pos < len) {
        const cm_entry *e = (const cm_entry *)(buf + *pos);
        cm_plan_desc p; /* (the run fields, read under the mutex: Python may re-arm the slot meanwhile) */
        pthread_mutex_lock(&nl_mu);
        memcpy(&p, &nl_slots[e->slot], offsetof(cm_plan_desc, offset));
        memcpy(&p.bell, &nl_slots[e->slot].bell, sizeof p - offsetof(cm_plan_desc, bell));
        pthread_mutex_unlock(&nl_mu);
        if (p.epoch != __atomic_load_n(&nl_epoch, __ATOMIC_ACQUIRE) ||
            *(volatile uint64_t *)(uintptr_t)p.first_block != 0)
            return 1;
        memcpy((void *)(uintptr_t)p.scratch_params, e->params, p.param_size);
        memcpy((void *)(uintptr_t)p.scratch_info, (const void *)(uintptr_t)p.info, p.info_len);
        ((int (*)(void *))(uintptr_t)p.sim_run)((void *)(uintptr_t)p.launch);
        if (*(volatile uint32_t *)(uintptr_t)p.code != 0 || *(volatile int32_t *)(uintptr_t)p.fault != 0) {
            nl_bump();
            return 2;
        }
        *pos += e->bytes;
    }
    return 0;
}

static cm_native_api nl_api;

unsigned long long cm_native_api_address(void) {
    if (nl_api.version == 0) { /* (filled once; racing fills write the same values) */
        nl_api.desc_size = sizeof(cm_plan_desc);
        nl_api.epoch = (uint64_t)(uintptr_t)&nl_epoch;
        nl_api.bump = (uint64_t)(uintptr_t)&nl_bump;
        nl_api.plan_set = (uint64_t)(uintptr_t)&nl_plan_set;
        nl_api.run = (uint64_t)(uintptr_t)&nl_run;
        nl_api.launches = (uint64_t)(uintptr_t)&nl_launches;
        nl_api.entry_header = sizeof(cm_entry);
        __atomic_store_n(&nl_api.version, 1, __ATOMIC_RELEASE);
    }
    return (unsigned long long)(uintptr_t)&nl_api;
}

/* Entry points that cannot change what a plan assumes: they wait, copy, record, or read errors. */
static const char *const cm_keeps_plans[] = {
    "cudaLaunchKernelPlanned", "cudaDeviceSynchronize", "cudaStreamSynchronize", "cudaStreamQuery",
    "cudaStreamWaitEvent", "cudaEventRecordWithFlags", "cudaEventQuery", "cudaEventSynchronize",
    "cudaEventElapsedTime", "cudaEventCreateWithFlags", "cudaEventDestroy", "cudaGetLastError",
    "cudaPeekAtLastError", "cudaGetErrorString", "cudaGetErrorName", "cudaMemcpyAsync", "cudaMemset2DAsync",
    "cudaMemcpyToSymbolAsync", "cudaMemcpyFromSymbolAsync",
    "drv_cuLaunchKernelPlanned", "drv_cuCtxSynchronize", "drv_cuStreamSynchronize", "drv_cuStreamQuery",
    "drv_cuStreamWaitEvent", "drv_cuEventRecord", "drv_cuEventQuery", "drv_cuEventSynchronize",
    "drv_cuEventElapsedTime", "drv_cuEventCreate", "drv_cuEventDestroy", "drv_memcpy", "drv_memset",
    "drv_cuGetErrorName", "drv_cuGetErrorString",
};

void cm_native_note_call(const char *name) {
    if (!__atomic_load_n(&nl_armed, __ATOMIC_ACQUIRE)) return;
    for (size_t i = 0; i < sizeof cm_keeps_plans / sizeof cm_keeps_plans[0]; i++)
        if (strcmp(name, cm_keeps_plans[i]) == 0) return;
    nl_bump();
}
