/* Work-item mode (workitem.py): a barrier kernel as regions, each run as a loop over threads.
 *
 * Included by runtime.c (it uses the scheduler's worker state). The JIT's __sim_wr(slots, ctx, r,
 * t0, t1, state) runs region r (resume point r to the next barrier, SIMD-group step or return) for
 * threads t0..t1-1 and leaves each thread's exit code in state[t]: S_BAR / S_SIMD / S_DONE in the
 * low two bits, the resume point in the rest; a thread that can run has kind 0 and the point it
 * resumes at. The rounds are run_coro's, exactly: every runnable thread runs in thread order (warp
 * by warp when the kernel has SIMD-group steps, the lanes at the earliest step going on until no
 * lane of the warp waits at one), then a barrier releases when every unfinished thread waits at
 * one. A kernel with exchanges (value-carrying SIMD-group operations) keeps the fiber scheduler's
 * rounds instead: one step per warp and round (wi_span). Only consecutive threads that resume at
 * the same point are batched into one call, so the order of execution is the coroutine (or fiber)
 * scheduler's whatever the control flow; in a uniform kernel a whole region runs for the whole
 * threadgroup in one call. */

#define WI_MIXED UINT32_MAX /* a summary: the threads' states differ (state[] holds each) */

static __thread uint32_t *wi_state;  /* per thread: exit code / resume point */
static __thread uint32_t *wi_sum;    /* per warp (or the whole threadgroup): the state all its threads
                                      * share, or WI_MIXED; state[] is exact only where it is WI_MIXED */
static __thread uint8_t *wi_ctx;     /* per-thread context arrays (values live across barriers) */

static int wi_alloc(int n) {
    wi_state = malloc(sizeof(uint32_t) * (size_t)n);
    wi_sum = malloc(sizeof(uint32_t) * (size_t)(n / 32 + 2));
    size_t bytes = ((size_t)E->wctx * (size_t)n + 63) & ~(size_t)63;
    wi_ctx = bytes ? aligned_alloc(64, bytes) : NULL;
    return wi_state && wi_sum && (!bytes || wi_ctx);
}

static void wi_free(void) {
    free(wi_state);
    free(wi_sum);
    free(wi_ctx);
    wi_state = wi_sum = NULL;
    wi_ctx = NULL;
}

/* Run every runnable thread of [a, b) in order, each from its resume point: one call per run of
 * consecutive threads that resume at the same point (threads that cannot run end a run). */
static void wi_run(uint8_t *slots, uint32_t *st, int a, int b) {
    int t = a;
    while (t < b) {
        uint32_t s = st[t];
        if (s & 3) { t++; continue; }
        int e = t + 1;
        while (e < b && st[e] == s) e++;
        (void)E->wr(slots, wi_ctx, s >> 2, (uint32_t)t, (uint32_t)e, st);
        t = e;
    }
}

static uint32_t wi_summary(const uint32_t *st, int a, int b) {
    for (int t = a + 1; t < b; t++)
        if (st[t] != st[a]) return WI_MIXED;
    return st[a];
}

/* The lanes of the warp [a, b) that wait at step `at` (all: every lane does, whatever st[] holds) go
 * on there: when the step is an exchange (a value-carrying SIMD-group operation, workitem.py
 * _exchanges), each lane's result replaces the operand in its slot of the context, by the fiber
 * scheduler's rule. */
static void wi_exchange(const uint32_t *st, int a, int b, uint32_t at, int all) {
    int op = E->wxop && (int64_t)(at >> 2) < E->wnres ? E->wxop[at >> 2] : 0;
    if (!op || E->wxoff < 0) return;
    uint64_t *slot = (uint64_t *)(wi_ctx + (size_t)nfib * (size_t)E->wxoff); /* thread t: slot[2t], slot[2t + 1] */
    int n = b - a;
    if (all && op >= OP_SUM && op <= OP_XOR) { /* every lane takes part in a reduction: simd_result's
                                                   * value, without the gathers (the ballots of CUB) */
        uint64_t *s = slot + 2 * (size_t)a;
        uint32_t acc = (uint32_t)s[0];
        for (int l = 1; l < n; l++) {
            uint32_t v = (uint32_t)s[2 * l];
            switch (op) {
            case OP_SUM: acc += v; break;
            case OP_MIN_S: acc = (int32_t)v < (int32_t)acc ? v : acc; break;
            case OP_MAX_S: acc = (int32_t)v > (int32_t)acc ? v : acc; break;
            case OP_MIN_U: acc = v < acc ? v : acc; break;
            case OP_MAX_U: acc = v > acc ? v : acc; break;
            case OP_AND: acc &= v; break;
            case OP_OR: acc |= v; break;
            default: acc ^= v; break;
            }
        }
        for (int l = 0; l < n; l++) s[2 * l] = acc;
        return;
    }
    uint8_t in[32];
    uint64_t val[32], arg[32], res[32];
    for (int l = 0; l < n; l++) {
        in[l] = all || st[a + l] == at;
        val[l] = slot[2 * (a + l)];
        arg[l] = slot[2 * (a + l) + 1];
    }
    simd_result(op, n, in, val, arg, res);
    for (int l = 0; l < n; l++)
        if (in[l]) slot[2 * (a + l)] = res[l];
}

