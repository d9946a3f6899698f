/* air-sim / cpu-jit runtime: CPU implementations of the air.* functions CuMetal's AIR uses, and a
 * scheduler that runs threadgroups on worker threads (one threadgroup at a time per worker; one
 * worker = the calling thread, deterministic).
 *
 * Kernels without barrier or SIMD-group calls run a whole threadgroup through the JIT's work-group
 * function (a loop over the threads with the kernel inlined: no per-thread call or switch).
 *
 * Each GPU thread is a fiber (ucontext) on one OS thread. A fiber runs until it reaches a
 * threadgroup barrier, a SIMD-group operation, a wait point, finishes, or faults. SIMD-group
 * operations are resolved per SIMD-group once all its unfinished lanes are blocked: among the
 * sites its lanes wait at, the earliest in program order (instrument.py numbers them; min-PC, as
 * the numpy engine), with the lanes waiting there as the active set. A barrier is released when
 * every unfinished thread of the group waits at one. A wait point (a legalized mbarrier or named
 * barrier wait, instrument.py wait_points) parks its thread until nothing else in the threadgroup
 * can run; then the parked threads look again. When they come back to the same wait points and
 * nothing they wait on changed, the threadgroup is deadlocked: a timeout naming the deadlock, at
 * once rather than at the watchdog. Device accesses are checked against the allocation table
 * (the instrumented loads/stores and the atomics call sim_check) and a fault stops the launch
 * with a code instead of touching memory. The watchdog is checked at loop headers and yields.
 *
 * Symbols are named after the air.* functions with '.' replaced by '_'; Python registers them
 * under their dotted names for the JIT.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#include <setjmp.h>
#include <ucontext.h>
#include <sys/mman.h>
#include <pthread.h>
#include <unistd.h>
#include <sched.h>

#include "cumetal_codes.h"  /* the numbers shared with Python (generated from backends/common/codes.py) */

enum { K_PTR = CM_ARG_PTR, K_TID = CM_ARG_TID, K_CTAID = CM_ARG_CTAID, K_NTID = CM_ARG_NTID, K_NCTAID = CM_ARG_NCTAID,
       K_TINDEX = CM_ARG_TINDEX, K_LANE = CM_ARG_LANE, K_WARP = CM_ARG_WARP, K_SHARED = CM_ARG_SHARED };
enum { F_NONE = CM_FAULT_NONE, F_ILLEGAL = CM_FAULT_ILLEGAL_ADDRESS, F_MISALIGNED = CM_FAULT_MISALIGNED_ADDRESS,
       F_TRAP = CM_FAULT_TRAP, F_ILLINSTR = CM_FAULT_ILLEGAL_INSTRUCTION, F_TIMEOUT = CM_FAULT_TIMEOUT,
       F_INTERNAL = CM_FAULT_INTERNAL };
enum { S_RUN = 0, S_BAR, S_SIMD, S_DONE, S_WAIT };
enum { W_MBARRIER = CM_WAIT_MBARRIER, W_NAMED = CM_WAIT_NAMED, W_OTHER = CM_WAIT_OTHER }; /* wait point kinds
       (codes.py WaitKind, passed by instrument.py's sim_wait_point calls) */
enum { OP_SHUF32 = 1, OP_SHUF64, OP_SUM, OP_MIN_S, OP_MIN_U, OP_MAX_S, OP_MAX_U, OP_AND, OP_OR, OP_XOR,
       OP_SGBAR, OP_SUM_F32, OP_MIN_F32, OP_MAX_F32 };
enum { OP_GRID = 32 }; /* work-item mode: the resume point after a grid barrier (workitem.py OP_GRID) */

#define MAX_ARGS 32
#define MAX_AS3 8
#define MAX_WORKERS 64

/* One JIT copy of the kernel per worker: its own threadgroup globals and check-site caches. */
typedef struct {
    void (*entry)(uint8_t *slots);          /* one thread (fiber mode) */
    void (*wg)(uint8_t *slots);             /* one threadgroup: loop over the threads (NULL: none) */
    void *(*cstart)(uint8_t *slots, uint32_t t); /* the kernel as a coroutine: start thread t (NULL: none) */
    void (*cresume)(void *handle);          /* ... resume it after the barrier it waits at */
    uint64_t *sites;                        /* per check site: [window base, window limit] */
    int64_t nsites;
    uint64_t as3_lo[MAX_AS3], as3_hi[MAX_AS3];
    volatile uint32_t *susp; /* coroutine mode: what the thread that just suspended waits for */
    volatile uint32_t *order; /* program order of the SIMD-group call being made (instrument.py) */
    int32_t (*wgv)(uint8_t *slots); /* one threadgroup, vectorized when its probe passes (vectorize.py);
                                     * returns 1 when it ran vectorized (NULL: only wg) */
    /* work-item mode (workitem.py/.c): region r for threads t0..t1-1, returns their common exit code (NULL: none) */
    uint32_t (*wr)(uint8_t *slots, void *ctx, uint32_t r, uint32_t t0, uint32_t t1, uint32_t *state);
    const uint8_t *wrs;  /* per resume point: 1 when its region may reach a SIMD-group step */
    int64_t wnres;       /* resume points */
    uint64_t wctx;       /* context bytes per thread */
    int32_t wsteps;      /* the kernel has SIMD-group steps: run warp by warp */
    /* threadgroups g0..g1-1 (linear ids) through the probe and the vectorized loop in one call;
     * returns the first whose probe is not clean (not run), or g1 (vectorize.py RANGE; NULL: none) */
    uint64_t (*wgvn)(uint8_t *slots, uint64_t g0, uint64_t g1, uint32_t gx, uint32_t gy);
    /* work-item mode's exchanges (value-carrying SIMD-group operations, workitem.py _exchanges) */
    const uint8_t *wxop; /* per resume point: the OP_* of the exchange that ends there (0: none) */
    int64_t wxoff;       /* the exchange slots' offset in the context (per thread: value, argument) */
} sim_engine;

typedef struct {
    /* inputs */
    sim_engine *engines;
    int32_t nworkers;
    int32_t nargs;
    int32_t kinds[MAX_ARGS];
    uint64_t values[MAX_ARGS];
    uint32_t grid[3], block[3];
    const uint64_t *alloc_base, *alloc_size;
    int64_t nalloc;
    uint8_t *shared;
    uint64_t shared_size;
    int32_t nas3;
    double timeout_s; /* 0: none */
    uint64_t stack_size;
    int32_t direct; /* 1: the kernel has no barrier or SIMD-group call: run threads as plain calls */
    uint64_t extra_base, extra_size; /* one more valid region: the launch's parameters and launch_info */
    /* outputs */
    int32_t fault;
    uint64_t fault_addr;
    uint64_t blocks_run;
    char message[256];
    /* input, last so that the fields above keep their offsets: the first threadgroup to run (a
     * launch whose first threadgroups ran on the numpy engine: cpu_jit_device.py tiering) */
    uint64_t first_block;
    /* input: a cooperative launch (grid barriers; work-item kernels only): one worker runs every
     * threadgroup, taking turns at the grid barriers (workitem.c run_grid) */
    int32_t coop;
} sim_launch;

typedef struct {
    ucontext_t ctx;
    int state;
    int op;
    void *site;
    uint64_t order;          /* S_SIMD, S_WAIT: the call's place in program order (order_key) */
    uint64_t obase;          /* the places of the calls the thread is in (sim_enter) ... */
    int odepth;              /* ... and their number */
    uint32_t wkind, wcount;  /* S_WAIT: what it waits for (W_*), a named barrier's thread count */
    const void *wword;       /* ... the threadgroup word it waits on */
    uint64_t wseen;          /* ... that word when it parked (waited_word) */
    uint64_t val, arg, result;
    uint8_t *slots;
    uint8_t *stack;
    void *handle; /* coroutine mode: the thread's suspended coroutine (NULL: not started) */
    int started;
    jmp_buf jb; /* where the fiber resumes after a yield */
    uint64_t local_lo, local_hi; /* the thread's local memory (sim_local) */
} fiber;

/* Scheduler state: one set per worker thread (thread-local), so the JIT code's calls into the
 * runtime (checks, barriers, SIMD-group operations) find their own worker's threadgroup. */
