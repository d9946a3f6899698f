"""``CUMETAL_BACKEND=cpu-jit``: the compiled CPU backend.

Kernels run as native code: the shared LLVM lowering of the kernel IR (the AIR module the Metal
path ships, with the air.* intrinsics implemented by a C runtime instead of an Apple GPU),
JIT-compiled by LLVM (cached in memory and on disk) and run on every core: threadgroups are
spread over ``CUMETAL_CPU_THREADS`` worker threads (default: the cores this process may use) with
the GIL released. Memory, modules, streams and events are the CPU device's; asynchronous streams
run launches on their worker thread while Python goes on.

A kernel the compiled path refuses (an operation with no lowering yet), a kernel of more than
``CUMETAL_JIT_MAX_INSTS`` IR instructions (default 40000, 8000 with a barrier: compile time) and a cluster or
cooperative launch (blocks that must run together; but a cooperative grid of a work-item kernel
whose grid barriers are in its own body runs compiled, ``_cooperative``) run on the numpy engine
instead, with the same semantics; ``fallbacks`` counts such launches and ``CUMETAL_DEBUG=1`` names the
refused kernels on stderr. An illegal or misaligned address or an illegal instruction found by the
compiled code is reported as the numpy engine reports it (kernel, block, thread, PTX instruction,
address, what is refused): the launch is rerun there for the report.

**Tiering** (``CUMETAL_JIT_TIER``; on by default behind ``CUMETAL_BACKEND=cpu``, off for
``cpu-jit``): compiling a kernel costs 15-40 ms (small kernels) to seconds, while the numpy engine
runs a small launch in about a millisecond. A kernel that is not in the JIT cache runs on the
numpy engine while its launches are small (its predicted numpy time, with 16 trips per loop, below
its predicted compile time); once its numpy launches have cost as much as its compile, it is
compiled on a background thread and runs natively from the launch after the compile is done; a
launch that runs longer than predicted starts that compile while it runs and hands its remaining
CTAs to the compiled code (``_LaunchTier``). A large launch compiles first. Both engines implement
one semantics: tiering changes only the speed. See docs/cpu-backend.md.
"""

from __future__ import annotations

import atexit
import dataclasses
import os
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from concurrent.futures import Future

from cumetal.devices.cpu_device import CpuDevice, watchdog_seconds
from cumetal.devices.fault_report import RERUN_FOR_REPORT, same_fault
from cumetal.devices.protocol import DeviceFault, log_fault

DEFAULT_MAX_INSTS = 40_000  # kernels without a barrier: compiled cheaply past compile.LARGE_LINES
DEFAULT_MAX_SYNC_INSTS = 8000  # kernels with a barrier: the work-item transform's regions grow with them
SYNC_OPS = frozenset({"barrier", "barrier_red", "mbarrier", "mbarrier_wait"})


def max_insts(sync: bool = False) -> int:
    """``CUMETAL_JIT_MAX_INSTS``: kernels with more IR instructions (over every function they may
    call) run on the numpy engine instead of being compiled; 0 = no limit. Default 40000, 8000 for a
    kernel with a barrier (``sync``). Measured on this project's 2-core machine (load 4-6, CPU
    seconds of the compile; docs/cpu-backend.md "Compile time of large kernels"): a straight-line
    kernel of 16k instructions took 62 s before the cheap path for large kernels, 3.5 s with it, one
    of 40k 13 s; a kernel of 9.2k instructions with 400 barriers still takes 115 s."""
    raw = os.environ.get("CUMETAL_JIT_MAX_INSTS", "").strip()
    if raw:
        try:
            n = int(raw)
            if n >= 0:
                return n
        except ValueError:
            pass
        print(f"cumetal: CUMETAL_JIT_MAX_INSTS={raw!r} is not a count; using the default",
              file=sys.stderr, flush=True)
    return DEFAULT_MAX_SYNC_INSTS if sync else DEFAULT_MAX_INSTS


_shapes: dict[tuple[int, int], tuple] = {}


def kernel_shape(kernel, module) -> tuple[int, bool]:
    """(IR instructions of ``kernel`` and every function it may call, whether any of them loops:
    a back edge in a function's control flow, or a call that can recur). Cached per kernel object."""
    key = (id(kernel), id(module))
    hit = _shapes.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    from cumetal.ir.analysis import callees, reachable_functions

    fns = reachable_functions(kernel, module)
    size = sum(len(b.insts) for f in fns for b in f.blocks)
    loops = any(_has_back_edge(f) for f in fns)
    if not loops and len(fns) > 1:  # recursion: a cycle in the call graph
        calls = {f.name: {c.name for b in f.blocks for i in b.insts for c in callees(module, i)} for f in fns}
        loops = _has_cycle(calls)
    if len(_shapes) > 1024:
        _shapes.clear()
    _shapes[key] = (kernel, module, (size, loops))
    return size, loops


