/* The doorbell of a stream's worker thread (devices/stream_worker.py, devices/stream_bell.py).
 *
 * A worker waits here, in C, without the Python interpreter lock, until its queue has work that it
 * should start: the host has enqueued nothing for `quiet_ns`, the oldest unclaimed operation has
 * waited `max_ns`, `burst` operations are pending, someone waits for the queue (`urgent`), or the
 * queue is closed. A waiting host thread that runs the work itself claims it (`cm_bell_take`), so
 * a launch followed by a synchronisation never wakes the worker into Python: on a loaded machine a
 * worker that takes the interpreter lock and is preempted stalls the host for a time slice. After
 * work, the worker looks for more every `poll_ns` for `linger_ns` (a wake-up in C, no interpreter
 * lock) instead of being signalled by each enqueue: a launch then costs the host no system call.
 * Each look that finds nothing to start doubles the interval, up to 8 x `poll_ns` (a timed wake-up costs
 * ~40 us of CPU on a loaded virtual machine: at 0.5 ms that was a tenth of a core).
 * All counters are guarded by `mu`; the Python side calls ring/take/hurry/close with the
 * interpreter lock held (they never block for long) and wait without it. */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* on CLOCK_MONOTONIC, the clock of Python's time.monotonic */
    int64_t pending;   /* operations enqueued and not claimed yet */
    int64_t last_ns;   /* when the last one was enqueued */
    int64_t first_ns;  /* when the oldest unclaimed one was enqueued (or earlier: never later) */
    int32_t urgent;    /* someone waits for the queue */
    int32_t closed;
    int32_t waiting; /* the worker waits: 1 for any work, 2 for the start of pending work, 3 polls */
    int64_t active_ns; /* when work was last seen pending (the polling lasts linger_ns from there) */
    int64_t step_ns;   /* the polling's current interval (0: poll_ns) */
    /* launches enqueued from C without Python (capi/csrc/cm_native_launch.c): entries appended to
     * one malloc'd log that the queue's Python side detaches as one operation (native_launch.py) */
    unsigned char *nat;
    size_t nat_len, nat_cap;
    int64_t nat_count;
} cm_bell;

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

size_t cm_bell_size(void) { return sizeof(cm_bell); }

int cm_bell_init(cm_bell *b) {
    memset(b, 0, sizeof *b);
    pthread_condattr_t attr;
    if (pthread_condattr_init(&attr) || pthread_condattr_setclock(&attr, CLOCK_MONOTONIC)) return -1;
    int bad = pthread_mutex_init(&b->mu, NULL) || pthread_cond_init(&b->cv, &attr);
    pthread_condattr_destroy(&attr);
    return bad ? -1 : 0;
}

/* An operation was enqueued. The worker is woken only from waiting for any work, or at a burst. */
void cm_bell_ring(cm_bell *b, int64_t burst) {
    pthread_mutex_lock(&b->mu);
    int64_t t = now_ns();
    if (b->pending++ == 0) b->first_ns = t;
    b->last_ns = b->active_ns = t;
    if (b->waiting == 1 || (b->waiting && b->pending == burst)) pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* A native launch (an entry of `bytes` bytes): appended to the log and counted as one pending
 * operation, rung as cm_bell_ring does. -1 (nothing appended) when the queue is closed or memory is
 * short: the caller takes the Python path. Called from any thread, without the interpreter lock. */
int cm_bell_push(cm_bell *b, const void *entry, size_t bytes, int64_t burst) {
    pthread_mutex_lock(&b->mu);
    int bad = b->closed;
    if (!bad && b->nat_len + bytes > b->nat_cap) {
        size_t cap = b->nat_cap ? 2 * b->nat_cap : 4096;
        while (cap < b->nat_len + bytes) cap *= 2;
        unsigned char *grown = realloc(b->nat, cap);
        if (grown == NULL) bad = 1;
        else b->nat = grown, b->nat_cap = cap;
    }
    if (!bad) {
        memcpy(b->nat + b->nat_len, entry, bytes);
        b->nat_len += bytes;
        b->nat_count++;
        int64_t t = now_ns();
        if (b->pending++ == 0) b->first_ns = t;
        b->last_ns = b->active_ns = t;
        if (b->waiting == 1 || (b->waiting && b->pending == burst)) pthread_cond_signal(&b->cv);
    }
    pthread_mutex_unlock(&b->mu);
    return bad ? -1 : 0;
}

/* The queue's Python side takes the native entries logged so far (to run as one operation, which
 * it rings as any other): the log's address and length, and how many entries (0: none; the caller
 * frees the log with cm_bell_free). */
int64_t cm_bell_detach(cm_bell *b, void **log, size_t *len) {
    pthread_mutex_lock(&b->mu);
    int64_t n = b->nat_count;
    *log = b->nat;
    *len = b->nat_len;
    if (n) {
        b->pending -= n < b->pending ? n : b->pending;
        b->nat = NULL;
        b->nat_len = b->nat_cap = 0;
        b->nat_count = 0;
    }
    pthread_mutex_unlock(&b->mu);
    return n;
}

void cm_bell_free(void *log) { free(log); }

/* The oldest pending operation was claimed (by the worker or by a waiting thread). */
void cm_bell_take(cm_bell *b) {
    pthread_mutex_lock(&b->mu);
    if (b->pending > 0 && --b->pending == 0) b->urgent = 0;
    pthread_mutex_unlock(&b->mu);
}

/* Someone waits for the queue: pending work starts at once. */
void cm_bell_hurry(cm_bell *b) {
    pthread_mutex_lock(&b->mu);
    b->urgent = 1;
    if (b->waiting) pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

void cm_bell_close(cm_bell *b) {
    pthread_mutex_lock(&b->mu);
    b->closed = 1;
    pthread_cond_signal(&b->cv);
    pthread_mutex_unlock(&b->mu);
}

/* The worker's wait: 1 when it should start the pending work, 0 when the queue is closed and
 * nothing is pending. */
static void wait_until(cm_bell *b, int64_t due) {
    struct timespec until = {(time_t)(due / 1000000000LL), (long)(due % 1000000000LL)};
    pthread_cond_timedwait(&b->cv, &b->mu, &until);
}

int cm_bell_wait(cm_bell *b, int64_t quiet_ns, int64_t max_ns, int64_t burst, int64_t poll_ns, int64_t linger_ns) {
    int started = 1;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        int64_t now = now_ns();
        if (b->pending > 0) {
            b->active_ns = now;
            if (b->urgent || b->closed || b->pending >= burst) break;
            int64_t quiet = b->last_ns + quiet_ns, oldest = b->first_ns + max_ns;
            int64_t due = quiet < oldest ? quiet : oldest;
            if (now >= due) break;
            if (b->waiting == 3) { /* polling: look again at the next poll (the host often takes it first) */
                wait_until(b, now + (b->step_ns ? b->step_ns : poll_ns));
                continue;
            }
            b->waiting = 2;
            wait_until(b, due);
        } else if (b->closed) {
            started = 0;
            break;
        } else if (now - b->active_ns < linger_ns) {
            b->step_ns = b->step_ns ? (b->step_ns < 8 * poll_ns ? 2 * b->step_ns : b->step_ns) : poll_ns;
            b->waiting = 3;
            wait_until(b, now + b->step_ns);
            continue;
        } else {
            b->waiting = 1;
            pthread_cond_wait(&b->cv, &b->mu);
        }
        b->waiting = 0;
    }
    b->waiting = 0;
    if (started) b->step_ns = 0; /* (work the host left to the worker: look often again) */
    pthread_mutex_unlock(&b->mu);
    return started;
}