static sim_launch *L;                    /* the launch (shared by the workers; outputs under fault_mu) */
typedef struct {
    fiber *fibers;
    int nfib, cur;
    ucontext_t sched_ctx;
    jmp_buf sched_jb;        /* where a yielding fiber returns to the scheduler */
    uint64_t ticks;
    jmp_buf direct_exit;     /* direct mode: where a faulting thread returns to */
    int64_t last_alloc;      /* one-entry cache of the allocation table lookup */
    sim_engine *engine;      /* this worker's JIT copy */
    uint8_t *shared;         /* this worker's threadgroup(0) buffer */
    uint64_t block;          /* the threadgroup this worker runs */
    int direct;              /* running without fibers (plain calls, work-group loop, coroutines) */
    uint8_t *frames;         /* coroutine mode: one frame per thread */
    uint64_t frame_stride;
    uint8_t *cst;            /* coroutine mode, per thread: S_* state */
    uint32_t *csite;         /* ... the warp step it waits at */
    void **chd;              /* ... its coroutine handle (NULL: not started) */
    int stalled;             /* the threadgroup's waiters were let go once already ... */
    uint64_t stall_sig;      /* ... from this state (stall()) */
} worker_state;
/* one pointer per OS thread, initial-exec: no __tls_get_addr call on the hot paths */
static __thread worker_state *WS __attribute__((tls_model("initial-exec")));
#define F (WS->fibers)
#define nfib (WS->nfib)
#define cur (WS->cur)
#define sched_ctx (WS->sched_ctx)
#define sched_jb (WS->sched_jb)
#define ticks (WS->ticks)
#define direct_exit (WS->direct_exit)
#define last_alloc (WS->last_alloc)
#define E (WS->engine)
#define W_shared (WS->shared)
#define W_block (WS->block)
#define W_direct (WS->direct)
static double deadline;
static pthread_mutex_t fault_mu = PTHREAD_MUTEX_INITIALIZER;
/* work distribution (threadgroups are taken in chunks) and the lowest faulting threadgroup, on
 * cache lines of their own: the workers read fault_block for every threadgroup */
