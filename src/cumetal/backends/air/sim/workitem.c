/* Work-item mode (workitem.py): a barrier kernel as regions, each run as a loop over threads.
 *
 * Included by runtime.c (it uses the scheduler's worker state). The JIT's __sim_wr(slots, ctx, r,
 * t0, t1, state) runs region r (resume point r to the next barrier, SIMD-group step or return) for
 * threads t0..t1-1 and leaves each thread's exit code in state[t]: S_BAR / S_SIMD / S_DONE in the
 * low two bits, the resume point in the rest; a thread that can run has kind 0 and the point it
 * resumes at. The rounds are run_coro's, exactly: every runnable thread runs in thread order (warp
 * by warp when the kernel has SIMD-group steps, the lanes at the earliest step going on until no
 * lane of the warp waits at one), then a barrier releases when every unfinished thread waits at
 * one. Only consecutive threads that resume at the same point are batched into one call, so the
 * order of execution is the coroutine scheduler's whatever the control flow; in a uniform kernel a
 * whole region runs for the whole threadgroup in one call. */

static __thread uint32_t *wi_state;  /* per thread: exit code / resume point */
static __thread uint8_t *wi_ctx;     /* per-thread context arrays (values live across barriers) */

static int wi_alloc(int n) {
    wi_state = malloc(sizeof(uint32_t) * (size_t)n);
    size_t bytes = ((size_t)E->wctx * (size_t)n + 63) & ~(size_t)63;
    wi_ctx = bytes ? aligned_alloc(64, bytes) : NULL;
    return wi_state && (!bytes || wi_ctx);
}

static void wi_free(void) {
    free(wi_state);
    free(wi_ctx);
    wi_state = NULL;
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
        E->wr(slots, wi_ctx, s >> 2, (uint32_t)t, (uint32_t)e, st);
        t = e;
    }
}

/* The whole threadgroup resumes at one point whose region reaches no SIMD-group step: running it
 * for all threads at once is what running it warp by warp does (no warp stops at a step). */
static int wi_uniform(const uint32_t *st, int n) {
    uint32_t s = st[0];
    if (s & 3 || (int64_t)(s >> 2) >= E->wnres || E->wrs[s >> 2]) return 0;
    for (int t = 1; t < n; t++)
        if (st[t] != s) return 0;
    return 1;
}

static int run_wi(uint64_t blk, uint8_t *slots, uint32_t cx, uint32_t cy, uint32_t cz) {
    fill_slots(slots, 0, cx, cy, cz);
    put_u3(slots + 16 * L->nargs, L->block[0], L->block[1], L->block[2]);
    uint32_t *st = wi_state;
    const int n = nfib;
    memset(st, 0, sizeof(uint32_t) * (size_t)n); /* every thread starts at resume point 0 */
    cur = 0;
    if (_setjmp(direct_exit)) return 0; /* a fault (recorded) */
    for (;;) {
        if (!E->wsteps || wi_uniform(st, n)) {
            wi_run(slots, st, 0, n);
        } else {
            for (int w = 0; w < n; w += 32) {
                int end = w + 32 < n ? w + 32 : n;
                for (;;) {
                    wi_run(slots, st, w, end);
                    uint32_t low = UINT32_MAX; /* the step earliest in program order (min-PC) */
                    for (int t = w; t < end; t++)
                        if ((st[t] & 3) == S_SIMD && st[t] < low) low = st[t];
                    if (low == UINT32_MAX) break;
                    for (int t = w; t < end; t++)
                        if (st[t] == low) st[t] = low & ~3u;
                }
            }
        }
        if (stop_now(blk + 1)) return 0;
        int alive = 0;
        for (int t = 0; t < n; t++) {
            uint32_t k = st[t] & 3;
            alive |= k != S_DONE;
            if (k == S_BAR) st[t] &= ~3u; /* every unfinished thread waits at a barrier: release */
        }
        if (!alive) return 1;
        if (deadline > 0 && now() > deadline) {
            record_fault(F_TIMEOUT, 0, "watchdog timeout");
            return 0;
        }
    }
}
