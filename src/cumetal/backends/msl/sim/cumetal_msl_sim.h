// msl-sim: the Metal Shading Language builtins that CuMetal's emitted MSL uses, implemented with
// CPU semantics so that the emitted source compiles as C++ (g++ >= 12, -std=c++14: MSL's base
// dialect) and runs here.
//
// Threads of a threadgroup are user-mode fibers (ucontext) run by one OS worker thread; worker
// threads take threadgroups in parallel, so device atomics really contend. A fiber runs until it
// reaches a threadgroup barrier or a SIMD-group function.
//
// SIMD-group functions follow Apple's model for structured code: a SIMD-group runs in lockstep and
// reconverges at the end of each if/else and loop, so a SIMD-group function sees the lanes that
// reach the same *dynamic* point together. Each fiber keeps its position: a stack of frames (loop:
// its header line and trip number, from CM_LOOP_TOP/CM_LOOP_EXIT; call: the call line, from
// CM_CALL_BEGIN/CM_CALL_END) and, when it waits, the call site's line. In structured code a lane's
// position only grows (textual order within a trip; a new trip or a loop exit goes later), so the
// scheduler releases, per SIMD-group, the waiting lanes at the smallest position: no other lane can
// reach that point any more, and every lane still behind it would have to pass a smaller one
// first. That is the lockstep order (which side of an if/else runs first does not change results).
//
// A legalized wait (an mbarrier's or a named barrier's: CM_WAIT_POINT, msl/wait_points.py) parks its
// thread until nothing else in the threadgroup can run; then the parked threads look again. When they
// come back to the same wait points with every word they wait on unchanged (and no barrier was
// released, no word changed meanwhile), the threadgroup is deadlocked: a timeout naming the deadlock,
// at once rather than at the watchdog (the air-sim runtime's rule, air/sim/runtime.c stall()).
//
// Accesses are checked against the launch's allocation table, the threadgroup size and the local
// frame; a bad access ends the launch with a fault code instead of a crash.
#ifndef CUMETAL_MSL_SIM_H
#define CUMETAL_MSL_SIM_H

#include <atomic>
#include <csignal>
#include <cfloat>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <thread>
#include <vector>
#include <ucontext.h>

#include "cumetal_codes.h"  // fault codes, address windows (generated: backends/common/codes.py)

typedef unsigned char uchar;
typedef unsigned short ushort;
typedef unsigned int uint;
typedef unsigned long ulong;

struct uint3 { uint x, y, z; };
struct float2 {
  float x, y;
  float2() : x(0), y(0) {}
  float2(float a, float b) : x(a), y(b) {}
};