static uint64_t next_block __attribute__((aligned(64)));
static uint64_t fault_block __attribute__((aligned(64)));
static uint64_t chunk_blocks;
/* threadgroups that ran on the vectorized path (vectorize.py), over the process: tests read it */
uint64_t sim_blocks_vector;

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static uint64_t now_ns(clockid_t which) {
    struct timespec ts;
    clock_gettime(which, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* %clock/%clock64 and %globaltimer of compiled CPU code (docs/air-abi.md "Clocks"): the AIR
 * lowering calls the module's internal cm.sreg.clock64/cm.sreg.globaltimer (0 on Metal, which has
 * no shader clock); instrument.py points those calls here. clock64: nanoseconds since the first
 * launch (the device reports a 1 GHz clock rate), strictly increasing between two reads of one
 * thread (a thread stays on one worker, and each worker's reads increase); globaltimer: the wall
 * clock in nanoseconds since the Unix epoch, as the numpy engine (backends/cpu/insts.py). */
static uint64_t clock_base;
static __thread uint64_t clock_last;
/* A GPU runs its resident threads at once; a worker here runs its threads one after another, so a
 * kernel whose threads each spin on clock() for C cycles (graphMemoryFootprint's clockBlock, 16.7M
 * threads x 5 us) took threads x C / workers instead of the GPU's ceil(threads / resident) x C.
 * During a launch the clock therefore runs clock_scale = min(threads, resident) / workers times as
 * fast as real time (at least 1): a launch that fits on the GPU at once spins about C in all, a
 * larger one C per wave of resident threads, as on the GPU. Resident threads: what the CPU device
 * reports, multiprocessor_count (the CPUs) x max_threads_per_multiprocessor (1024). A launch of
 * one thread per worker or fewer keeps real time. Between launches the clock runs at real time;
 * globaltimer is always the wall clock (a kernel times itself in real ns with it). */
#define SIM_THREADS_PER_SM 1024
static double clock_scale = 1.0;
static uint64_t clock_run_real, clock_run_virt; /* the launch's start: real ns since clock_base, clock */
static uint64_t clock_end_real, clock_end_virt; /* the last launch's end */
uint64_t sim_clock64(void) {
    uint64_t r = now_ns(CLOCK_MONOTONIC) - clock_base;
    uint64_t t = clock_run_virt + (uint64_t)((double)(r - clock_run_real) * clock_scale);
    if (t <= clock_last) t = clock_last + 1;
    clock_last = t;
    return t;
}

static void clock_launch_begins(uint64_t threads, int workers) {
    uint64_t r = now_ns(CLOCK_MONOTONIC) - clock_base;
    clock_run_virt = clock_end_virt + (r - clock_end_real); /* real time since the last launch */
    clock_run_real = r;
    static long cpus; /* once: glibc reads /sys for it (open, read, close: ~5 us per launch) */
    if (!cpus) cpus = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t resident = (uint64_t)(cpus > 0 ? cpus : 1) * SIM_THREADS_PER_SM;
    double scale = (double)(threads < resident ? threads : resident) / (workers > 0 ? workers : 1);
    clock_scale = scale > 1.0 ? scale : 1.0;
}

static void clock_launch_ends(void) {
    uint64_t r = now_ns(CLOCK_MONOTONIC) - clock_base;
    clock_end_virt = clock_run_virt + (uint64_t)((double)(r - clock_run_real) * clock_scale) + 1;
    clock_end_real = r;
    clock_scale = 1.0;
}
uint64_t sim_globaltimer(void) { return now_ns(CLOCK_REALTIME); }

/* the watchdog's check between threadgroups: the coarse clock (a read of the kernel's last tick,
 * no system call and a few ns, where CLOCK_MONOTONIC cost ~5% of vecadd's time per threadgroup);
 * its resolution (a few ms) is far below any watchdog limit */
static double coarse_now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_COARSE, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void fault(int code, uint64_t addr, const char *what);
static void yield_to_scheduler(void) {
    if (W_direct) fault(F_INTERNAL, 0, "air-sim: barrier or SIMD-group call in a kernel run without fibers");
    /* Switching by _setjmp/_longjmp saves no signal mask (swapcontext makes a system call each
     * time); ucontext is only used to enter a fiber's stack the first time. */
    if (!_setjmp(F[cur].jb)) _longjmp(sched_jb, 1);
}

/* The launch reports the fault of the lowest-numbered faulting threadgroup (what one worker
 * running the threadgroups in order reports), whatever the workers' timing. */
static void record_fault(int code, uint64_t addr, const char *what) {
    pthread_mutex_lock(&fault_mu);
    if (W_block < __atomic_load_n(&fault_block, __ATOMIC_RELAXED)) {
        __atomic_store_n(&fault_block, W_block, __ATOMIC_RELAXED);
        L->fault = code;
        L->fault_addr = addr;
        snprintf(L->message, sizeof L->message, "%s", what);
    }
    pthread_mutex_unlock(&fault_mu);
}

static void abandon(void) {
    F[cur].state = S_DONE;
    F[cur].started = 0; /* its stack is abandoned mid-call: enter it afresh if ever used again */
    if (W_direct) _longjmp(direct_exit, 1);
    _longjmp(sched_jb, 1); /* never resumed */
}

static void fault(int code, uint64_t addr, const char *what) {
    record_fault(code, addr, what);
    abandon();
}

/* The watchdog measures the time since the launch last finished a threadgroup, not the launch's
 * length: a long kernel that keeps finishing threadgroups runs to its end (CUDA's GPUs without a
 * display have no limit), while a runaway loop or a wait nothing will end stops after timeout_s. */
static void watchdog_progress(void) {
    if (L->timeout_s > 0) {
        double d = coarse_now() + L->timeout_s;
        __atomic_store(&deadline, &d, __ATOMIC_RELAXED);
    }
}

static void watchdog(void) {
    if (deadline > 0 && now() > deadline) fault(F_TIMEOUT, 0, "watchdog timeout");
    /* a lower threadgroup faulted on another worker: this one's result no longer matters */
    if (__atomic_load_n(&fault_block, __ATOMIC_RELAXED) < W_block) abandon();
}

/* vectorize.py: the loads of a probe (__sim_ld.*) resolve here; a probe that still loads device
 * memory is never run (compile.py probe_is_pure), so reaching this is an internal error */
void sim_probe_load(void) { fault(F_INTERNAL, 0, "air-sim: a vectorization probe read device memory"); }

void sim_tick(void) {
    if ((++ticks & 0xFFFF) == 0) watchdog();
}
void sim_watchdog(void) { watchdog(); }

/* ------------------------------------------------------------------ memory checks */
#define EXTRA_REGION ((int64_t)1 << 62)
static int64_t find_device(uint64_t a, uint64_t n) {
    if (last_alloc >= 0) {
        uint64_t off = a - L->alloc_base[last_alloc], size = L->alloc_size[last_alloc];
        if (a >= L->alloc_base[last_alloc] && off <= size && n <= size - off) return last_alloc;
    }
    int64_t lo = 0, hi = L->nalloc - 1, found = -1;
    while (lo <= hi) { /* last base <= a */
        int64_t mid = (lo + hi) / 2;
        if (L->alloc_base[mid] <= a) { found = mid; lo = mid + 1; } else hi = mid - 1;
    }
    if (found >= 0) {
        uint64_t off = a - L->alloc_base[found], size = L->alloc_size[found];
        if (off <= size && n <= size - off) {
            last_alloc = found;
            return found;
        }
    }
    if (L->extra_size && a >= L->extra_base && a - L->extra_base <= L->extra_size
        && n <= L->extra_size - (a - L->extra_base))
        return EXTRA_REGION;
    return -1;
}

/* base and size of a region find_device returned */
static uint64_t region_base(int64_t i) { return i == EXTRA_REGION ? L->extra_base : L->alloc_base[i]; }
static uint64_t region_size(int64_t i) { return i == EXTRA_REGION ? L->extra_size : L->alloc_size[i]; }

/* The threadgroup region holding [a, a+n): the worker's threadgroup(0) buffer or one of its
 * engine's threadgroup globals; 0 when none. */
static int find_threadgroup(uint64_t a, uint64_t n, uint64_t *base, uint64_t *size) {
    uint64_t s = (uint64_t)(uintptr_t)W_shared;
    if (W_shared && a >= s && a - s <= L->shared_size && n <= L->shared_size - (a - s)) {
        *base = s; *size = L->shared_size; return 1;
    }
    for (int i = 0; i < L->nas3; i++)
        if (a >= E->as3_lo[i] && a + n <= E->as3_hi[i] && a + n >= a) {
            *base = E->as3_lo[i]; *size = E->as3_hi[i] - E->as3_lo[i]; return 1;
        }
    return 0;
}

static void check(const void *p, uint64_t n, uint64_t align, int space) {
    uint64_t a = (uint64_t)(uintptr_t)p, b, sz;
    sim_tick();
    if (align > 1 && (a & (align - 1))) fault(F_MISALIGNED, a, "misaligned access");
    if (space == 3 ? !find_threadgroup(a, n, &b, &sz) : find_device(a, n) < 0)
        fault(F_ILLEGAL, a, space == 3 ? "threadgroup access out of bounds" : "outside every live allocation");
}

void sim_check1(const void *p, uint64_t n, uint64_t align) { check(p, n, align, 1); }

/* Slow paths of the inline checks (instrument.py): the access missed its site's cached window.
 * Check it fully, then cache the region it hit: window = [base, base + limit) of valid start
 * addresses for accesses of this site's size (limit 0: empty). */
static void set_window(uint64_t *site, uint64_t base, uint64_t size, uint64_t n) {
    site[0] = base;
    site[1] = size >= n ? size - n + 1 : 0;
}

void sim_slow1(const void *p, uint64_t n, uint64_t align, uint64_t *site) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    if (align > 1 && (a & (align - 1))) fault(F_MISALIGNED, a, "misaligned access");
    int64_t i = find_device(a, n);
    if (i < 0) fault(F_ILLEGAL, a, "outside every live allocation");
    set_window(site, region_base(i), region_size(i), n);
}

void sim_slow3(const void *p, uint64_t n, uint64_t align, uint64_t *site) {
    uint64_t a = (uint64_t)(uintptr_t)p, b, sz;
    if (align > 1 && (a & (align - 1))) fault(F_MISALIGNED, a, "misaligned access");
    if (!find_threadgroup(a, n, &b, &sz)) fault(F_ILLEGAL, a, "threadgroup access out of bounds");
    set_window(site, b, sz, n);
}

void sim_local(const void *p, uint64_t n) {
    F[cur].local_lo = (uint64_t)(uintptr_t)p;
    F[cur].local_hi = F[cur].local_lo + n;
}

void sim_check0(const void *p, uint64_t n, uint64_t align) {
    uint64_t a = (uint64_t)(uintptr_t)p;
    sim_tick();
    if (align > 1 && (a & (align - 1))) fault(F_MISALIGNED, a, "misaligned local access");
    if (a < F[cur].local_lo || a > F[cur].local_hi || n > F[cur].local_hi - a)
        fault(F_ILLEGAL, a, "local memory access out of bounds");
}
void sim_check3(const void *p, uint64_t n, uint64_t align) { check(p, n, align, 3); }

/* ------------------------------------------------------------------ barriers and SIMD ops */
void air_wg_barrier(uint32_t flags, uint32_t scope) {
    (void)flags; (void)scope;
    F[cur].state = S_BAR;
    yield_to_scheduler();
}

/* Program order across calls: the place of each enclosing call site, then the place in the current
 * function (16 bits per level, the kernel's in the top bits; instrument.py numbers each function's
 * SIMD-group calls and calls of functions that hold some), so the lanes inside a call come at the
 * call's place, before what follows it in the caller. Levels past the fourth share their key. */
#define ORDER_LEVELS 4
static uint64_t order_key(const fiber *f) {
    uint64_t local = E->order ? *E->order & 0xFFFF : 0;
    return f->odepth < ORDER_LEVELS ? f->obase | local << (48 - 16 * f->odepth) : f->obase;
}
void sim_enter(uint32_t place) {
    fiber *f = &F[cur];
    if (f->odepth < ORDER_LEVELS) f->obase |= (uint64_t)(place & 0xFFFF) << (48 - 16 * f->odepth);
    f->odepth++;
}
void sim_leave(void) {
    fiber *f = &F[cur];
    if (f->odepth > 0 && --f->odepth < ORDER_LEVELS) f->obase &= ~((uint64_t)0xFFFF << (48 - 16 * f->odepth));
}

static uint64_t simd(int op, uint64_t val, uint64_t arg, void *site) {
    fiber *f = &F[cur];
    f->op = op; f->val = val; f->arg = arg; f->site = site; f->order = order_key(f);
    f->state = S_SIMD;
    yield_to_scheduler();
    return f->result;
}

#define SITE __builtin_return_address(0)

/* The scheduling point of a legalized wait (instrument.py wait_points): park until the word it
 * waits on changes or no other thread of the threadgroup can run, then look again. The numpy
 * engine runs the lanes of a warp through an arrival and the wait after it together, so a lane
 * whose phase a later lane of its warp completes never parks there; letting a waiter look again
 * once its word changed keeps it with those lanes at the next warp operation. */
static uint64_t waited_word(const fiber *f);
void sim_wait_point(uint32_t kind, uint32_t count, const void *word) {
    fiber *f = &F[cur];
    f->wkind = kind; f->wcount = count; f->wword = word;
    f->wseen = waited_word(f);
    f->order = order_key(f);
    f->state = S_WAIT;
    yield_to_scheduler();
}

void air_simdgroup_barrier(uint32_t flags, uint32_t scope) { (void)flags; (void)scope; simd(OP_SGBAR, 0, 0, SITE); }
/* before each volatile threadgroup access (instrument.py): the warp's lanes at this access run it
 * together, as warp-synchronous code expects (a SIMD-group barrier among the lanes at the site) */
void sim_volatile_step(void) { simd(OP_SGBAR, 0, 0, SITE); }
uint32_t air_simd_shuffle_u_i32(uint32_t v, uint32_t lane) { return (uint32_t)simd(OP_SHUF32, v, lane & 0xFFFF, SITE); }
typedef uint32_t v2u __attribute__((vector_size(8)));
v2u air_simd_shuffle_u_v2i32(v2u v, uint32_t lane) {
    uint64_t x; memcpy(&x, &v, 8);
    uint64_t r = simd(OP_SHUF64, x, lane & 0xFFFF, SITE);
    v2u out; memcpy(&out, &r, 8); return out;
}
uint32_t air_simd_sum_u_i32(uint32_t v) { return (uint32_t)simd(OP_SUM, v, 0, SITE); }
uint32_t air_simd_sum_s_i32(uint32_t v) { return (uint32_t)simd(OP_SUM, v, 0, SITE); }
int32_t air_simd_min_s_i32(int32_t v) { return (int32_t)simd(OP_MIN_S, (uint32_t)v, 0, SITE); }
uint32_t air_simd_min_u_i32(uint32_t v) { return (uint32_t)simd(OP_MIN_U, v, 0, SITE); }
int32_t air_simd_max_s_i32(int32_t v) { return (int32_t)simd(OP_MAX_S, (uint32_t)v, 0, SITE); }
uint32_t air_simd_max_u_i32(uint32_t v) { return (uint32_t)simd(OP_MAX_U, v, 0, SITE); }
uint32_t air_simd_and_u_i32(uint32_t v) { return (uint32_t)simd(OP_AND, v, 0, SITE); }
uint32_t air_simd_or_u_i32(uint32_t v) { return (uint32_t)simd(OP_OR, v, 0, SITE); }
uint32_t air_simd_xor_u_i32(uint32_t v) { return (uint32_t)simd(OP_XOR, v, 0, SITE); }

/* The results of one SIMD-group operation op for the lanes of one warp that take part in it
 * (in[l]: lane l does): val[l] its operand, arg[l] its argument (a shuffle's source lane). A
 * shuffle from a lane that does not take part gives the lane its own value; a reduction gives
 * every lane the reduction over the lanes that do. The one rule of the fiber scheduler (resolve)
 * and of the work-item mode's exchanges (workitem.c wi_exchange). */
static void simd_result(int op, int nlanes, const uint8_t *in, const uint64_t *val, const uint64_t *arg,
                        uint64_t *res) {
    if (op == OP_SHUF32 || op == OP_SHUF64) {
        for (int l = 0; l < nlanes; l++) {
            int src = (int)(arg[l] & 31);
            res[l] = src < nlanes && in[src] ? val[src] : val[l];
        }
        return;
    }
    if (op == OP_SGBAR) return; /* nothing to compute */
    int first = 0;
    while (first < nlanes && !in[first]) first++;
    if (first == nlanes) return;
    uint64_t acc = val[first];
    for (int l = first + 1; l < nlanes; l++) {
        if (!in[l]) continue;
        uint64_t v = val[l];
        switch (op) {
        case OP_SUM: acc = (uint32_t)(acc + v); break;
        case OP_MIN_S: acc = ((int32_t)v < (int32_t)acc) ? v : acc; break;
        case OP_MAX_S: acc = ((int32_t)v > (int32_t)acc) ? v : acc; break;
        case OP_MIN_U: acc = ((uint32_t)v < (uint32_t)acc) ? v : acc; break;
        case OP_MAX_U: acc = ((uint32_t)v > (uint32_t)acc) ? v : acc; break;
        case OP_AND: acc &= v; break;
        case OP_OR: acc |= v; break;
        case OP_XOR: acc ^= v; break;
        default: break;
        }
    }
    for (int l = 0; l < nlanes; l++) res[l] = acc;
}

static void resolve(int *lanes, int n) {
    /* lanes[]: fiber indices of one group at one site, ascending (one warp's) */
    int base = lanes[0] & ~31, nlanes = nfib - base < 32 ? nfib - base : 32;
    uint8_t in[32] = {0};
    uint64_t val[32] = {0}, arg[32] = {0}, res[32];
    for (int i = 0; i < n; i++) {
        int l = lanes[i] - base;
        in[l] = 1;
        val[l] = F[lanes[i]].val;
        arg[l] = F[lanes[i]].arg;
    }
    simd_result(F[lanes[0]].op, nlanes, in, val, arg, res);
    for (int i = 0; i < n; i++) {
        if (F[lanes[0]].op != OP_SGBAR) F[lanes[i]].result = res[lanes[i] - base];
        F[lanes[i]].state = S_RUN;
    }
}

/* ------------------------------------------------------------------ atomics */
/* Device-memory atomics are real atomic operations (workers run threadgroups concurrently), as a
 * compare-and-swap loop where the operation has no native form. Threadgroup memory belongs to one
 * worker, whose fibers run one at a time: plain read-modify-write. */
#define TRUE_ORDER(o, s, v) (void)(o); (void)(s); (void)(v)
#define CAS_RMW(T, U, p, EXPR) \
    T old; U bits = __atomic_load_n((U *)(p), __ATOMIC_RELAXED); \
    for (;;) { memcpy(&old, &bits, sizeof(T)); T nv = (EXPR); U nb; memcpy(&nb, &nv, sizeof(T)); \
        if (__atomic_compare_exchange_n((U *)(p), &bits, nb, 0, __ATOMIC_SEQ_CST, __ATOMIC_RELAXED)) break; } \
    return old;
#define GLOBAL_RMW(NAME, T, EXPR) \
    T air_atomic_global_##NAME(T *p, T v, uint32_t o, uint32_t s, uint32_t vol) { \
        TRUE_ORDER(o, s, vol); check(p, sizeof(T), sizeof(T), 1); CAS_RMW(T, uint32_t, p, EXPR) } \
    T air_atomic_local_##NAME(T *p, T v, uint32_t o, uint32_t s, uint32_t vol) { \
        TRUE_ORDER(o, s, vol); check(p, sizeof(T), sizeof(T), 3); T old = *p; *p = (EXPR); return old; }