_barriers: dict[tuple[int, int], tuple] = {}


def has_barrier(kernel, module) -> bool:
    """Whether ``kernel`` or a function it may call has a barrier (``max_insts``). Cached per kernel."""
    key = (id(kernel), id(module))
    hit = _barriers.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    from cumetal.ir.analysis import reachable_functions

    found = any(i.op in SYNC_OPS for f in reachable_functions(kernel, module) for b in f.blocks for i in b.insts)
    if len(_barriers) > 1024:
        _barriers.clear()
    _barriers[key] = (kernel, module, found)
    return found


def system_atomics(kernel, module) -> bool:
    """Whether ``kernel`` (or a function it calls) has a system-scope atomic (``atom.sys``,
    ``red.sys``): host threads may update the same words meanwhile, which only compiled code's real
    atomic instructions survive (the numpy engine reads, combines and writes back), so such a
    kernel is never tiered to the numpy engine (NVIDIA's systemWideAtomics)."""
    from cumetal.ir.analysis import reachable_functions

    return any(i.op in ("atomic", "atomic_cas") and ".sys" in i.text
               for f in reachable_functions(kernel, module) for b in f.blocks for i in b.insts)


def kernel_size(kernel, module) -> int:
    """IR instructions of ``kernel`` and every function it may call (cached per kernel object)."""
    return kernel_shape(kernel, module)[0]


def _has_back_edge(fn) -> bool:
    from cumetal.ir.analysis import reverse_postorder, successors

    if not fn.blocks:
        return False
    succ = successors(fn)
    order = {label: i for i, label in enumerate(reverse_postorder(fn.blocks[0].label, succ))}
    return any(t in order and order[t] <= i for label, i in order.items() for t in succ[label])


def _has_cycle(graph: dict[str, set[str]]) -> bool:
    state: dict[str, int] = {}  # 1 = on the path, 2 = done
    for root in graph:
        if root in state:
            continue
        state[root] = 1
        stack = [(root, iter(graph[root]))]
        while stack:
            node, it = stack[-1]
            nxt = next(it, None)
            if nxt is None:
                state[node] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return True
            elif nxt not in state and nxt in graph:
                state[nxt] = 1
                stack.append((nxt, iter(graph[nxt])))
    return False


# ---- tiering: the numpy engine for small launches of a kernel until its compile pays off

def tiering(default: bool) -> bool:
    """``CUMETAL_JIT_TIER`` = ``on`` / ``off`` (also 1/0); unset: ``default`` (on behind
    ``CUMETAL_BACKEND=cpu``, off for ``cpu-jit``, which always runs the compiled code)."""
    raw = os.environ.get("CUMETAL_JIT_TIER", "").strip().lower()
    if not raw:
        return default
    if raw in ("1", "on", "yes", "true"):
        return True
    if raw in ("0", "off", "no", "false"):
        return False
    print(f"cumetal: CUMETAL_JIT_TIER={raw!r} is not on or off; using {'on' if default else 'off'}",
          file=sys.stderr, flush=True)
    return default


# The cost model (seconds), fitted on this project's 2-core x86-64 machine under its usual load over
# 880 PTX sweep kernels (docs/cpu-backend.md): a compile (lowering, O3, code generation) costs about
# 20 ms + 0.65 ms per IR instruction; a numpy-engine launch about 0.3 ms, plus 15 us per instruction
# and batch of CTAs (the interpreter's per-step cost), plus 3 ns per instruction and thread.
COMPILE_BASE_S = 0.020
COMPILE_PER_INST_S = 0.00065
NUMPY_LAUNCH_S = 0.0003
NUMPY_STEP_S = 15e-6
NUMPY_LANE_STEP_S = 3e-9
NUMPY_BATCH_LANES = 32768  # the numpy engine's batch (backends/cpu/launch.py)
# A kernel with loops has its numpy time predicted with LOOP_TRIPS trips per loop (nothing bounds the
# real count: a first launch that loops longer costs what the numpy engine, the previous default, costs;
# the launches after it pay for the compile). Compiling loop kernels before their first launch made
# the sweep 2x slower than the numpy engine's (101 compiles at 0.3-1 s each under load).
LOOP_TRIPS = 16


def predicted_compile_s(size: int) -> float:
    return COMPILE_BASE_S + COMPILE_PER_INST_S * size