/* One warp (or the whole threadgroup of a kernel without steps) until none of its threads can run
 * or waits at a SIMD-group step: the lanes at the earliest step (min-PC) go on first. With
 * `rounds` (a kernel with exchanges) only one step is released per call (1: the warp has more to
 * run before any barrier can release), as the fiber scheduler releases one per warp and round
 * (settle), so that the other warps run before this one goes on: a warp that spins on what another
 * warp writes (a legalized bar.red's wait loop holds a ballot) must not keep the worker. Such
 * kernels ran on fibers before exchanges existed; the others keep coroutine mode's order (a warp
 * runs until it waits at a barrier or ends). */
static int wi_span(uint8_t *slots, uint32_t *st, uint32_t *sum, int a, int b, int rounds) {
    for (;;) {
        uint32_t s = *sum;
        if (s != WI_MIXED) {
            if ((s & 3) == 0) {
                *sum = E->wr(slots, wi_ctx, s >> 2, (uint32_t)a, (uint32_t)b, st);
                continue;
            }
            if ((s & 3) != S_SIMD) return 0; /* at a barrier or done */
            wi_exchange(st, a, b, s, 1); /* every lane at one step: it is the earliest */
            *sum = s & ~3u;
            if (rounds) return 1;
            continue;
        }
        wi_run(slots, st, a, b);
        uint32_t low = UINT32_MAX;
        if (E->wsteps)
            for (int t = a; t < b; t++)
                if ((st[t] & 3) == S_SIMD && st[t] < low) low = st[t];
        if (low == UINT32_MAX) {
            *sum = wi_summary(st, a, b);
            return 0;
        }
        wi_exchange(st, a, b, low, 0);
        for (int t = a; t < b; t++)
            if (st[t] == low) st[t] = low & ~3u;
        if (rounds) return 1;
    }
}

/* A cooperative launch (sim_launch.coop): is a thread of the threadgroup waiting at a grid barrier
 * (grid_group::sync(): a barrier whose resume point workitem.py marks OP_GRID in the exchange table)? */
static int wi_at_grid(const uint32_t *st, const uint32_t *sum, int n, int span, int nspan) {
    for (int w = 0; w < nspan; w++) {
        uint32_t s = sum[w];
        if (s != WI_MIXED) {
            if ((s & 3) == S_BAR && (int64_t)(s >> 2) < E->wnres && E->wxop[s >> 2] == OP_GRID) return 1;
            continue;
        }
        int a = w * span, b = a + span < n ? a + span : n;
        for (int t = a; t < b; t++)
            if ((st[t] & 3) == S_BAR && (int64_t)(st[t] >> 2) < E->wnres && E->wxop[st[t] >> 2] == OP_GRID) return 1;
    }
    return 0;
}

/* The threadgroup's rounds from its current state (wi_state/wi_sum/wi_ctx): 1 when every thread is
 * done, 0 on a fault or stop, 2 (cooperative launches only) when its threads wait at a grid barrier:
 * run_grid lets the other threadgroups reach it and then calls again with `release` (the barrier
 * releases first). */