#define GLOBAL_NATIVE(NAME, T, EXPR, BUILTIN) \
    T air_atomic_global_##NAME(T *p, T v, uint32_t o, uint32_t s, uint32_t vol) { \
        TRUE_ORDER(o, s, vol); check(p, sizeof(T), sizeof(T), 1); return BUILTIN(p, v, __ATOMIC_SEQ_CST); } \
    T air_atomic_local_##NAME(T *p, T v, uint32_t o, uint32_t s, uint32_t vol) { \
        TRUE_ORDER(o, s, vol); check(p, sizeof(T), sizeof(T), 3); T old = *p; *p = (EXPR); return old; }

GLOBAL_NATIVE(add_u_i32, uint32_t, old + v, __atomic_fetch_add)
GLOBAL_NATIVE(and_u_i32, uint32_t, old & v, __atomic_fetch_and)
GLOBAL_NATIVE(or_u_i32, uint32_t, old | v, __atomic_fetch_or)
GLOBAL_NATIVE(xor_u_i32, uint32_t, old ^ v, __atomic_fetch_xor)
GLOBAL_NATIVE(xchg_i32, uint32_t, v, __atomic_exchange_n)
GLOBAL_RMW(min_u_i32, uint32_t, v < old ? v : old)
GLOBAL_RMW(max_u_i32, uint32_t, v > old ? v : old)
GLOBAL_RMW(min_s_i32, int32_t, v < old ? v : old)
GLOBAL_RMW(max_s_i32, int32_t, v > old ? v : old)
GLOBAL_RMW(add_f32, float, old + v)

uint32_t air_atomic_global_load_i32(uint32_t *p, uint32_t o, uint32_t s, uint32_t vol) {
    TRUE_ORDER(o, s, vol); check(p, 4, 4, 1); return __atomic_load_n(p, __ATOMIC_SEQ_CST);
}
uint32_t air_atomic_local_load_i32(uint32_t *p, uint32_t o, uint32_t s, uint32_t vol) {
    TRUE_ORDER(o, s, vol); check(p, 4, 4, 3); return *p;
}
void air_atomic_global_store_i32(uint32_t *p, uint32_t v, uint32_t o, uint32_t s, uint32_t vol) {
    TRUE_ORDER(o, s, vol); check(p, 4, 4, 1); __atomic_store_n(p, v, __ATOMIC_SEQ_CST);
}
/* Strong compare-and-swap (weak in name; CuMetal's AIR treats the hardware's as strong, which a
 * spurious failure would not break: every use is a retry loop or checks the returned value). */
uint32_t air_atomic_global_cmpxchg_weak_i32(uint32_t *p, uint32_t *expected, uint32_t desired, uint32_t so,
                                            uint32_t fo, uint32_t s, uint32_t vol) {
    (void)so; (void)fo; (void)s; (void)vol;
    check(p, 4, 4, 1);
    uint32_t want = *expected;
    if (__atomic_compare_exchange_n(p, expected, desired, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) return want;
    return *expected; /* the value found (written into *expected by the builtin) */
}
uint32_t air_atomic_local_cmpxchg_weak_i32(uint32_t *p, uint32_t *expected, uint32_t desired, uint32_t so,
                                           uint32_t fo, uint32_t s, uint32_t vol) {
    (void)so; (void)fo; (void)s; (void)vol;
    check(p, 4, 4, 3);
    uint32_t old = *p;
    if (old == *expected) *p = desired; else *expected = old;
    return old;
}

/* ------------------------------------------------------------------ math and conversions */
uint32_t air_popcount_i32(uint32_t x) { return (uint32_t)__builtin_popcount(x); }
#define MINMAX(T, S) \
    T air_min_##S(T a, T b) { return a < b ? a : b; } \
    T air_max_##S(T a, T b) { return a > b ? a : b; }
MINMAX(int16_t, s_i16) MINMAX(int32_t, s_i32) MINMAX(int64_t, s_i64)
MINMAX(uint8_t, u_i8) MINMAX(uint16_t, u_i16) MINMAX(uint32_t, u_i32) MINMAX(uint64_t, u_i64)

#define F1(NAME, EXPR32, EXPR64) \
    float air_##NAME##_f32(float x) { return EXPR32; } \
    double air_##NAME##_f64(double x) { return EXPR64; }
F1(fabs, fabsf(x), fabs(x)) F1(rint, rintf(x), rint(x)) F1(floor, floorf(x), floor(x)) F1(ceil, ceilf(x), ceil(x))
F1(sqrt, sqrtf(x), sqrt(x)) F1(rsqrt, 1.0f / sqrtf(x), 1.0 / sqrt(x)) F1(log2, log2f(x), log2(x))
F1(tanh, tanhf(x), tanh(x)) F1(exp2, exp2f(x), exp2(x)) F1(sin, sinf(x), sin(x)) F1(cos, cosf(x), cos(x))
float air_fast_exp2_f32(float x) { return exp2f(x); }
float air_fast_sin_f32(float x) { return sinf(x); }
float air_fast_cos_f32(float x) { return cosf(x); }
float air_fast_sqrt_f32(float x) { return sqrtf(x); }
float air_fma_f32(float a, float b, float c) { return fmaf(a, b, c); }
double air_fma_f64(double a, double b, double c) { return fma(a, b, c); }

/* half precision: bit-exact conversions (the JIT also calls __extendhfsf2/__truncsfhf2) */
static float half_bits_to_float(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000) << 16, exp = (h >> 10) & 0x1F, man = h & 0x3FF, bits;
    if (exp == 0) {
        if (man == 0) bits = sign;
        else { /* subnormal: normalise */
            int e = -1;
            do { e++; man <<= 1; } while (!(man & 0x400));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3FF) << 13);
        }
    } else if (exp == 31) bits = sign | 0x7F800000 | (man << 13);
    else bits = sign | ((exp + 127 - 15) << 23) | (man << 13);
    float f; memcpy(&f, &bits, 4); return f;
}