def predicted_numpy_s(size: int, grid, block) -> float:
    """A loop-free kernel's numpy-engine time: each instruction runs at most once per thread (for a
    kernel with loops, ``size`` counts LOOP_TRIPS runs of each instruction)."""
    per_block = max(1, block[0] * block[1] * block[2])
    blocks = max(1, grid[0] * grid[1] * grid[2])
    batches = -(-blocks // max(1, NUMPY_BATCH_LANES // per_block))
    return NUMPY_LAUNCH_S + size * (batches * NUMPY_STEP_S + blocks * per_block * NUMPY_LANE_STEP_S)


@dataclasses.dataclass
class _KernelTier:
    """What the tiering knows of one kernel object."""

    kernel: object
    module: object
    compiled: object = None  # the CompiledKernel, or the refusal (str); None: not compiled yet
    numpy_s: float = 0.0  # time its launches spent on the numpy engine
    pending: Future | None = None  # its compile on the background thread
    looked_up: bool = False  # the JIT cache was asked (a kernel compiled by an earlier process)
    plannable: bool | None = None  # CpuJitDevice._plan_for: no printf, heap, texture parameters, cluster shape


class BackgroundCompiler:
    """One daemon thread that runs compiles (and cache pruning) in submission order. At exit the
    queue is dropped and the running job is waited for (LLVM must not be torn down under it)."""

    EXIT_WAIT_S = 300.0  # one compile; kernels over CUMETAL_JIT_MAX_INSTS are never compiled

    def __init__(self) -> None:
        self._jobs: deque[tuple[Callable[[], object], Future]] = deque()
        self._cond = threading.Condition()
        self._running = False
        self._closed = False
        self._thread: threading.Thread | None = None
        self._pid = os.getpid()

    def submit(self, job: Callable[[], object]) -> Future:
        fut: Future = Future()
        with self._cond:
            if self._closed:
                fut.set_exception(RuntimeError("the process is exiting"))
                return fut
            if self._thread is None or self._pid != os.getpid():  # first use, or a forked child
                self._pid = os.getpid()
                self._jobs.clear()
                self._running = False
                self._thread = threading.Thread(target=self._serve, name="cumetal-jit-compile", daemon=True)
                self._thread.start()
                atexit.register(self.close)
            self._jobs.append((job, fut))
            self._cond.notify_all()
        return fut

    def busy(self) -> bool:
        with self._cond:
            return self._running or bool(self._jobs)

    def _serve(self) -> None:
        while True:
            with self._cond:
                while not self._jobs and not self._closed:
                    self._cond.wait()
                if self._closed:
                    return
                job, fut = self._jobs.popleft()
                self._running = True
            try:
                if fut.set_running_or_notify_cancel():
                    try:
                        fut.set_result(job())
                    except BaseException as e:  # noqa: BLE001 - handed to whoever waits for the result
                        fut.set_exception(e)
            finally:
                with self._cond:
                    self._running = False
                    self._cond.notify_all()

    def close(self) -> None:
        deadline = time.monotonic() + self.EXIT_WAIT_S
        with self._cond:
            self._closed = True
            for _, fut in self._jobs:
                fut.cancel()
            self._jobs.clear()
            self._cond.notify_all()
            while self._running and time.monotonic() < deadline:
                self._cond.wait(timeout=1.0)


_compiler = BackgroundCompiler()
TIERS_MAX = 512  # kernels whose tiering state a device keeps (a forgotten one asks the JIT cache again)


# ---- the disk cache's size cap

DEFAULT_CACHE_MB = 512


def cache_limit_bytes() -> int:
    """``CUMETAL_JIT_CACHE_MB``: the JIT disk cache's size cap in MiB (default 512; 0 = no cap)."""
    raw = os.environ.get("CUMETAL_JIT_CACHE_MB", "").strip()
    if raw:
        try:
            mb = float(raw)
            if mb >= 0:
                return int(mb * (1 << 20))
        except ValueError:
            pass
        print(f"cumetal: CUMETAL_JIT_CACHE_MB={raw!r} is not a size in MiB; using {DEFAULT_CACHE_MB}",
              file=sys.stderr, flush=True)
    return DEFAULT_CACHE_MB << 20


PRUNE_INTERVAL_S = 600.0  # a cache directory is scanned at most this often (by all processes)
_pruned = False


def prune_jit_cache(directory=None, limit: int | None = None, *, force: bool = False) -> tuple[int, int]:
    """Delete the least recently used kernels (oldest object mtime: a cache hit touches it) until
    the JIT cache holds at most 80% of ``limit`` bytes, when it holds more than ``limit``. Returns
    (bytes, files) deleted. Skipped when another process scanned less than ``PRUNE_INTERVAL_S``
    ago (a stamp file), unless ``force``."""
    from pathlib import Path

    if directory is None:
        from cumetal.backends.air.sim.compile import jit_cache_dir

        directory = jit_cache_dir()
    d = Path(directory)
    limit = cache_limit_bytes() if limit is None else limit
    if not limit:
        return 0, 0
    stamp = d / ".pruned"
    try:
        if not force and time.time() - stamp.stat().st_mtime < PRUNE_INTERVAL_S:
            return 0, 0
        stamp.touch()
    except FileNotFoundError:
        try:
            stamp.touch()
        except OSError:
            return 0, 0
    except OSError:
        return 0, 0
    entries: dict[str, list] = {}  # key -> [mtime of the object, bytes, paths]
    now = time.time()
    total = 0
    try:
        with os.scandir(d) as it:
            for e in it:
                name = e.name
                if name.startswith("."):
                    continue
                try:
                    st = e.stat()
                except OSError:
                    continue
                if name.endswith(".tmp"):  # a writer that died; a live one renames within seconds
                    if now - st.st_mtime > 3600:
                        _unlink(e.path)
                    continue
                key = name.rsplit(".", 1)[0]
                ent = entries.setdefault(key, [0.0, 0, []])
                if name.endswith(".o"):
                    ent[0] = st.st_mtime
                ent[1] += st.st_size
                ent[2].append(e.path)
                total += st.st_size
    except OSError:
        return 0, 0
    if total <= limit:
        return 0, 0
    freed = files = 0
    target = int(limit * 0.8)
    for _mtime, size, paths in sorted(entries.values(), key=lambda v: v[0]):  # no object (0): first
        if total - freed <= target:
            break
        for path in paths:
            files += _unlink(path)
        freed += size
    return freed, files


def _unlink(path) -> int:
    try:
        os.unlink(path)
        return 1
    except OSError:
        return 0


def _prune_once() -> None:
    """After this process's first compile: prune the disk cache on the background thread."""
    global _pruned
    if not _pruned:
        _pruned = True
        _compiler.submit(prune_jit_cache)


def worker_count() -> int:
    """``CUMETAL_CPU_THREADS`` (a positive integer), else the cores this process may run on."""
    raw = os.environ.get("CUMETAL_CPU_THREADS", "").strip()
    if raw:
        try:
            n = int(raw)
            if n >= 1:
                return n
        except ValueError:
            pass
        print(f"cumetal: CUMETAL_CPU_THREADS={raw!r} is not a positive integer; using all cores",
              file=sys.stderr, flush=True)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class CpuJitDevice(CpuDevice):
    engine_name = "compiled CPU backend (cpu-jit)"

    def __init__(self, *, tiered: bool | None = None) -> None:
        """``tiered``: small launches run on the numpy engine until compiling
        them pays off (default: ``CUMETAL_JIT_TIER``, else off)."""
        super().__init__()
        self.info = dataclasses.replace(self.info, name=self.info.name.replace("CPU", "CPU-JIT"))
        self.workers = worker_count()
        self.tiered = tiering(False) if tiered is None else tiered
        self.launches = 0  # kernels run as compiled code
        self.fallbacks = 0  # kernels the compiled path refused, run by the numpy engine
        self.interpreted = 0  # tiering: launches run on the numpy engine before their kernel was compiled
        self.background_compiles = 0  # tiering: compiles started on the background thread
        self.switched = 0  # tiering: numpy-engine launches whose rest ran natively once the compile was done
        self._tiers: dict[tuple[int, int], _KernelTier] = {}
        self._launch_cache: tuple | None = None  # (_launcher and numpy launch it was built from, launch)
        self._plans: dict[tuple, tuple] = {}  # _run's fast path: (kernel name, grid, block, shared) -> plan
        self._coop: dict[tuple[int, int], tuple] = {}  # _cooperative: kernel -> (kernel, module, copy or None)

    PLANS_MAX = 256

    def _run(self, image, kernel: str, grid, block, dynamic_shared: int, params: bytes, *, immediate: bool = True,
             **grouping):
        """CpuDevice._run, with a fast path for the repeated launch of a compiled kernel with one
        shape (the empty launch's host overhead, #12): the launch record that launch_air prepared
        (``sim.prepared_launch``) runs with this launch's parameters, skipping the launcher's
        layers — taken only while nothing they decide can differ from the launch that made the plan:
        the same image, module, kernel and device memory, the same launch function (``_launcher`` and the numpy
        engine's ``launch``: tests replace them), the kernel still compiled, the same symbol
        addresses, and a kernel without printf, device heap, texture parameters or cluster shape.
        A fault is reported as ``native_launch`` reports it (rerun on the numpy engine)."""
        if not grouping:
            plan = self._planned(image, kernel, grid, block, dynamic_shared)
            if plan is not None:
                return self._run_planned(plan, grid, block, dynamic_shared, params, kernel)
        fault = super()._run(image, kernel, grid, block, dynamic_shared, params, immediate=immediate, **grouping)
        if not grouping:
            try:
                self._plan_for(image, kernel, grid, block, dynamic_shared)
            except Exception:  # (a plan is only an optimisation)
                pass
        return fault

    def _planned(self, image, kernel: str, grid, block, dynamic_shared: int):
        """The plan for this launch (``_run``), or None: no plan, or one whose conditions changed."""
        plan = self._plans.get((kernel, grid, block, dynamic_shared))
        if plan is None:
            return None
        p_image, p_module, fn, p_launch, symbols, _run, tier, ck, _numpy_launch, memory = plan
        module = image.module
        if (p_image is image and p_module is module and module.kernels.get(kernel) is fn and tier.compiled is ck
                and memory is self.memory and self._launch_function() is p_launch
                and (image.symbol_addresses() if image.symbols else {}) == symbols):
            return plan
        return None

    def enqueue_launch(self, stream, image, kernel: str, grid, block, dynamic_shared: int, params: bytes, **grouping):
        """CpuDevice.enqueue_launch; a planned launch on an eager stream goes straight to the plan."""
        if not grouping and getattr(stream, "work", True) is None:
            plan = self._planned(image, kernel, grid, block, dynamic_shared)
            if plan is not None:
                fault = self._run_planned(plan, grid, block, dynamic_shared, params, kernel)
                if fault is not None:
                    log_fault(fault)
                    stream.add_fault(fault)
                return fault
        return super().enqueue_launch(stream, image, kernel, grid, block, dynamic_shared, params, **grouping)

    def _run_planned(self, plan, grid, block, dynamic_shared, params, kernel):
        _image, module, fn, _launch, symbols, run, _tier, _ck, numpy_launch, _memory = plan
        watchdog_s = watchdog_seconds()
        try:
            with self._exec_lock:
                self.launches += 1
                out = run(params, watchdog_s)
                if out is None:
                    return None
                if out.fault is not None and out.fault.code in RERUN_FOR_REPORT:  # as native_launch does
                    ref = numpy_launch(fn, module, self.memory, grid, block, dynamic_shared, params, symbols,
                                       watchdog_s=watchdog_s)
                    if same_fault(out.fault, ref.fault):
                        out = type(out)(ref.fault, out.printf)
        except Exception as e:  # an engine bug must not take the process down (CpuDevice._run)
            if os.environ.get("CUMETAL_DEBUG"):
                import traceback

                traceback.print_exc()
            return DeviceFault("launch_failure", f"internal error in the {self.engine_name}: {e!r}", kernel)
        f = out.fault
        return None if f is None else DeviceFault(str(f.code), str(f.message), kernel)

    def _plan_for(self, image, kernel: str, grid, block, dynamic_shared: int) -> None:
        """After a launch through the launcher: the fast path's plan for the next launches of this
        kernel and shape, when the kernel ran compiled and nothing per launch needs the launcher."""
        module = image.module
        fn = module.kernels.get(kernel)
        t = self._tiers.get((id(fn), id(module)))
        if t is None or t.kernel is not fn or t.module is not module or t.compiled is None or isinstance(t.compiled, str):
            return
        from cumetal.backends.air.sim import prepared_launch

        if t.plannable is None:
            from cumetal.backends.air.sim.heap import uses_heap
            from cumetal.passes.specialize_textures import _plan as texture_plan

            t.plannable = not (getattr(fn, "cluster_dims", None) is not None or uses_heap(fn, module)
                               or texture_plan(fn, module).handles
                               or any(role == "printf" for _, role in t.compiled.arg_kinds))
        if not t.plannable:
            return
        symbols = image.symbol_addresses() if image.symbols else {}
        launch_fn = self._launch_function()
        run = prepared_launch(fn, module, self.memory, grid, block, dynamic_shared, symbols, workers=self.workers,
                              compiled=t.compiled)
        if run is None:
            return
        if len(self._plans) >= self.PLANS_MAX:
            self._plans.clear()
        self._plans[(kernel, grid, block, dynamic_shared)] = (image, module, fn, launch_fn, symbols, run, t,
                                                              t.compiled, _numpy_engine().launch, self.memory)

    def _tier(self, kernel, module) -> _KernelTier:
        key = (id(kernel), id(module))
        t = self._tiers.get(key)
        if t is None or t.kernel is not kernel or t.module is not module:
            if len(self._tiers) >= TIERS_MAX:  # (each entry keeps its module alive) the oldest half goes
                old = [k for k, v in self._tiers.items() if v.pending is None][: TIERS_MAX // 2]
                for k in old:
                    del self._tiers[k]
            t = self._tiers[key] = _KernelTier(kernel, module)
        return t

    def _account(self, t: _KernelTier, cost: float, running_s: float = 0.0) -> None:
        """Once a kernel's numpy-engine launches (with ``running_s`` of the one running) have cost
        as much as its compile, compile it on the background thread (ski rental)."""
        if t.pending is None and t.compiled is None and t.numpy_s + running_s >= cost:
            self.background_compiles += 1
            kernel, module = t.kernel, t.module
            t.pending = _compiler.submit(lambda: _compile_job(kernel, module))

    def _compiled(self, kernel, module, grid, block, numpy_launch, args, kwargs, native_launch=None):
        """(the kernel's CompiledKernel or refusal (str), None), or, tiering, (None, the outcome of
        running this launch on the numpy engine)."""
        from cumetal.backends.air.sim import compile_or_refusal

        t = self._tier(kernel, module)
        if t.compiled is not None:
            return t.compiled, None
        if t.pending is not None and t.pending.done():
            t.compiled = _result(t.pending)
            t.pending = None
            return t.compiled, None
        size, loops = kernel_shape(kernel, module)
        limit = max_insts(size > DEFAULT_MAX_SYNC_INSTS and has_barrier(kernel, module))
        if limit and size > limit:
            t.compiled = (f"{size} IR instructions exceed CUMETAL_JIT_MAX_INSTS={limit} (compile time; "
                          f"0 = no limit)")
            return t.compiled, None
        cost = predicted_compile_s(size)
        if self.tiered and not system_atomics(kernel, module):
            if not t.looked_up and not _compiler.busy():  # (the cache key needs LLVM: not while it compiles)
                t.looked_up = True
                from cumetal.backends.air.sim.compile import cached_kernel

                try:
                    hit = cached_kernel(kernel, module) is not None
                except Exception:  # noqa: BLE001 - the compile reports what is wrong, if it comes to one
                    hit = False
                if hit:
                    t.compiled = compile_or_refusal(kernel, module)  # a memory hit now (builds the runtime once)
                    return t.compiled, None
            work = size * (LOOP_TRIPS if loops else 1)
            if predicted_numpy_s(work, grid, block) < cost:  # (also while its compile runs: no wait)
                hooks = None
                # a loop kernel's launch may run far longer than predicted: it may hand over while it
                # runs (a loop-free one is bounded by its prediction; not a test's replacement launcher)
                if loops and getattr(numpy_launch, "supports_tier", False):
                    hooks = _LaunchTier(self, t, cost, native_launch, args, kwargs)
                    kwargs = {**kwargs, "tier": hooks}
                t0 = time.perf_counter()
                out = numpy_launch(kernel, module, *args, **kwargs)
                t.numpy_s += time.perf_counter() - t0 - (hooks.native_s if hooks is not None else 0.0)
                self.interpreted += 1
                if hooks is not None and hooks.took_over:
                    self.switched += 1
                    self.launches += 1
                self._account(t, cost)
                return None, out
            if t.pending is not None:  # a large launch while the kernel compiles: wait for it
                t.compiled = _result(t.pending, wait_s=BackgroundCompiler.EXIT_WAIT_S)
                t.pending = None
                return t.compiled, None
        t.compiled = compile_or_refusal(kernel, module)  # cached per kernel object after the first
        if not isinstance(t.compiled, str) and not t.compiled.from_disk:
            _prune_once()
        return t.compiled, None

    def _launch_function(self):
        """``_launcher()``'s result, built once (its closures and the heap wrapper cost microseconds
        per launch otherwise), again when ``_launcher`` or the numpy engine's ``launch`` was replaced."""
        factory = self._launcher
        numpy_engine = _numpy_engine()
        key = (getattr(factory, "__func__", factory), numpy_engine.launch)
        hit = self._launch_cache
        if hit is not None and hit[0][0] is key[0] and hit[0][1] is key[1]:
            return hit[1]
        launch = factory()
        self._launch_cache = (key, launch)
        return launch

    def _launcher(self):
        from cumetal.backends.air.sim import launch_air
        from cumetal.backends.air.sim.heap import with_device_heap
        from cumetal.backends.cpu import launch as numpy_launch
        from cumetal.passes.specialize_textures import for_launch as specialize_textures

        def native_launch(kernel, module, compiled, *args, **kwargs):
            """Compiled code for the launch (or its CTAs from ``first_cta`` on); an address fault
            or refused operation is rerun on the numpy engine for its report."""
            out = launch_air(kernel, module, *args, workers=self.workers, compiled=compiled, **kwargs)
            if out.fault is not None and out.fault.code in RERUN_FOR_REPORT:
                # the compiled code knows the address, not the PTX instruction, block and thread (nor
                # which refused operation): the numpy engine reruns the launch for the report (memory
                # after a faulted launch is undefined, as on CUDA); its report is used when it finds
                # the same fault at the same address (devices/fault_report.py)
                first = kwargs.pop("first_block", 0)
                ref = numpy_launch(kernel, module, *args, **kwargs, **({"first_cta": first} if first else {}))
                if same_fault(out.fault, ref.fault):
                    return type(out)(ref.fault, out.printf)
            return out

        tiers = self._tiers

        def launch(kernel, module, *args, **kwargs):
            if len(args) >= 5:  # texture handles as parameters: a copy folded on their descriptors
                kernel, module = specialize_textures(kernel, module, args[0], args[4])
            # the common case first: a compiled kernel's plain launch (no cluster or cooperative grid)
            t = tiers.get((id(kernel), id(module)))
            if (t is not None and t.kernel is kernel and t.module is module and t.compiled is not None
                    and not isinstance(t.compiled, str) and "cluster" not in kwargs
                    and "cooperative" not in kwargs and getattr(kernel, "cluster_dims", None) is None):
                self.launches += 1
                return native_launch(kernel, module, t.compiled, *args, **kwargs)
            if (kwargs.get("cooperative") and not kwargs.get("cluster")
                    and getattr(kernel, "cluster_dims", None) is None):
                out = self._cooperative(kernel, module, numpy_launch, args, kwargs)
                if out is not None:
                    return out
            if kwargs.get("cluster") or kwargs.get("cooperative") or getattr(kernel, "cluster_dims", None) is not None:
                # clusters and cooperative grids need their blocks co-scheduled: the numpy engine's
                # (cooperative grids of work-item kernels with grid barriers run compiled: _cooperative)
                self.fallbacks += 1
                return numpy_launch(kernel, module, *args, **kwargs)
            kwargs.pop("cluster", None)
            kwargs.pop("cooperative", None)
            grid, block = _shape3(args[1]), _shape3(args[2])  # (memory, grid, block, ...)
            if grid is None or block is None:  # malformed: the engine reports it
                compiled = self._tier(kernel, module).compiled
                if compiled is None:
                    return numpy_launch(kernel, module, *args, **kwargs)
            else:
                compiled, outcome = self._compiled(kernel, module, grid, block, numpy_launch, args, kwargs,
                                                   native_launch)
                if compiled is None:  # tiering ran it on the numpy engine
                    return outcome
            if isinstance(compiled, str):
                self.fallbacks += 1
                if os.environ.get("CUMETAL_DEBUG"):
                    print(f"cumetal: cpu-jit runs kernel {kernel.name} on the numpy engine: {compiled}",
                          file=sys.stderr, flush=True)
                return numpy_launch(kernel, module, *args, **kwargs)
            self.launches += 1
            return native_launch(kernel, module, compiled, *args, **kwargs)

        # device-side malloc/free: the Apple targets' allocator (backends/apple/heap.ptx) is linked in
        # before either engine runs the kernel, so compiled and numpy launches share one heap
        return with_device_heap(launch)

    def _cooperative(self, kernel, module, numpy_launch, args, kwargs):
        """A cooperative launch on compiled code, or None (the numpy engine's then): a kernel whose
        grid barriers (``grid_group::sync()``) are all in its own body is compiled from a copy of its
        module with those barriers kept (``sim.grid.cooperative_module``) and, when it becomes a
        work-item kernel, runs with each worker's threadgroups taking turns and the workers meeting at
        the grid barriers (workitem.c ``run_grid``). Tiering as for plain launches (small launches on the numpy
        engine, which then runs the original kernel cooperatively). A cooperative kernel without a
        grid barrier (blocks that may wait for each other through memory) keeps the numpy engine."""
        from cumetal.backends.air.sim import launch_air
        from cumetal.backends.air.sim.grid import cooperative_module, grid_barrier_places

        hit = self._coop.get((id(kernel), id(module)))
        if hit is None or hit[0] is not kernel or hit[1] is not module:
            body, callee = grid_barrier_places(kernel, module)
            hit = (kernel, module, cooperative_module(kernel, module) if body and not callee else None)
            if len(self._coop) > 256:
                self._coop.clear()
            self._coop[(id(kernel), id(module))] = hit
        if hit[2] is None:
            return None
        k2, m2 = hit[2]
        grid, block = _shape3(args[1]), _shape3(args[2])
        if grid is None or block is None:
            return None

        def numpy_coop(_k, _m, *a, **kw):  # the tiering's numpy launches: the original kernel
            return numpy_launch(kernel, module, *a, **kw)

        compiled, outcome = self._compiled(k2, m2, grid, block, numpy_coop, args, kwargs)
        if compiled is None:
            return outcome
        if isinstance(compiled, str) or compiled.wi is None:
            return None
        kw = {k: v for k, v in kwargs.items() if k not in ("cluster", "cooperative", "tier")}
        self.launches += 1
        out = launch_air(k2, m2, *args, workers=self.workers, compiled=compiled, cooperative=True, **kw)
        if out.fault is not None and out.fault.code in RERUN_FOR_REPORT:  # as native_launch
            ref = numpy_launch(kernel, module, *args, **kwargs)
            if same_fault(out.fault, ref.fault):
                return type(out)(ref.fault, out.printf)
        return out

    def supports_grouped_launch(self) -> bool:
        """Cluster and cooperative launches run on the numpy engine (see ``_launcher``)."""
        return True


class _LaunchTier:
    """The tiering's side of one numpy-engine launch of a kernel not compiled yet
    (``backends.cpu.launch.TierHooks``): when the kernel's numpy time (earlier launches and this
    one so far) reaches its predicted compile, the compile starts on the background thread; once
    it is done, the launch's remaining CTAs run natively (at the next batch boundary, or at once,
    the running batch's writes undone). So a launch that loops far longer than
    its prediction costs about its numpy time up to the compile, the compile, and the native
    time of the rest — not the numpy engine's time for all of it."""

    def __init__(self, device: CpuJitDevice, tier: _KernelTier, cost: float, native_launch, args, kwargs) -> None:
        self.device, self.tier, self.cost = device, tier, cost
        self.native_launch, self.args, self.kwargs = native_launch, args, kwargs
        self.t0 = time.perf_counter()
        self.took_over = False
        self.native_s = 0.0
        self._ready = False
        self._yielded = 0.0

    def poll(self, at_cta: int | None = None) -> bool:
        if self._ready:
            return True
        t = self.tier
        if t.compiled is None and t.pending is None:
            if t.numpy_s + time.perf_counter() - self.t0 >= self.cost:
                self.device._account(t, self.cost, time.perf_counter() - self.t0)
            return False
        if t.compiled is None and not t.pending.done():
            # the compile's Python half (the lowering) needs the GIL this engine holds: hand it
            # over at every poll (measured, loaded machine: a compile of 0.3 s alone took 0.52 s
            # next to a running launch without this, 0.31 s with a 2 ms sleep per poll); at most
            # every 2 ms (the engine's watchdog check reads its deadline twice)
            now = time.perf_counter()
            if now - self._yielded >= 0.002:
                time.sleep(0.001)
                self._yielded = time.perf_counter()
            return False
        if t.compiled is None:
            t.compiled = _result(t.pending)
            t.pending = None
        self._ready = not isinstance(t.compiled, str) and self.native_launch is not None
        return self._ready

    def run_native(self, first_cta: int, watchdog_s: float | None):
        t0 = time.perf_counter()
        self.took_over = True
        kwargs = {**self.kwargs, "watchdog_s": watchdog_s, "first_block": first_cta}
        kwargs.pop("tier", None)
        try:
            return self.native_launch(self.tier.kernel, self.tier.module, self.tier.compiled, *self.args, **kwargs)
        finally:
            self.native_s = time.perf_counter() - t0




_NUMPY_ENGINE = None


def _numpy_engine():
    """The module ``cumetal.backends.cpu`` (imported once: an import statement per launch costs
    about 0.3 us; its ``launch`` attribute is read per launch, as tests replace it)."""
    global _NUMPY_ENGINE
    if _NUMPY_ENGINE is None:
        import cumetal.backends.cpu as numpy_engine

        _NUMPY_ENGINE = numpy_engine
    return _NUMPY_ENGINE


def _shape3(v) -> tuple[int, int, int] | None:
    try:
        t = tuple(int(x) for x in v)
    except (TypeError, ValueError):
        return None
    return t if len(t) == 3 and min(t) >= 1 else None  # type: ignore[return-value]


def _compile_job(kernel, module):
    """A background compile: the CompiledKernel, or the refusal (a string)."""
    from cumetal.backends.air.sim import compile_or_refusal

    got = compile_or_refusal(kernel, module)
    if not isinstance(got, str) and not got.from_disk:
        _prune_once()
    return got


def _result(fut: Future, wait_s: float = 0.0):
    """A background compile's CompiledKernel or refusal; an error in it (or no result within
    ``wait_s``) is a refusal: the kernel stays on the numpy engine, with the same semantics."""
    try:
        return fut.result(timeout=wait_s)
    except BaseException as e:  # noqa: BLE001 - cancelled at exit, or an internal error of the compile
        return f"the background compile failed: {e!r}"