static int wi_loop(uint64_t blk, uint8_t *slots, int release) {
    uint32_t *st = wi_state, *sum = wi_sum;
    const int n = nfib, span = E->wsteps ? 32 : n, nspan = (n + span - 1) / span;
    uint32_t rounds = 0;
    cur = 0;
    if (_setjmp(direct_exit)) return 0; /* a fault (recorded) */
    for (;;) {
        if (!release) {
            /* every warp runnable at one point whose region reaches no step: one call for them all
             * (what running them warp by warp does: no warp stops at a step) */
            uint32_t s0 = sum[0];
            int whole = nspan > 1 && s0 != WI_MIXED && !(s0 & 3) && (int64_t)(s0 >> 2) < E->wnres && !E->wrs[s0 >> 2];
            for (int w = 1; whole && w < nspan; w++) whole = sum[w] == s0;
            if (whole) {
                uint32_t c = E->wr(slots, wi_ctx, s0 >> 2, 0, (uint32_t)n, st);
                for (int w = 0; w < nspan; w++) sum[w] = c;
                if (c == WI_MIXED) /* state[] is exact: let each warp find its own summary */
                    for (int w = 0; w < nspan; w++) {
                        int a = w * span, b = a + span < n ? a + span : n;
                        sum[w] = wi_summary(st, a, b);
                    }
            }
            int stepped = 0;
            for (int w = 0; w < nspan; w++) {
                int a = w * span, b = a + span < n ? a + span : n;
                stepped |= wi_span(slots, st, &sum[w], a, b, E->wxoff >= 0);
            }
            if (stop_now(blk + 1)) return 0;
            if (stepped) { /* another round: no barrier releases while a warp is between steps */
                if (deadline > 0 && coarse_now() > deadline) {
                    record_fault(F_TIMEOUT, 0, "watchdog timeout");
                    return 0;
                }
                /* a long run of rounds may be a spin on what another worker's threadgroup writes (a
                 * look-back): let that worker have the core when the machine has more threads than
                 * cores (a no-op otherwise) */
                if ((++rounds & 255) == 0 && L->nworkers > 1) sched_yield();
                continue;
            }
            if (L->coop && wi_at_grid(st, sum, n, span, nspan)) return 2;
        }
        release = 0;
        int alive = 0;
        for (int w = 0; w < nspan; w++) { /* release: every unfinished thread waits at a barrier */
            uint32_t s = sum[w];
            if (s != WI_MIXED) {
                alive |= (s & 3) != S_DONE;
                if ((s & 3) == S_BAR) sum[w] = s & ~3u;
                continue;
            }
            int a = w * span, b = a + span < n ? a + span : n;
            for (int t = a; t < b; t++) {
                uint32_t k = st[t] & 3;
                alive |= k != S_DONE;
                if (k == S_BAR) st[t] &= ~3u;
            }
        }
        if (!alive) return 1;
        if (deadline > 0 && coarse_now() > deadline) {
            record_fault(F_TIMEOUT, 0, "watchdog timeout");
            return 0;
        }
    }
}

static int run_wi(uint64_t blk, uint8_t *slots, uint32_t cx, uint32_t cy, uint32_t cz) {
    fill_slots(slots, 0, cx, cy, cz);
    put_u3(slots + 16 * L->nargs, L->block[0], L->block[1], L->block[2]);
    const int n = nfib, span = E->wsteps ? 32 : n, nspan = (n + span - 1) / span;
    for (int w = 0; w < nspan; w++) wi_sum[w] = 0; /* every thread starts at resume point 0 */
    return wi_loop(blk, slots, 0);
}

/* A cooperative launch (cudaLaunchCooperativeKernel: every threadgroup resident at once, so that
 * grid_group::sync() completes): worker w of the grid_workers runs threadgroups w, w + n, ... in
 * turns, each until it waits at a grid barrier or ends, with its own work-item state (resume points,
 * warp summaries, context) and a copy of its threadgroup memory (static and dynamic shared memory are
 * the worker's, saved and restored at each turn); the workers then meet (grid_meet), and once every
 * threadgroup waits at the grid barrier (or ended) they all go on. A threadgroup that ends while
 * another waits at a grid barrier is CUDA's deadlock: the launch reports it. Only work-item kernels
 * (cpu_jit_device.py checks: other modes keep the numpy engine). Returns the threadgroups this
 * worker completed, or -1 on a fault or stop. */
static int grid_workers;                 /* workers of the cooperative launch (sim_run) */
static pthread_mutex_t grid_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t grid_cv = PTHREAD_COND_INITIALIZER;
static int grid_arrived, grid_flags, grid_verdict;
static uint64_t grid_gen;
enum { G_WAIT = 1, G_ENDED = 2, G_FAULT = 4 };   /* what a worker saw in its turn (grid_flags) */
enum { G_GO = 0, G_DONE, G_STOP };              /* what the workers do next (grid_verdict) */

static int grid_meet(int flags) {
    pthread_mutex_lock(&grid_mu);
    grid_flags |= flags;
    uint64_t gen = grid_gen;
    if (++grid_arrived == grid_workers) {
        int f = grid_flags;
        grid_verdict = (f & G_FAULT) ? G_STOP : !(f & G_WAIT) ? G_DONE : (f & G_ENDED) ? G_STOP : G_GO;
        if (!(f & G_FAULT) && (f & G_WAIT) && (f & G_ENDED)) { /* some wait at grid.sync() that others never reach */
            W_block = 0;
            record_fault(F_TIMEOUT, 0, "deadlock: threads wait at a grid barrier (grid_group::sync()) that "
                                       "threadgroups which have ended will never reach in kernel @KERNEL@");
        }
        grid_arrived = 0;
        grid_flags = 0;
        grid_gen++;
        pthread_cond_broadcast(&grid_cv);
    } else {
        while (grid_gen == gen) pthread_cond_wait(&grid_cv, &grid_mu);
    }
    int v = grid_verdict;
    pthread_mutex_unlock(&grid_mu);
    return v;
}