static uint16_t double_to_half_bits(double d) {
    uint64_t b; memcpy(&b, &d, 8);
    uint16_t sign = (uint16_t)((b >> 48) & 0x8000);
    int exp = (int)((b >> 52) & 0x7FF);
    uint64_t man = b & 0xFFFFFFFFFFFFFull;
    if (exp == 0x7FF) return sign | 0x7C00 | (man ? (uint16_t)(0x200 | (man >> 42)) : 0);
    int e = exp - 1023 + 15;
    if (e >= 31) return sign | 0x7C00;
    /* value = 1.man * 2^(exp-1023); produce an 11-bit significand with round-to-nearest-even */
    uint64_t sig = man | (1ull << 52);
    int shift = 42; /* 52 - 10 */
    if (e <= 0) { shift += 1 - e; e = 0; }
    if (exp == 0 || shift > 63) return sign; /* zero or far below the smallest subnormal */
    uint64_t q = sig >> shift, rem = sig & ((1ull << shift) - 1), half = 1ull << (shift - 1);
    if (rem > half || (rem == half && (q & 1))) q++;
    /* q may carry into the exponent; adding works because the fields are adjacent */
    uint32_t out = (e == 0) ? (uint32_t)q : (((uint32_t)e << 10) + (uint32_t)(q - 0x400));
    if (out >= 0x7C00) return sign | 0x7C00;
    return sign | (uint16_t)out;
}

float __extendhfsf2(_Float16 h) { uint16_t b; memcpy(&b, &h, 2); return half_bits_to_float(b); }
_Float16 __truncsfhf2(float f) { uint16_t b = double_to_half_bits((double)f); _Float16 h; memcpy(&h, &b, 2); return h; }
_Float16 __truncdfhf2(double d) { uint16_t b = double_to_half_bits(d); _Float16 h; memcpy(&h, &b, 2); return h; }
_Float16 air_fma_f16(_Float16 a, _Float16 b, _Float16 c) {
    uint16_t x, y, z; memcpy(&x, &a, 2); memcpy(&y, &b, 2); memcpy(&z, &c, 2);
    /* the product of two halves is exact in double, and so is the sum with a half: one rounding */
    double r = (double)half_bits_to_float(x) * half_bits_to_float(y) + half_bits_to_float(z);
    uint16_t o = double_to_half_bits(r); _Float16 h; memcpy(&h, &o, 2); return h;
}
#define H1(NAME, FN) _Float16 air_##NAME##_f16(_Float16 a) { \
    uint16_t x; memcpy(&x, &a, 2); uint16_t o = double_to_half_bits(FN(half_bits_to_float(x))); \
    _Float16 h; memcpy(&h, &o, 2); return h; }
H1(rint, rint) H1(floor, floor) H1(ceil, ceil) H1(sqrt, sqrt) H1(fabs, fabs) H1(log2, log2) H1(tanh, tanh)
H1(exp2, exp2) H1(sin, sin) H1(cos, cos)
_Float16 air_rsqrt_f16(_Float16 a) { uint16_t x; memcpy(&x, &a, 2);
    uint16_t o = double_to_half_bits(1.0 / sqrt(half_bits_to_float(x))); _Float16 h; memcpy(&h, &o, 2); return h; }

/* integer <-> float conversions (inputs are in range: the lowering saturates first) */
#define CV_FI(DT, DN, ST, SN) DT air_convert_##DN##_f_##SN(ST x) { return (DT)x; }
#define CV_ALL_FROM(ST, SN) \
    CV_FI(int8_t, s_i8, ST, SN) CV_FI(int16_t, s_i16, ST, SN) CV_FI(int32_t, s_i32, ST, SN) \
    CV_FI(int64_t, s_i64, ST, SN) CV_FI(uint8_t, u_i8, ST, SN) CV_FI(uint16_t, u_i16, ST, SN) \
    CV_FI(uint32_t, u_i32, ST, SN) CV_FI(uint64_t, u_i64, ST, SN)
CV_ALL_FROM(float, f32) CV_ALL_FROM(double, f64)
#define CV_IF(DT, DN, ST, SN) DT air_convert_f_##DN##_##SN(ST x) { return (DT)x; }
#define CV_ALL_TO(DT, DN) \
    CV_IF(DT, DN, int8_t, s_i8) CV_IF(DT, DN, int16_t, s_i16) CV_IF(DT, DN, int32_t, s_i32) \
    CV_IF(DT, DN, int64_t, s_i64) CV_IF(DT, DN, uint8_t, u_i8) CV_IF(DT, DN, uint16_t, u_i16) \
    CV_IF(DT, DN, uint32_t, u_i32) CV_IF(DT, DN, uint64_t, u_i64)
CV_ALL_TO(float, f32) CV_ALL_TO(double, f64)
/* to half: through double is exact for <= 32-bit sources; 64-bit sources round once in double
 * only when |x| < 2^53, which is the documented limit of this simulator helper */
#define CV_H(ST, SN) _Float16 air_convert_f_f16_##SN(ST x) { uint16_t o = double_to_half_bits((double)x); \
    _Float16 h; memcpy(&h, &o, 2); return h; }
CV_H(int8_t, s_i8) CV_H(int16_t, s_i16) CV_H(int32_t, s_i32) CV_H(int64_t, s_i64)
CV_H(uint8_t, u_i8) CV_H(uint16_t, u_i16) CV_H(uint32_t, u_i32) CV_H(uint64_t, u_i64)

/* ------------------------------------------------------------------ coroutine mode (coroutine.py) */
void *sim_coro_frame(uint64_t size) {
    if (!WS->frames) { /* the frame size is a constant of the kernel: one allocation per worker */
        WS->frame_stride = (size + 63) & ~(uint64_t)63;
        WS->frames = aligned_alloc(64, WS->frame_stride * (uint64_t)nfib);
        if (!WS->frames) fault(F_INTERNAL, 0, "air-sim: cannot allocate coroutine frames");
    }
    if (size > WS->frame_stride) fault(F_INTERNAL, 0, "air-sim: coroutine frame size changed");
    return WS->frames + WS->frame_stride * (uint64_t)cur;
}

/* ------------------------------------------------------------------ scheduler */
/* A fiber runs one thread per threadgroup, for every threadgroup of its worker: entering a fresh
 * ucontext costs a system call (swapcontext saves the signal mask), so each fiber is entered once
 * and then resumed with _longjmp for each later threadgroup. */
static void trampoline(void) {
    for (;;) {
        E->entry(F[cur].slots);
        F[cur].state = S_DONE;
        if (!_setjmp(F[cur].jb)) _longjmp(sched_jb, 1);
        /* resumed: the next threadgroup's thread (slots refilled by run_fibers) */
    }
}

static void put_u3(uint8_t *slot, uint32_t a, uint32_t b, uint32_t c) {
    uint32_t v[4] = {a, b, c, 0};
    memcpy(slot, v, 16);
}