namespace cm_sim {

struct Alloc { ulong base, end; };

// Shared with Python (ctypes): keep the field order in sync with sim/launcher.py.
struct Launch {
  uint grid[3];
  uint block[3];
  ulong shared_bytes;
  ulong local_bytes;
  const Alloc* allocs;
  ulong nallocs;
  ulong stack_bytes;
  double timeout_s;
  int workers;
  int fault_code;
  ulong fault_addr;
  char fault_msg[256];  // a deadlock's description ("@KERNEL@" stands for the kernel's name), or empty
  // the fibers' stacks (launcher.py _StackArena, reused across launches): worker k's thread i has
  // slot k * nthreads + i of stack_stride bytes, whose first stack_guard bytes are no-access (on_segv)
  char* stacks;
  ulong stack_stride;
  ulong stack_guard;
};

struct Builtins {
  uint3 tid, ctaid, ntid, nctaid;
  uint lane, warp;
  uchar* shared;
};

enum { RUN = 0, SIMD = 1, BAR = 2, DONE = 3, WAIT = 4 };
enum { W_MBARRIER = CM_WAIT_MBARRIER, W_NAMED = CM_WAIT_NAMED };  // wait kinds (codes.py WaitKind)

// A frame of a fiber's position: an enclosing loop (header line, trip) or call (call line).
struct Frame {
  int line;
  bool loop;
  long trip;
};

struct Fiber {
  ucontext_t ctx;
  int state;
  int site;
  ulong payload;
  ulong snap[32];
  uint snap_mask;
  char* stack = nullptr;  // the top of its stack region (it grows down)
  std::vector<Frame> frames;
  uint wkind, wcount;  // WAIT: what it waits for (W_*), a named barrier's thread count (0: unknown)
  const uchar* wword;  // ... the threadgroup word waited on (nullptr: outside the threadgroup memory)
  ulong wseen;         // ... that word when the thread parked (waited_word)
};

// Lockstep order of two waiting fibers' positions (frames, then the call site): <0, 0, >0.
inline int compare_position(const Fiber& a, const Fiber& b) {
  size_t na = a.frames.size(), nb = b.frames.size();
  for (size_t i = 0;; ++i) {
    int la = i < na ? a.frames[i].line : a.site;
    int lb = i < nb ? b.frames[i].line : b.site;
    if (la != lb) return la < lb ? -1 : 1;
    if (i >= na || i >= nb) return (i >= na) == (i >= nb) ? 0 : (i >= na ? -1 : 1);
    long ta = a.frames[i].trip, tb = b.frames[i].trip;
    if (ta != tb) return ta < tb ? -1 : 1;
  }
}

struct Worker {
  Launch* L;
  ucontext_t sched;
  std::vector<Fiber> fibers;
  int cur;
  int nthreads;
  uchar* shared;
  uint3 ctaid;
  void (*thunk)(void*, const Builtins&);
  void* fn;
  ulong ticks;
  std::chrono::steady_clock::time_point deadline;
  ulong guard;  // bytes of the no-access guard below each fiber's stack
};

inline thread_local Worker* tw = nullptr;
inline std::atomic<int> g_abort{0};

[[noreturn]] inline void leave_fiber() {
  Worker* w = tw;
  w->fibers[w->cur].state = DONE;
  setcontext(&w->sched);
  std::abort();
}

inline void fault(uint code, ulong addr) {
  Worker* w = tw;
  int expected = 0;
  if (__atomic_compare_exchange_n(&w->L->fault_code, &expected, (int)code, false, __ATOMIC_SEQ_CST,
                                  __ATOMIC_SEQ_CST))
    w->L->fault_addr = addr;
  g_abort.store(1);
  leave_fiber();
}

// A fiber's stack has a no-access guard below it (and the emitted code probes every page of a large
// frame: -fstack-clash-protection, launcher.CXXFLAGS), so a kernel overflowing msl-sim's fiber stack
// stops at the guard: this handler (on the worker's alternate signal stack) records the fault and
// leaves the fiber. A SIGSEGV that is not the current fiber's guard goes to the handler that was there
// before (restored; the faulting instruction runs again), as if msl-sim had none.
inline struct sigaction g_prev_segv;
inline std::mutex g_segv_lock;
inline int g_segv_launches = 0;  // launches running (the handler is installed once for all of them)

inline void on_segv(int sig, siginfo_t* si, void* uc) {
  (void)uc;
  Worker* w = tw;
  if (sig == SIGSEGV && w && w->cur >= 0 && w->cur < w->nthreads && w->guard) {
    const char* a = (const char*)si->si_addr;
    const char* top = w->fibers[w->cur].stack;
    if (top && a < top && a >= top - w->guard) {
      int expected = 0;
      if (__atomic_compare_exchange_n(&w->L->fault_code, &expected, (int)CM_FAULT_INTERNAL, false,
                                      __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
        static const char what[] = "stack overflow";  // (no snprintf in a signal handler)
        std::memcpy(w->L->fault_msg, what, sizeof what);
        w->L->fault_addr = (ulong)a;
      }
      g_abort.store(1);
      leave_fiber();  // the scheduler's context, with its signal mask (SIGSEGV unblocked)
    }
  }
  sigaction(SIGSEGV, &g_prev_segv, nullptr);
}

inline void check_global(ulong a, uint n) {
  Launch* L = tw->L;
  if (n > 1 && (a & (n - 1))) fault(CM_FAULT_MISALIGNED_ADDRESS, a);
  ulong lo = 0, hi = L->nallocs;
  while (lo < hi) {  // last allocation with base <= a
    ulong mid = (lo + hi) / 2;
    if (L->allocs[mid].base <= a) lo = mid + 1; else hi = mid;
  }
  if (lo == 0 || a + n > L->allocs[lo - 1].end) fault(CM_FAULT_ILLEGAL_ADDRESS, a);
}
// a .v2/.v4/.b128 access is one access of its whole size n (its first element's check)
inline void check_align(ulong a, uint n) {
  if (a & (n - 1)) fault(CM_FAULT_MISALIGNED_ADDRESS, a);
}
inline void check_window(ulong a, uint n, ulong size, ulong window) {
  if (n > 1 && (a & (n - 1))) fault(CM_FAULT_MISALIGNED_ADDRESS, a + window);
  if (a + n > size || a + n < a) fault(CM_FAULT_ILLEGAL_ADDRESS, a + window);
}
inline void loop_tick() {
  Worker* w = tw;
  if ((++w->ticks & 0xFFFF) == 0) {
    if (g_abort.load()) leave_fiber();
    if (std::chrono::steady_clock::now() > w->deadline) fault(CM_FAULT_TIMEOUT, 0);
  }
}

// Position hooks of the emitted MSL (empty macros on Metal).
inline void loop_top(int line) {
  loop_tick();
  std::vector<Frame>& fr = tw->fibers[tw->cur].frames;
  if (!fr.empty() && fr.back().loop && fr.back().line == line)
    ++fr.back().trip;
  else
    fr.push_back(Frame{line, true, 0});
}
inline void loop_exit() {
  std::vector<Frame>& fr = tw->fibers[tw->cur].frames;
  if (!fr.empty() && fr.back().loop) fr.pop_back();
}
inline void call_begin(int line) { tw->fibers[tw->cur].frames.push_back(Frame{line, false, 0}); }
inline void call_end() {  // the callee may have returned from inside its loops
  std::vector<Frame>& fr = tw->fibers[tw->cur].frames;
  while (!fr.empty()) {
    bool call = !fr.back().loop;
    fr.pop_back();
    if (call) break;
  }
}

inline void yield_to_scheduler() {
  Worker* w = tw;
  swapcontext(&w->fibers[w->cur].ctx, &w->sched);
  if (g_abort.load()) leave_fiber();
}

inline void fiber_main() {
  Worker* w = tw;
  int i = w->cur;
  uint bx = w->L->block[0], by = w->L->block[1];
  Builtins b;
  b.tid = {uint(i) % bx, (uint(i) / bx) % by, uint(i) / (bx * by)};
  b.ctaid = w->ctaid;
  b.ntid = {w->L->block[0], w->L->block[1], w->L->block[2]};
  b.nctaid = {w->L->grid[0], w->L->grid[1], w->L->grid[2]};
  b.lane = uint(i) & 31;
  b.warp = uint(i) >> 5;
  b.shared = w->shared;
  w->thunk(w->fn, b);
  w = tw;
  w->fibers[w->cur].state = DONE;
  setcontext(&w->sched);
}

// SIMD-group rendezvous: wait until the lanes at this call site are grouped; snap[] then holds
// their payloads and snap_mask the group.
inline Fiber& simd_wait(int site, ulong payload) {
  Worker* w = tw;
  Fiber& f = w->fibers[w->cur];
  f.payload = payload;
  f.site = site;
  f.state = SIMD;
  yield_to_scheduler();
  return tw->fibers[tw->cur];
}

// The word a parked thread waits on; an mbarrier wait reads the word's high half, so the whole
// 64-bit word counts (an arrival that leaves the phase open is a change too).
inline ulong waited_word(const Worker* w, const Fiber& f) {
  if (!f.wword) return 0;
  ulong hi = __atomic_load_n((const uint*)f.wword, __ATOMIC_SEQ_CST), lo = 0;
  if (f.wkind == W_MBARRIER && f.wword >= w->shared + 4) lo = __atomic_load_n((const uint*)(f.wword - 4), __ATOMIC_SEQ_CST);
  return hi << 32 | lo;
}

// CM_WAIT_POINT: park until nothing else in the threadgroup can run (a = the word's threadgroup offset).
inline void wait_point(int site, uint kind, uint count, ulong a) {
  Worker* w = tw;
  Fiber& f = w->fibers[w->cur];
  f.wkind = kind;
  f.wcount = count;
  f.wword = (a & 3) == 0 && a + 4 <= w->L->shared_bytes ? w->shared + a : nullptr;
  f.wseen = waited_word(w, f);
  f.site = site;
  f.state = WAIT;
  yield_to_scheduler();
}

inline ulong mix(ulong h, ulong v) {  // FNV-1a over the 8 bytes of v
  for (int i = 0; i < 8; ++i) h = (h ^ ((v >> (8 * i)) & 0xFF)) * 1099511628211ul;
  return h;
}

// The threadgroup's state at a stall: every thread's state, and each waiter's place (its frames'
// lines and the wait's line: not loop trips, which a retry loop bumps) and word.
inline ulong stall_signature(const Worker* w) {
  ulong h = 1469598103934665603ul;
  for (int i = 0; i < w->nthreads; ++i) {
    const Fiber& f = w->fibers[i];
    h = mix(h, ulong(f.state));
    if (f.state != WAIT) continue;
    h = mix(mix(h, ulong(i)), ulong(f.site));
    for (const Frame& fr : f.frames) h = mix(h, ulong(fr.line));
    h = mix(h, waited_word(w, f));
  }
  return h;
}

// A deadlock: the launch stops with a timeout whose message names the wait (as air-sim's).
inline void report_deadlock(Worker* w) {
  int first = 0;
  while (first < w->nthreads && w->fibers[first].state != WAIT) ++first;
  const Fiber& f = w->fibers[first];
  uint bx = w->L->block[0], by = w->L->block[1];
  char where[128];
  std::snprintf(where, sizeof where, "first kernel @KERNEL@, block (%u,%u,%u) thread (%u,%u,%u)", w->ctaid.x,
                w->ctaid.y, w->ctaid.z, uint(first) % bx, uint(first) / bx % by, uint(first) / (bx * by));
  char msg[256];
  if (f.wkind == W_MBARRIER) {
    std::snprintf(msg, sizeof msg, "deadlock: threads wait on an mbarrier phase that can never complete (no thread "
                  "left to arrive and no copy in flight), %s", where);
  } else if (f.wkind == W_NAMED) {
    // the 16 named-barrier words end the threadgroup memory (backends/apple/abi.py REDUCTION_SCRATCH)
    const uchar* words = w->shared + (w->L->shared_bytes >= 64 ? w->L->shared_bytes - 64 : 0);
    int id = f.wword && f.wword >= words && f.wword < words + 64 ? int((f.wword - words) / 4) : -1;
    uint arrived = uint(waited_word(w, f) >> 32) & 0xFFFF;
    if (f.wcount)
      std::snprintf(msg, sizeof msg, "deadlock: named barrier %d waits for %u threads but only %u arrived and no "
                    "other thread can run, %s", id, f.wcount, arrived, where);
    else
      std::snprintf(msg, sizeof msg, "deadlock: named barrier %d waits for more threads than the %u that arrived "
                    "and no other thread can run, %s", id, arrived, where);
  } else {
    std::snprintf(msg, sizeof msg, "deadlock: threads wait at a barrier that can never complete and no other thread "
                  "can run, %s", where);
  }
  int expected = 0;
  if (__atomic_compare_exchange_n(&w->L->fault_code, &expected, (int)CM_FAULT_TIMEOUT, false, __ATOMIC_SEQ_CST,
                                  __ATOMIC_SEQ_CST))
    std::memcpy(w->L->fault_msg, msg, sizeof msg);
  g_abort.store(1);
}

inline void run_block(Worker* w) {
  int n = w->nthreads;
  for (int i = 0; i < n; ++i) {
    Fiber& f = w->fibers[i];
    getcontext(&f.ctx);
    f.ctx.uc_stack.ss_sp = f.stack;
    f.ctx.uc_stack.ss_size = w->L->stack_bytes;
    f.ctx.uc_link = nullptr;
    makecontext(&f.ctx, (void (*)())fiber_main, 0);
    f.state = RUN;
    f.frames.clear();
  }
  bool stalled = false;  // the parked waiters were let go at a stall with signature stall_sig ...
  ulong stall_sig = 0;   // ... and nothing has moved since (no barrier released, no word changed)
  for (;;) {
    for (int i = 0; i < n; ++i) {
      while (w->fibers[i].state == RUN) {
        w->cur = i;
        swapcontext(&w->sched, &w->fibers[i].ctx);
        if (g_abort.load()) return;
      }
    }
    bool retried = false;  // waiters whose word changed look again first
    for (int i = 0; i < n; ++i) {
      Fiber& f = w->fibers[i];
      if (f.state == WAIT && waited_word(w, f) != f.wseen) {
        f.state = RUN;
        retried = true;
      }
    }
    if (retried) {
      stalled = false;
      continue;
    }
    bool progress = false;
    for (int base = 0; base < n; base += 32) {
      int end = base + 32 < n ? base + 32 : n;
      int first = -1;  // a waiting lane at the smallest position (lockstep order)
      for (int i = base; i < end; ++i)
        if (w->fibers[i].state == SIMD && (first < 0 || compare_position(w->fibers[i], w->fibers[first]) < 0))
          first = i;
      if (first < 0) continue;
      uint mask = 0;
      ulong vals[32];
      for (int i = base; i < end; ++i)
        if (w->fibers[i].state == SIMD && compare_position(w->fibers[i], w->fibers[first]) == 0) {
          mask |= 1u << (i - base);
          vals[i - base] = w->fibers[i].payload;
        }
      for (int i = base; i < end; ++i)
        if ((mask >> (i - base)) & 1) {
          Fiber& f = w->fibers[i];
          std::memcpy(f.snap, vals, sizeof vals);
          f.snap_mask = mask;
          f.state = RUN;
        }
      progress = true;
    }
    if (progress) continue;
    bool any_bar = false, any_wait = false;
    for (int i = 0; i < n; ++i) {
      any_bar |= w->fibers[i].state == BAR;
      any_wait |= w->fibers[i].state == WAIT;
    }
    if (any_wait) {  // every unfinished thread waits (at wait points, or at a barrier they hold up)
      ulong sig = stall_signature(w);
      if (stalled && sig == stall_sig) {
        report_deadlock(w);
        return;
      }
      stalled = true;
      stall_sig = sig;
      for (int i = 0; i < n; ++i)
        if (w->fibers[i].state == WAIT) w->fibers[i].state = RUN;
      continue;
    }
    if (!any_bar) return;  // all done
    stalled = false;
    for (int i = 0; i < n; ++i)
      if (w->fibers[i].state == BAR) w->fibers[i].state = RUN;
  }
}

inline void worker_main(Launch* L, int index, std::atomic<long>* next, void (*thunk)(void*, const Builtins&),
                        void* fn) {
  Worker w;
  w.L = L;
  w.nthreads = int(L->block[0] * L->block[1] * L->block[2]);
  w.fibers.resize(w.nthreads);
  w.cur = -1;
  // each fiber's stack: L->stack_bytes below its slot's end, above the slot's no-access guard (on_segv)
  if (L->stacks && L->stack_stride >= L->stack_guard + L->stack_bytes) {
    w.guard = L->stack_guard;
    char* region = L->stacks + L->stack_stride * ulong(w.nthreads) * ulong(index);
    for (int i = 0; i < w.nthreads; ++i) w.fibers[i].stack = region + L->stack_stride * ulong(i) + w.guard;
  } else {  // no stacks given: the launch fails (no fiber runs)
    w.guard = 0;
    int expected = 0;
    __atomic_compare_exchange_n(&L->fault_code, &expected, (int)CM_FAULT_INTERNAL, false, __ATOMIC_SEQ_CST,
                                __ATOMIC_SEQ_CST);
    g_abort.store(1);
  }
  // the SIGSEGV handler's own stack (a fiber that overflowed has none left)
  std::vector<char> alt(64 * 1024);
  stack_t ss{}, prev_ss{};
  ss.ss_sp = alt.data();
  ss.ss_size = alt.size();
  sigaltstack(&ss, &prev_ss);
  std::vector<uchar> shared(L->shared_bytes + 16);
  w.shared = shared.data();
  w.thunk = thunk;
  w.fn = fn;
  w.ticks = 0;
  w.deadline = std::chrono::steady_clock::now() +
               std::chrono::microseconds((long)(L->timeout_s * 1e6));
  tw = &w;
  long nblocks = long(L->grid[0]) * L->grid[1] * L->grid[2];
  for (;;) {
    long b = next->fetch_add(1);
    if (b >= nblocks || g_abort.load()) break;
    w.ctaid = {uint(b % L->grid[0]), uint((b / L->grid[0]) % L->grid[1]), uint(b / (long(L->grid[0]) * L->grid[1]))};
    std::memset(w.shared, 0, L->shared_bytes);
    run_block(&w);
    auto finished = std::chrono::steady_clock::now();
    if (finished > w.deadline && !g_abort.load()) {
      int expected = 0;
      __atomic_compare_exchange_n(&L->fault_code, &expected, CM_FAULT_TIMEOUT, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
      g_abort.store(1);
    }
    // the watchdog limits the time without a finished threadgroup, not the launch (as air-sim's)
    w.deadline = finished + std::chrono::microseconds((long)(L->timeout_s * 1e6));
  }
  sigaltstack(&prev_ss, nullptr);
  tw = nullptr;
}

template <class F> inline void thunk_of(void* p, const Builtins& b) { (*(F*)p)(b); }

template <class F> inline int run(Launch* L, F f) {
  g_abort.store(0);
  L->fault_code = 0;
  L->fault_addr = 0;
  L->fault_msg[0] = 0;
  std::atomic<long> next{0};
  long nblocks = long(L->grid[0]) * L->grid[1] * L->grid[2];
  int nw = L->workers < 1 ? 1 : L->workers;
  if (nw > nblocks) nw = int(nblocks);
  {
    std::lock_guard<std::mutex> hold(g_segv_lock);  // for the launch: fiber stack overflows (on_segv)
    if (g_segv_launches++ == 0) {
      struct sigaction sa {};
      sa.sa_sigaction = on_segv;
      sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
      sigemptyset(&sa.sa_mask);
      sigaction(SIGSEGV, &sa, &g_prev_segv);
    }
  }
  if (nw <= 1) {
    worker_main(L, 0, &next, &thunk_of<F>, &f);
  } else {
    std::vector<std::thread> ts;
    for (int i = 0; i < nw; ++i) ts.emplace_back(worker_main, L, i, &next, &thunk_of<F>, (void*)&f);
    for (auto& t : ts) t.join();
  }
  {
    std::lock_guard<std::mutex> hold(g_segv_lock);
    if (--g_segv_launches == 0) sigaction(SIGSEGV, &g_prev_segv, nullptr);
  }
  return L->fault_code;
}

// ---- SIMD-group functions (site = source line of the call)
template <typename T> inline ulong to_bits(T v) { ulong r = 0; std::memcpy(&r, &v, sizeof(T)); return r; }
template <typename T> inline T from_bits(ulong b) { T v; std::memcpy(&v, &b, sizeof(T)); return v; }

struct simd_vote {
  ulong v;
  explicit operator ulong() const { return v; }
};

template <typename T> inline T shuffle_at(int site, T v, ushort src) {
  Fiber& f = simd_wait(site, to_bits(v));
  uint s = src & 31;
  return ((f.snap_mask >> s) & 1) ? from_bits<T>(f.snap[s]) : v;
}
inline simd_vote ballot_at(int site, bool p) {
  Fiber& f = simd_wait(site, p ? 1 : 0);
  ulong m = 0;
  for (int i = 0; i < 32; ++i)
    if (((f.snap_mask >> i) & 1) && f.snap[i]) m |= 1ul << i;
  return simd_vote{m};
}
inline simd_vote active_at(int site) {
  Fiber& f = simd_wait(site, 0);
  return simd_vote{f.snap_mask};
}
template <typename T, class Op> inline T reduce_at(int site, T v, Op op) {
  Fiber& f = simd_wait(site, to_bits(v));
  bool first = true;
  T acc = v;
  for (int i = 0; i < 32; ++i)
    if ((f.snap_mask >> i) & 1) {
      T x = from_bits<T>(f.snap[i]);
      acc = first ? x : op(acc, x);
      first = false;
    }
  return acc;
}
inline void simd_barrier_at(int site) { simd_wait(site, 0); }
inline void tg_barrier() {
  Worker* w = tw;
  w->fibers[w->cur].state = BAR;
  yield_to_scheduler();
}

}  // namespace cm_sim

// ---- the metal namespace subset
namespace metal {
template <typename T, typename U> inline T as_type(U u) {
  static_assert(sizeof(T) == sizeof(U), "as_type needs equal sizes");
  T t;
  std::memcpy(&t, &u, sizeof(T));
  return t;
}
using std::ceil; using std::fabs; using std::floor; using std::fma; using std::isinf; using std::isnan; using std::isfinite;
using std::rint; using std::sqrt; using std::trunc; using std::exp2; using std::log2; using std::sin;
using std::cos; using std::tanh;
inline float rsqrt(float x) { return 1.0f / std::sqrt(x); }
inline double rsqrt(double x) { return 1.0 / std::sqrt(x); }
inline uint clz(uint x) { return x ? uint(__builtin_clz(x)) : 32u; }
inline ulong clz(ulong x) { return x ? ulong(__builtin_clzl(x)) : 64ul; }
inline uint popcount(uint x) { return uint(__builtin_popcount(x)); }
inline ulong popcount(ulong x) { return ulong(__builtin_popcountl(x)); }
inline uint reverse_bits(uint x) {
  uint r = 0;
  for (int i = 0; i < 32; ++i) r |= ((x >> i) & 1u) << (31 - i);
  return r;
}
namespace precise {
inline float divide(float a, float b) { return a / b; }
inline float sqrt(float a) { return std::sqrt(a); }
}  // namespace precise
namespace fast {
inline float divide(float a, float b) { return a / b; }
}  // namespace fast

enum memory_order { memory_order_relaxed = __ATOMIC_RELAXED, memory_order_seq_cst = __ATOMIC_SEQ_CST };
enum class mem_flags { mem_none = 0, mem_device = 1, mem_threadgroup = 2, mem_texture = 4 };
inline mem_flags operator|(mem_flags a, mem_flags b) { return mem_flags(int(a) | int(b)); }
enum thread_scope { thread_scope_thread, thread_scope_simdgroup, thread_scope_threadgroup, thread_scope_device };

struct atomic_uint { uint v; };
struct atomic_int { int v; };
template <typename A, typename T>
inline bool atomic_compare_exchange_weak_explicit(A* a, T* expected, T desired, memory_order, memory_order) {
  return __atomic_compare_exchange_n(&a->v, expected, desired, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
}
#define CM_SIM_RMW(NAME, BUILTIN)                                                     \
  inline uint NAME(atomic_uint* a, uint v, memory_order) { return BUILTIN(&a->v, v, __ATOMIC_SEQ_CST); } \
  inline int NAME(atomic_int* a, int v, memory_order) { return BUILTIN(&a->v, v, __ATOMIC_SEQ_CST); }
CM_SIM_RMW(atomic_fetch_add_explicit, __atomic_fetch_add)
CM_SIM_RMW(atomic_fetch_sub_explicit, __atomic_fetch_sub)
CM_SIM_RMW(atomic_fetch_and_explicit, __atomic_fetch_and)
CM_SIM_RMW(atomic_fetch_or_explicit, __atomic_fetch_or)
CM_SIM_RMW(atomic_fetch_xor_explicit, __atomic_fetch_xor)
CM_SIM_RMW(atomic_exchange_explicit, __atomic_exchange_n)
#undef CM_SIM_RMW
template <typename A, typename T> inline T cm_sim_fetch_min(A* a, T v) {
  T old = __atomic_load_n(&a->v, __ATOMIC_SEQ_CST);
  while (v < old && !__atomic_compare_exchange_n(&a->v, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
template <typename A, typename T> inline T cm_sim_fetch_max(A* a, T v) {
  T old = __atomic_load_n(&a->v, __ATOMIC_SEQ_CST);
  while (v > old && !__atomic_compare_exchange_n(&a->v, &old, v, true, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {}
  return old;
}
inline uint atomic_fetch_min_explicit(atomic_uint* a, uint v, memory_order) { return cm_sim_fetch_min(a, v); }
inline int atomic_fetch_min_explicit(atomic_int* a, int v, memory_order) { return cm_sim_fetch_min(a, v); }
inline uint atomic_fetch_max_explicit(atomic_uint* a, uint v, memory_order) { return cm_sim_fetch_max(a, v); }
inline int atomic_fetch_max_explicit(atomic_int* a, int v, memory_order) { return cm_sim_fetch_max(a, v); }
inline uint atomic_load_explicit(atomic_uint* a, memory_order) { return __atomic_load_n(&a->v, __ATOMIC_SEQ_CST); }
inline void atomic_store_explicit(atomic_uint* a, uint v, memory_order) { __atomic_store_n(&a->v, v, __ATOMIC_SEQ_CST); }
inline void atomic_thread_fence(mem_flags, memory_order, thread_scope = thread_scope_device) {
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
}
inline void threadgroup_barrier(mem_flags) { cm_sim::tg_barrier(); }
using cm_sim::simd_vote;
template <typename T> inline T cm_sim_add(T a, T b) { return T(a + b); }
}  // namespace metal

// Call sites of SIMD-group functions are told apart by their source line.
#define simd_shuffle(v, l) ::cm_sim::shuffle_at(__LINE__, (v), (l))
#define simd_ballot(p) ::cm_sim::ballot_at(__LINE__, (p))
#define simd_active_threads_mask() ::cm_sim::active_at(__LINE__)
#define simd_sum(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return decltype(a)(a + b); })
#define simd_min(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return a < b ? a : b; })
#define simd_max(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return a > b ? a : b; })
#define simd_and(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return decltype(a)(a & b); })
#define simd_or(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return decltype(a)(a | b); })
#define simd_xor(v) ::cm_sim::reduce_at(__LINE__, (v), [](auto a, auto b) { return decltype(a)(a ^ b); })
#define simdgroup_barrier(f) ::cm_sim::simd_barrier_at(__LINE__)

// Hooks of the emitted prelude: checked memory, loop watchdog, faults that end the launch.
#define CM_CHECK_GLOBAL(cm, a, n) ::cm_sim::check_global((a), (n))
#define CM_CHECK_SHARED(cm, a, n) ::cm_sim::check_window((a), (n), ::cm_sim::tw->L->shared_bytes, CM_SHARED_WINDOW)
#define CM_CHECK_LOCAL(cm, a, n) ::cm_sim::check_window((a), (n), ::cm_sim::tw->L->local_bytes, CM_LOCAL_WINDOW)
#define CM_CHECK_ALIGN(cm, a, n) ::cm_sim::check_align((a), (n))
#define CM_LOOP_HOOK(cm) ::cm_sim::loop_tick()
#define CM_LOOP_TOP(cm) ::cm_sim::loop_top(__LINE__)
#define CM_LOOP_EXIT(cm) ::cm_sim::loop_exit()
#define CM_CALL_BEGIN(cm) ::cm_sim::call_begin(__LINE__)
#define CM_CALL_END(cm) ::cm_sim::call_end()
#define CM_FAULT_HOOK(cm, code, a) ::cm_sim::fault((code), (a))
#define CM_WAIT_MASK(cm, m) (1u << ((cm).lane & 31u))  // the lane's own bit: nonzero, all the rules use
#define CM_WAIT_POINT(cm, kind, count, a) ::cm_sim::wait_point(__LINE__, (kind), (count), (a))

// MSL address-space qualifiers and function kinds have no CPU meaning.
#define device
#define threadgroup
#define constant const
#define thread
#define kernel
#endif