static int64_t run_grid(uint8_t *slots, int index) {
    const uint64_t nb = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2], step = (uint64_t)grid_workers;
    const uint64_t mine = (uint64_t)index < nb ? (nb - (uint64_t)index + step - 1) / step : 0;
    const int n = nfib, span = E->wsteps ? 32 : n, nspan = (n + span - 1) / span;
    size_t as3 = 0;
    for (int i = 0; i < L->nas3; i++) as3 += E->as3_hi[i] - E->as3_lo[i];
    const size_t mem = L->shared_size + as3;
    const size_t ctxb = ((size_t)E->wctx * (size_t)n + 63) & ~(size_t)63;
    uint32_t *st0 = wi_state, *sum0 = wi_sum;
    uint8_t *ctx0 = wi_ctx;
    uint32_t **sts = calloc(mine + 1, sizeof *sts), **sums = calloc(mine + 1, sizeof *sums);
    uint8_t **ctxs = calloc(mine + 1, sizeof *ctxs), **mems = calloc(mine + 1, sizeof *mems), *phase = calloc(mine + 1, 1);
    int64_t done = 0, result = -1;
    int ok = sts && sums && ctxs && mems && phase;
    for (uint64_t k = 0; ok && k < mine; k++) {
        sts[k] = malloc(sizeof(uint32_t) * (size_t)n);
        sums[k] = malloc(sizeof(uint32_t) * (size_t)(nspan + 2));
        ctxs[k] = ctxb ? aligned_alloc(64, ctxb) : NULL;
        mems[k] = mem ? calloc(mem, 1) : NULL; /* every threadgroup's memory starts at zero */
        ok = sts[k] && sums[k] && (!ctxb || ctxs[k]) && (!mem || mems[k]);
    }
    if (!ok) {
        W_block = (uint64_t)index;
        record_fault(F_INTERNAL, 0, "air-sim: cannot allocate a cooperative grid's threadgroups");
    }
    for (;;) {
        int flags = ok ? 0 : G_FAULT;
        for (uint64_t k = 0; ok && k < mine; k++) {
            if (phase[k] == 2) continue; /* done */
            uint64_t g = (uint64_t)index + k * step;
            W_block = g;
            wi_state = sts[k];
            wi_sum = sums[k];
            wi_ctx = ctxs[k];
            uint8_t *m = mems[k];
            if (L->shared_size) memcpy(W_shared, m, L->shared_size);
            size_t o = L->shared_size;
            for (int i = 0; i < L->nas3; i++) {
                size_t c = E->as3_hi[i] - E->as3_lo[i];
                memcpy((void *)(uintptr_t)E->as3_lo[i], m + o, c);
                o += c;
            }
            uint32_t cx = (uint32_t)(g % L->grid[0]), cy = (uint32_t)((g / L->grid[0]) % L->grid[1]),
                     cz = (uint32_t)(g / ((uint64_t)L->grid[0] * L->grid[1]));
            int r;
            if (phase[k] == 0) {
                r = run_wi(g, slots, cx, cy, cz);
            } else {
                fill_slots(slots, 0, cx, cy, cz);
                put_u3(slots + 16 * L->nargs, L->block[0], L->block[1], L->block[2]);
                r = wi_loop(g, slots, 1);
            }
            if (r == 0) { /* a fault (recorded) or another worker's: every worker stops at the meeting */
                flags |= G_FAULT;
                break;
            }
            if (r == 1) {
                phase[k] = 2;
                done++;
                flags |= G_ENDED;
                watchdog_progress();
                continue;
            }
            phase[k] = 1;
            flags |= G_WAIT;
            if (L->shared_size) memcpy(m, W_shared, L->shared_size);
            o = L->shared_size;
            for (int i = 0; i < L->nas3; i++) {
                size_t c = E->as3_hi[i] - E->as3_lo[i];
                memcpy(m + o, (void *)(uintptr_t)E->as3_lo[i], c);
                o += c;
            }
        }
        if (!(flags & G_FAULT) && deadline > 0 && coarse_now() > deadline) {
            record_fault(F_TIMEOUT, 0, "watchdog timeout");
            flags |= G_FAULT;
        }
        int v = grid_meet(flags);
        if (v == G_DONE) result = done;
        if (v != G_GO) break;
    }
    for (uint64_t k = 0; k < mine; k++) {
        if (sts) free(sts[k]);
        if (sums) free(sums[k]);
        if (ctxs) free(ctxs[k]);
        if (mems) free(mems[k]);
    }
    free(sts); free(sums); free(ctxs); free(mems); free(phase);
    wi_state = st0;
    wi_sum = sum0;
    wi_ctx = ctx0;
    return result;
}