static void fill_slots(uint8_t *slots, int t, uint32_t cx, uint32_t cy, uint32_t cz) {
    uint32_t bx = L->block[0], by = L->block[1], bz = L->block[2];
    uint32_t tx = t % bx, ty = (t / bx) % by, tz = t / (bx * by);
    for (int i = 0; i < L->nargs; i++) {
        uint8_t *s = slots + 16 * i;
        uint32_t v32 = 0;
        switch (L->kinds[i]) {
        case K_PTR: memcpy(s, &L->values[i], 8); continue;
        case K_SHARED: { uint64_t p = (uint64_t)(uintptr_t)W_shared; memcpy(s, &p, 8); continue; }
        case K_TID: put_u3(s, tx, ty, tz); continue;
        case K_CTAID: put_u3(s, cx, cy, cz); continue;
        case K_NTID: put_u3(s, bx, by, bz); continue;
        case K_NCTAID: put_u3(s, L->grid[0], L->grid[1], L->grid[2]); continue;
        case K_TINDEX: v32 = (uint32_t)t; break;
        case K_LANE: v32 = (uint32_t)(t & 31); break;
        case K_WARP: v32 = (uint32_t)(t >> 5); break;
        default: break;
        }
        memcpy(s, &v32, 4);
    }
}

static int stop_now(uint64_t blk) {
    return __atomic_load_n(&fault_block, __ATOMIC_RELAXED) < blk;
}

/* The value of the word a parked thread waits on (0 when its address is not threadgroup memory:
 * the wait's own read faults when the thread looks again). An mbarrier wait reads the word's high
 * half (instrument.py): the whole 64-bit word, so that an arrival that leaves the phase open counts
 * as a change too. */
static uint64_t waited_word(const fiber *f) {
    uint64_t a = (uint64_t)(uintptr_t)f->wword, b, sz, lo = 0;
    uint32_t hi;
    if (!find_threadgroup(a, 4, &b, &sz) || (a & 3)) return 0;
    memcpy(&hi, f->wword, 4);
    if (f->wkind == W_MBARRIER && a >= b + 4) memcpy(&lo, (const uint8_t *)f->wword - 4, 4);
    return (uint64_t)hi << 32 | lo;
}

static uint64_t mix(uint64_t h, uint64_t v) { /* FNV-1a over the 8 bytes of v */
    for (int i = 0; i < 8; i++) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 1099511628211ull;
    return h;
}

/* Every unfinished thread of the threadgroup waits (at wait points or at a barrier that cannot
 * complete): let the parked waiters look again (-1), unless the threadgroup is in the state it was
 * in when they last did -- the same threads at the same wait points and barriers, every word they
 * wait on unchanged: nothing can ever change it (a deadlock, reported as the numpy engine reports
 * it: a timeout naming the wait; 0). */
static int stall(void) {
    uint64_t h = 1469598103934665603ull;
    int first = -1;
    for (int t = 0; t < nfib; t++) {
        h = mix(h, (uint64_t)F[t].state);
        if (F[t].state != S_WAIT) continue;
        if (first < 0) first = t;
        h = mix(mix(mix(h, (uint64_t)t), F[t].order), waited_word(&F[t]));
    }
    if (!WS->stalled || h != WS->stall_sig) {
        WS->stalled = 1;
        WS->stall_sig = h;
        for (int t = 0; t < nfib; t++)
            if (F[t].state == S_WAIT) F[t].state = S_RUN;
        return -1;
    }
    const fiber *f = &F[first];
    uint32_t bx = L->block[0], by = L->block[1], gx = L->grid[0], gy = L->grid[1];
    uint64_t blk = W_block;
    char where[96];
    snprintf(where, sizeof where, "first kernel @KERNEL@, block (%llu,%llu,%llu) thread (%u,%u,%u)",
             (unsigned long long)(blk % gx), (unsigned long long)(blk / gx % gy),
             (unsigned long long)(blk / ((uint64_t)gx * gy)), (unsigned)(first % bx),
             (unsigned)(first / bx % by), (unsigned)(first / (bx * by)));
    char msg[256];
    if (f->wkind == W_MBARRIER) {
        snprintf(msg, sizeof msg, "deadlock: threads wait on an mbarrier phase that can never complete (no thread "
                 "left to arrive and no copy in flight), %s", where);
    } else if (f->wkind == W_NAMED) {
        /* the 16 named-barrier words end the threadgroup(0) buffer (backends/apple/abi.py) */
        uint64_t words = (uint64_t)(uintptr_t)W_shared + L->shared_size - 64, a = (uint64_t)(uintptr_t)f->wword;
        uint32_t word = (uint32_t)(waited_word(f) >> 32);
        int id = W_shared && a >= words && a < words + 64 ? (int)((a - words) / 4) : -1;
        if (f->wcount)
            snprintf(msg, sizeof msg, "deadlock: named barrier %d waits for %u threads but only %u arrived and no "
                     "other thread can run, %s", id, f->wcount, word & 0xFFFF, where);
        else
            snprintf(msg, sizeof msg, "deadlock: named barrier %d waits for more threads than the %u that arrived "
                     "and no other thread can run, %s", id, word & 0xFFFF, where);
    } else {
        snprintf(msg, sizeof msg, "deadlock: threads wait at a barrier that can never complete and no other thread "
                 "can run, %s", where);
    }
    record_fault(F_TIMEOUT, 0, msg);
    return 0;
}

/* After a round (every runnable thread ran until it blocked): resolve, in each SIMD-group whose
 * lanes wait at SIMD-group operations, the one earliest in program order (min-PC); else release
 * the threadgroup barrier when every unfinished thread waits at one; else let the parked waiters
 * look again (or report a deadlock). 1: every thread is done; 0: stop (fault recorded); -1: run
 * another round. */
static int settle(int running) {
    int done = 1, resolved = 0, at_bar = 0, waiting = 0, retried = 0;
    int group[32];
    for (int t = 0; t < nfib; t++) /* waiters whose word changed look again first */
        if (F[t].state == S_WAIT && waited_word(&F[t]) != F[t].wseen) {
            F[t].state = S_RUN;
            retried = resolved = 1;
        }
    for (int w = 0; w < nfib; w += 32) {
        int end = w + 32 < nfib ? w + 32 : nfib, first = -1;
        for (int t = w; t < end; t++) {
            if (F[t].state != S_DONE) done = 0;
            if (F[t].state == S_BAR) at_bar = 1;
            if (F[t].state == S_WAIT) waiting = 1;
            if (F[t].state == S_SIMD && (first < 0 || F[t].order < F[first].order)) first = t;
        }
        if (first < 0 || retried) continue;
        int n = 0;
        for (int t = w; t < end; t++)
            if (F[t].state == S_SIMD && F[t].order == F[first].order && F[t].op == F[first].op
                && (F[t].order || F[t].site == F[first].site))
                group[n++] = t;
        resolve(group, n);
        resolved = 1;
    }
    if (done) return 1;
    if (!resolved && at_bar && !waiting)
        for (int t = 0; t < nfib; t++)
            if (F[t].state == S_BAR) F[t].state = S_RUN;
    if (!resolved && waiting) return stall();
    if (!resolved && !at_bar && !waiting && !running) {
        record_fault(F_INTERNAL, 0, "air-sim scheduler: no thread can proceed");
        return 0;
    }
    if (deadline > 0 && now() > deadline) {
        record_fault(F_TIMEOUT, 0, "watchdog timeout");
        return 0;
    }
    return -1;
}

/* Run one threadgroup with fibers; returns 0 when the launch must stop. */
static int run_fibers(uint64_t blk, int first, uint8_t *slots, uint8_t *stacks, int *group,
                      uint32_t cx, uint32_t cy, uint32_t cz) {
    for (int t = 0; t < nfib; t++) {
        fiber *f = &F[t];
        f->state = S_RUN;
        f->obase = 0;
        f->odepth = 0;
        f->slots = slots + (size_t)t * L->nargs * 16;
        f->stack = stacks + (size_t)t * L->stack_size;
        fill_slots(f->slots, t, cx, cy, cz);
        if (first || !f->started) {
            getcontext(&f->ctx); /* a system call: once per fiber and worker */
            f->ctx.uc_stack.ss_sp = f->stack;
            f->ctx.uc_stack.ss_size = L->stack_size;
            f->ctx.uc_link = NULL;
            f->started = 0;
            makecontext(&f->ctx, trampoline, 0);
        }
    }
    WS->stalled = 0;
    for (;;) {
        volatile int running = 0;
        for (cur = 0; cur < nfib; cur++) {
            if (F[cur].state != S_RUN) continue;
            running = 1;
            if (!_setjmp(sched_jb)) {
                if (!F[cur].started) {
                    F[cur].started = 1;
                    swapcontext(&sched_ctx, &F[cur].ctx);
                } else {
                    _longjmp(F[cur].jb, 1);
                }
            }
            if (stop_now(blk + 1)) return 0; /* this threadgroup (or a lower one) faulted */
        }
        int r = settle(running);
        if (r >= 0) return r;
    }
}

/* Coroutine mode: rounds of plain calls, each thread to its next barrier. A SIMD-group whose
 * unfinished lanes all wait at SIMD-group steps runs on the lanes at the earliest one (warp by warp);
 * the threadgroup barrier is released when every unfinished thread waits at one. A suspending
 * thread leaves what it waits for in its engine's susp word (coroutine.py): state | site << 2.
 * The per-thread state is kept in compact arrays (a few bytes per thread, scanned every round). */
static int run_coro(uint64_t blk, uint8_t *slots, uint32_t cx, uint32_t cy, uint32_t cz) {
    fill_slots(slots, 0, cx, cy, cz);
    put_u3(slots + 16 * L->nargs, L->block[0], L->block[1], L->block[2]);
    uint8_t *st = WS->cst;
    uint32_t *site = WS->csite;
    void **hd = WS->chd;
    volatile uint32_t *susp = E->susp;
    void *(*start)(uint8_t *, uint32_t) = E->cstart;
    void (*resume)(void *) = E->cresume;
    const int n = nfib;
    memset(st, S_RUN, (size_t)n);
    memset(hd, 0, sizeof(void *) * (size_t)n);
    if (_setjmp(direct_exit)) return 0; /* a fault (recorded) */
    for (;;) {
        int alive = 0, at_bar = 0;
        for (int w = 0; w < n; w += 32) {
            int end = w + 32 < n ? w + 32 : n;
            for (;;) {
                for (int t = w; t < end; t++) {
                    if (st[t] != S_RUN) continue;
                    cur = t;
                    if (!hd[t]) hd[t] = start(slots, (uint32_t)t);
                    else resume(hd[t]);
                    uint32_t v = *susp;
                    st[t] = (uint8_t)(v & 3);
                    site[t] = v >> 2;
                }
                /* the step earliest in program order that lanes wait at (the site is its
                 * number, coroutine.py): its lanes go on (min-PC, as in settle). No lane of the
                 * warp runs here, so the lanes set running are those of the site tried first
                 * (the lowest lane's: nearly always the only one), taken back if another is lower. */
                int first = w;
                while (first < end && st[first] != S_SIMD) first++;
                if (first == end) break;
                uint32_t low = site[first], other = UINT32_MAX;
                for (int t = first; t < end; t++)
                    if (st[t] == S_SIMD) {
                        if (site[t] == low) st[t] = S_RUN;
                        else if (site[t] < other) other = site[t];
                    }
                if (other < low)
                    for (int t = first; t < end; t++) {
                        if (st[t] == S_RUN) st[t] = S_SIMD;
                        else if (st[t] == S_SIMD && site[t] == other) st[t] = S_RUN;
                    }
            }
            for (int t = w; t < end; t++) { /* branch-free: the states of a warp vary */
                alive |= st[t] != S_DONE;
                at_bar |= st[t] == S_BAR;
            }
        }
        if (stop_now(blk + 1)) return 0;
        if (!alive) return 1;
        if (at_bar)
            for (int t = 0; t < n; t++) /* every unfinished thread waits at a barrier */
                st[t] = st[t] == S_BAR ? (uint8_t)S_RUN : st[t];
        if (deadline > 0 && now() > deadline) {
            record_fault(F_TIMEOUT, 0, "watchdog timeout");
            return 0;
        }
    }
}

#include "workitem.c" /* work-item mode: barrier kernels as loops over threads (WGBAR) */

typedef struct { int index; int status; } worker_arg;

static void *worker(void *argp) {
    worker_arg *wa = argp;
    uint64_t run = 0; /* threadgroups this worker completed */
    uint64_t vec = 0; /* ... of which on the vectorized path */
    worker_state state;
    memset(&state, 0, sizeof state);
    WS = &state;
    E = &L->engines[wa->index];
    uint32_t bx = L->block[0], by = L->block[1], bz = L->block[2];
    nfib = (int)(bx * by * bz);
    int fibers = !L->direct && !E->cstart && !E->wr;
    W_direct = !fibers;
    last_alloc = -1;
    ticks = 0;
    size_t stack_total = fibers ? (size_t)nfib * L->stack_size : 0;
    F = calloc((size_t)nfib, sizeof(fiber));
    uint8_t *slots = calloc((size_t)(L->direct ? 1 : nfib) * L->nargs * 16 + 16, 1);
    W_shared = L->shared_size ? calloc(L->shared_size, 1) : NULL;
    uint8_t *stacks = stack_total ? mmap(NULL, stack_total, PROT_READ | PROT_WRITE,
                                         MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0) : NULL;
    int *group = malloc(sizeof(int) * 32);
    if (!L->direct && E->cstart) {
        WS->cst = malloc((size_t)nfib);
        WS->csite = malloc(sizeof(uint32_t) * (size_t)nfib);
        WS->chd = malloc(sizeof(void *) * (size_t)nfib);
        if (!WS->cst || !WS->csite || !WS->chd) group = (free(group), NULL);
    }
    if (!L->direct && E->wr && !wi_alloc(nfib)) group = (free(group), NULL);
    if (!F || !slots || stacks == MAP_FAILED || !group || (L->shared_size && !W_shared)) {
        W_block = 0;
        record_fault(F_INTERNAL, 0, "air-sim: cannot allocate the threadgroup's fibers");
        if (L->coop) grid_meet(G_FAULT); /* (the other workers must not wait for this one) */
        goto out;
    }
    if (L->coop) {
        if (!L->direct && E->wr) {
            int64_t g = run_grid(slots, wa->index);
            if (g > 0) run += (uint64_t)g;
        } else {
            W_block = 0;
            record_fault(F_INTERNAL, 0, "air-sim: a cooperative launch needs a work-item kernel");
            grid_meet(G_FAULT); /* (the others must not wait for this worker) */
        }
        goto out;
    }
    uint64_t nblocks = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2], blk = 0, chunk_end = 0;
    /* ranges of threadgroups per call of the vectorized loop (E->wgvn, set only for kernels that
     * touch no threadgroup memory, which is zeroed per threadgroup below); off for the rest of a
     * chunk after two calls in a row that ran nothing (a site alternating between allocations, or
     * threads that go round a loop: every probe stops the range) */
    const int ranges_ok = E->wgvn && L->direct && E->wg;
    int ranges = ranges_ok, range_stalls = 0;
    for (int first = 1;; first = 0, blk++) {
        if (blk >= chunk_end) {
            blk = __atomic_fetch_add(&next_block, chunk_blocks, __ATOMIC_RELAXED);
            chunk_end = blk + chunk_blocks < nblocks ? blk + chunk_blocks : nblocks;
            ranges = ranges_ok;
            range_stalls = 0;
        }
        if (blk >= nblocks || stop_now(blk)) break;
        W_block = blk;
        uint32_t cx = (uint32_t)(blk % L->grid[0]), cy = (uint32_t)((blk / L->grid[0]) % L->grid[1]),
                 cz = (uint32_t)(blk / ((uint64_t)L->grid[0] * L->grid[1]));
        if (L->shared_size) memset(W_shared, 0, L->shared_size);
        /* this worker's copy of the module's threadgroup globals (static shared memory): every
         * threadgroup starts from zero like the threadgroup(0) buffer */
        for (int i = 0; i < L->nas3; i++) memset((void *)(uintptr_t)E->as3_lo[i], 0, E->as3_hi[i] - E->as3_lo[i]);
        if (!L->direct && E->wr) {
            if (!run_wi(blk, slots, cx, cy, cz)) break;
        } else if (!L->direct && E->cstart) {
            if (!run_coro(blk, slots, cx, cy, cz)) break;
        } else if (!L->direct) {
            if (!run_fibers(blk, first, slots, stacks, group, cx, cy, cz)) break;
        } else if (E->wg) {
            cur = 0;
            F[0].state = S_RUN;
            if (ranges) {
                /* the rest of the chunk in one call; it cannot fault (a pure probe, an unchecked
                 * loop: no runtime call), so it runs before the fault handler's setjmp */
                fill_slots(slots, 0, cx, cy, cz);
                put_u3(slots + 16 * L->nargs, bx, by, bz);
                uint64_t g = E->wgvn(slots, blk, chunk_end, L->grid[0], L->grid[1]);
                run += g - blk;
                vec += g - blk;
                range_stalls = g == blk ? range_stalls + 1 : 0;
                if (range_stalls >= 2) ranges = 0;
                if (g > blk) watchdog_progress();
                else if (deadline > 0 && coarse_now() > deadline) {
                    record_fault(F_TIMEOUT, 0, "watchdog timeout");
                    break;
                }
                if (g >= chunk_end) { /* the chunk is done: the loop's increment takes the next */
                    blk = chunk_end - 1;
                    continue;
                }
                /* threadgroup g's probe was not clean: it runs alone below (checked or deferred) */
                blk = g;
                if (stop_now(blk)) break;
                W_block = blk;
                cx = (uint32_t)(blk % L->grid[0]);
                cy = (uint32_t)((blk / L->grid[0]) % L->grid[1]);
                cz = (uint32_t)(blk / ((uint64_t)L->grid[0] * L->grid[1]));
            }
            fill_slots(slots, 0, cx, cy, cz);
            put_u3(slots + 16 * L->nargs, bx, by, bz); /* the loop bounds of the work-group function */
            if (_setjmp(direct_exit)) break; /* a fault: later threadgroups of this worker do not run */
            if (E->wgv) vec += (uint64_t)E->wgv(slots); /* its probe, then vectors or the checked loop */
            else E->wg(slots);
        } else {
            int stop = 0;
            cur = 0;
            for (int t = 0; t < nfib && !stop; t++) {
                F[0].state = S_RUN;
                fill_slots(slots, t, cx, cy, cz);
                if (_setjmp(direct_exit)) stop = 1;
                else E->entry(slots);
            }
            if (stop) break;
        }
        run++;
        watchdog_progress();
    }
out:
    __atomic_fetch_add(&L->blocks_run, run, __ATOMIC_RELAXED);
    __atomic_fetch_add(&sim_blocks_vector, vec, __ATOMIC_RELAXED);
    free(F); free(slots); free(group); free(W_shared); free(WS->frames);
    free(WS->cst); free(WS->csite); free(WS->chd);
    wi_free();
    if (stacks && stacks != MAP_FAILED) munmap(stacks, stack_total);
    WS = NULL;
    return NULL;
}

/* ------------------------------------------------------------------ worker pool */
/* Workers 1..n-1 of a launch are threads that live as long as the process (created on first
 * need): a launch wakes them instead of creating and joining threads. After a launch they poll
 * for the next one for a short while (back-to-back launches from Python follow within tens of
 * microseconds) before sleeping on the condition variable. */
static pthread_mutex_t pool_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t pool_cv = PTHREAD_COND_INITIALIZER, pool_done_cv = PTHREAD_COND_INITIALIZER;
static int pool_threads;            /* threads created (indices 1..pool_threads) */
static uint64_t pool_gen;           /* launch generation: a new value wakes the pool */
static int pool_want;               /* workers of the current launch (the caller is worker 0) */
static int pool_pending;            /* pool workers of the current launch still running */
static worker_arg pool_args[MAX_WORKERS];
static uint64_t pool_born[MAX_WORKERS]; /* the generation current when thread i was created */
#define POOL_SPIN_NS 50000

static void pool_child_after_fork(void) { /* a forked child has none of the parent's threads */
    pthread_mutex_init(&pool_mu, NULL);
    pthread_cond_init(&pool_cv, NULL);
    pthread_cond_init(&pool_done_cv, NULL);
    pool_threads = 0;
    pool_pending = 0;
}

static void *pool_thread(void *p) {
    worker_arg *wa = p;
    pthread_mutex_lock(&pool_mu);
    uint64_t seen = pool_born[wa->index]; /* the launch that created it may already have begun */
    pthread_mutex_unlock(&pool_mu);
    for (;;) {
        double spin_until = now() + POOL_SPIN_NS * 1e-9;
        while (__atomic_load_n(&pool_gen, __ATOMIC_ACQUIRE) == seen && now() < spin_until)
            __builtin_ia32_pause();
        pthread_mutex_lock(&pool_mu);
        while (pool_gen == seen) pthread_cond_wait(&pool_cv, &pool_mu);
        seen = pool_gen;
        int go = wa->index < pool_want;
        pthread_mutex_unlock(&pool_mu);
        if (!go) continue;
        worker(wa);
        pthread_mutex_lock(&pool_mu);
        if (--pool_pending == 0) pthread_cond_signal(&pool_done_cv);
        pthread_mutex_unlock(&pool_mu);
    }
    return NULL;
}

/* Run the launch on the calling thread (worker 0) and n-1 pool threads. */
static void pool_run(int n) {
    static int atfork_done;
    worker_arg self = {0, 0};
    pthread_mutex_lock(&pool_mu);
    if (!atfork_done) { pthread_atfork(NULL, NULL, pool_child_after_fork); atfork_done = 1; }
    while (pool_threads < n - 1) {
        int idx = pool_threads + 1;
        pool_args[idx].index = idx;
        pool_born[idx] = pool_gen;
        pthread_t th;
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setstacksize(&attr, 8u << 20);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int ok = pthread_create(&th, &attr, pool_thread, &pool_args[idx]) == 0;
        pthread_attr_destroy(&attr);
        if (!ok) break;
        pool_threads = idx;
    }
    if (n - 1 > pool_threads) n = pool_threads + 1; /* fewer threads than asked: the rest still run */
    pool_want = n;
    grid_workers = n; /* (fewer threads than asked: a cooperative launch's meetings wait for these) */
    pool_pending = n - 1;
    if (n > 1) {
        __atomic_store_n(&pool_gen, pool_gen + 1, __ATOMIC_RELEASE);
        pthread_cond_broadcast(&pool_cv);
    }
    pthread_mutex_unlock(&pool_mu);
    worker(&self);
    pthread_mutex_lock(&pool_mu);
    while (pool_pending > 0) pthread_cond_wait(&pool_done_cv, &pool_mu);
    pthread_mutex_unlock(&pool_mu);
}

int sim_run(sim_launch *launch) {
    L = launch;
    L->fault = F_NONE;
    L->blocks_run = 0;
    next_block = L->first_block;
    fault_block = UINT64_MAX;
    if (!clock_base) clock_base = now_ns(CLOCK_MONOTONIC) - 1; /* once: reads keep increasing across launches */
    deadline = L->timeout_s > 0 ? now() + L->timeout_s : 0;
    int nw = L->nworkers < 1 ? 1 : (L->nworkers > MAX_WORKERS ? MAX_WORKERS : L->nworkers);
    uint64_t nblocks = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2];
    nblocks = L->first_block < nblocks ? nblocks - L->first_block : 0; /* the threadgroups left to run */
    if ((uint64_t)nw > nblocks) nw = nblocks ? (int)nblocks : 1;
    grid_workers = nw; /* a cooperative launch's workers meet at its grid barriers (workitem.c run_grid) */
    /* chunks of consecutive threadgroups: fewer atomic operations on the shared counter, while
     * every worker still gets several chunks to balance the load */
    chunk_blocks = nblocks / ((uint64_t)nw * 16);
    chunk_blocks = nw == 1 ? 64 : (chunk_blocks < 1 ? 1 : (chunk_blocks > 64 ? 64 : chunk_blocks));
    /* a work-item kernel with exchanges may wait for earlier threadgroups through memory (CUB's
     * decoupled look-back spins on its predecessors' tile status with a ballot per trip): with chunks
     * the second worker's first threadgroup waited for the whole first chunk of the other worker,
     * spinning (Thrust inclusive_scan 2^22 took 0.32-0.38 s on two workers, 0.15-0.17 s on one);
     * one threadgroup at a time keeps the workers' threadgroups next to each other */
    if (nw > 1 && !L->direct && L->engines[0].wr && L->engines[0].wxoff >= 0) chunk_blocks = 1;
    for (int w = 0; w < nw; w++) /* the check-site caches start empty: allocations change between launches */
        for (int64_t i = 0; i < L->engines[w].nsites; i++) {
            L->engines[w].sites[2 * i] = ~(uint64_t)0;
            L->engines[w].sites[2 * i + 1] = 0;
        }
    clock_launch_begins(nblocks * L->block[0] * L->block[1] * L->block[2], nw);
    pool_run(nw);
    clock_launch_ends();
    return L->fault;
}

/* sim_run after copying the launch's parameter block and launch_info into the launch scratch buffer
 * (sim/__init__.py prepared_launch): one call from Python instead of two memmoves and sim_run (each
 * ctypes call costs ~0.3 us of the empty launch's host overhead, #12); what stays the same between
 * launches is in the plan, so the call converts only the parameters and their size */
typedef struct {
    sim_launch *launch;
    void *params_dst;
    const void *info;
    uint64_t ninfo;
    void *info_dst;
} sim_copy_plan;

int sim_run_plan(const sim_copy_plan *p, const void *params, int nparams) {
    if (nparams > 0) memcpy(p->params_dst, params, (size_t)nparams);
    memcpy(p->info_dst, p->info, p->ninfo);
    return sim_run(p->launch);
}
