"""Kernel launch on the CPU engine: argument checks, the parameter buffer, batching of CTAs.

A tiered launch (``tier=``, the compiled backend's tiering, devices/cpu_jit_device.py) can hand
the rest of the grid to compiled code: CTAs are independent in a launch that is neither cluster nor
cooperative, so at a batch boundary the remaining CTAs run natively on the same memory; inside a
batch, the batch's writes to device memory are logged (old contents) and undone, its printf lines
taken back, and the batch reruns natively from its first CTA. See ``TierHooks``, ``_UndoLog``.
"""

from __future__ import annotations

import ctypes
import os
import sys
import time
from typing import Protocol

import numpy as np

from cumetal.backends.cpu.cluster import cluster_order, set_grouping
from cumetal.backends.cpu.engine import MAX_CALL_DEPTH, code_for, run
from cumetal.backends.cpu.state import Batch, Ctx, Fault, KernelFault, LaunchOutcome
from cumetal.ir.nodes import Function, Module

LANE_BUDGET = 1 << 15  # most lanes in one batch: lane arrays stay cache-sized (measured best, see docs)
BYTES_BUDGET = 256 << 20  # registers + local memory + shared memory of one batch
RECURSIVE_STACK = 16 << 10  # local bytes per thread when the call graph is recursive
MAX_THREADS_PER_BLOCK = 1024


_TUNED = False


def _tune_allocator() -> None:
    """Keep freed lane arrays inside the process (glibc only; CUMETAL_CPU_MALLOPT=0 opts out).

    Every step allocates fresh 100-300 KB arrays; with glibc's defaults each is a new mmap or
    trimmed heap, so every step pays page faults (measured: 4x on a 2^24 vector add). Raising the
    mmap and trim thresholds keeps up to 128 MiB of freed memory for reuse."""
    global _TUNED
    if _TUNED:
        return
    _TUNED = True
    if os.environ.get("CUMETAL_CPU_MALLOPT", "1") == "0" or not sys.platform.startswith("linux"):
        return
    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return
    mallopt(-3, 32 << 20)  # M_MMAP_THRESHOLD
    mallopt(-1, 128 << 20)  # M_TRIM_THRESHOLD


def _calls(fn: Function) -> set[str]:
    out = set()
    for b in fn.blocks:
        for i in b.insts:
            if i.op == "call":
                out.add(i.attrs["callee"])
    return out


def _has_indirect(fn: Function) -> bool:
    return any(i.op == "call_indirect" for b in fn.blocks for i in b.insts)


def stack_bytes(kernel: Function, module: Module) -> int:
    """Local memory one thread needs: the deepest chain of frames (16-byte aligned), or
    RECURSIVE_STACK when the call graph has a cycle (recursion or indirect calls into one)."""
    memo: dict[str, int] = {}
    onpath: set[str] = set()

    def frame(fn: Function) -> int:
        return (fn.local_size + 15) // 16 * 16

    def depth(fn: Function) -> int | None:
        if fn.name in memo:
            return memo[fn.name]
        if fn.name in onpath:
            return None
        onpath.add(fn.name)
        callees = set(_calls(fn))
        if _has_indirect(fn):
            callees |= set(module.functions)
        best = 0
        for c in callees:
            f = module.functions.get(c)
            if f is None:
                continue
            d = depth(f)
            if d is None:
                onpath.discard(fn.name)
                return None
            best = max(best, d)
        onpath.discard(fn.name)
        memo[fn.name] = frame(fn) + best
        return memo[fn.name]

    d = depth(kernel)
    return RECURSIVE_STACK if d is None else d


def _prod(v) -> int:
    out = 1
    for x in v:
        out *= int(x)
    return out


def _check_shape(name: str, v) -> tuple[int, int, int]:
    try:
        t = tuple(int(x) for x in v)
    except (TypeError, ValueError):
        raise Fault("invalid_launch", f"{name} must be three integers, got {v!r}") from None
    if len(t) != 3 or min(t) < 1:
        raise Fault("invalid_launch", f"{name} must be three positive integers, got {v!r}")
    return t  # type: ignore[return-value]


class TierHooks(Protocol):
    """What a tiered launch asks the tiering (devices/cpu_jit_device.py) while it runs."""

    def poll(self, at_cta: int | None = None) -> bool:
        """Called at every batch boundary (``at_cta``: the next CTA to run) and every few
        milliseconds inside a batch (the engine's watchdog checks; None): True once compiled
        code can take over the launch."""

    def run_native(self, first_cta: int, watchdog_s: float | None) -> LaunchOutcome:
        """Run CTAs ``first_cta``.. of the launch as compiled code (after ``poll`` said True)."""


class _UndoLog:
    """The launch's device memory as a tiered batch sees it: before each store or atomic to
    device memory (they all go through ``scatter``/``atomic``/``write``) the old contents of the
    addresses are logged, so the batch's writes can be undone and the batch rerun elsewhere. Past
    ``UNDO_LIMIT`` bytes of log, or on anything it cannot log (the Python device heap), the batch
    is no longer undoable."""

    def __init__(self, memory) -> None:
        d = self.__dict__
        d["_mem"], d["gather"], d["find"] = memory, memory.gather, memory.find
        d["entries"], d["bytes"], d["undoable"] = [], 0, True

    def reset(self) -> None:
        d = self.__dict__
        d["entries"], d["bytes"], d["undoable"] = [], 0, True

    def _log(self, addrs, dtype) -> None:
        d = self.__dict__
        if not d["undoable"]:
            return
        try:
            a = np.array(addrs, dtype=np.uint64).reshape(-1)
            old = self._mem.gather(a, dtype)
        except Exception:  # noqa: BLE001 - a bad address: the write itself reports it; no undo
            self._give_up()
            return
        d["entries"].append((a, old))
        d["bytes"] += a.nbytes + old.nbytes
        if d["bytes"] > UNDO_LIMIT:
            self._give_up()

    def _give_up(self) -> None:
        d = self.__dict__
        d["entries"], d["undoable"] = [], False

    def undo(self) -> None:
        """Restore what the batch overwrote (latest first, so each address gets its oldest value)."""
        for a, old in reversed(self.entries):
            self._mem.scatter(a, old)
        self.reset()

    def scatter(self, addrs, values):
        self._log(addrs, np.asarray(values).dtype)
        return self._mem.scatter(addrs, values)

    def atomic(self, op, addrs, values, compare=None, dtype=None, combine=None):
        self._log(addrs, np.dtype(dtype) if dtype is not None else np.asarray(values).dtype)
        return self._mem.atomic(op, addrs, values, compare=compare, dtype=dtype, combine=combine)

    def write(self, addr: int, data) -> None:
        self._log(np.arange(addr, addr + memoryview(data).nbytes, dtype=np.uint64), np.uint8)
        self._mem.write(addr, data)

    def __getattr__(self, name: str):
        if name in ("_cumetal_device_heap", "view"):  # the Python device heap, a raw view: not undoable
            self._give_up()
        return getattr(self._mem, name)

    def __setattr__(self, name: str, value) -> None:  # (heap_of caches the device heap on the memory)
        setattr(self._mem, name, value)


UNDO_LIMIT = 64 << 20  # bytes of undo log per tiered batch (addresses and old values)


class _TieredBatch(Batch):
    """A batch whose watchdog check also asks the tiering whether compiled code is ready, and
    abandons the batch then if its writes can be undone."""

    _tier: TierHooks | None = None
    _undo: _UndoLog | None = None
    abandoned = False

    @property  # type: ignore[override]
    def deadline(self) -> float | None:
        tier = self._tier
        if tier is not None and tier.poll() and self._undo.undoable:
            self.abandoned = True
            return float("-inf")  # the engine's check raises its timeout fault now: taken as the abandonment
        return self._deadline

    @deadline.setter
    def deadline(self, value: float | None) -> None:
        self._deadline = value


def _deadline(watchdog_s: float | None) -> float | None:
    """The watchdog's deadline for the next batch: it measures the time since the launch last
    finished a batch of CTAs, so a long kernel that keeps finishing CTAs runs to its end (CUDA's
    GPUs without a display set no limit) and a runaway loop stops after ``watchdog_s``."""
    return time.perf_counter() + watchdog_s if watchdog_s else None


def launch(kernel: Function, module: Module, memory, grid: tuple[int, int, int],
           block: tuple[int, int, int], dynamic_shared: int, params: bytes, symbols: dict[str, int],
           *, watchdog_s: float | None = None, cluster: tuple[int, int, int] | None = None,
           cooperative: bool = False, tier: TierHooks | None = None, first_cta: int = 0) -> LaunchOutcome:
    """Run ``kernel`` over the grid; faults come back in the outcome, never as exceptions.

    ``cluster``: the launch's cluster shape (else the kernel's .reqnctapercluster, else none);
    a batch then holds whole clusters. ``cooperative``: the whole grid runs as one batch, so a
    grid-wide barrier can complete (backends/cpu/cluster.py). ``tier``: the compiled backend's
    tiering may take the rest of the launch over (see the module docstring; ignored for cluster
    and cooperative launches). ``first_cta``: run only the CTAs from this linear id on (the rest
    of a launch whose first CTAs ran elsewhere)."""
    printf: list[str] = []
    param_base = workspace = None
    needed = 20 * MAX_CALL_DEPTH + 1000
    try:
        grid = _check_shape("grid", grid)
        block = _check_shape("block", block)
        tpb = block[0] * block[1] * block[2]
        if tpb > MAX_THREADS_PER_BLOCK:
            raise Fault("invalid_launch", f"{tpb} threads per block exceed {MAX_THREADS_PER_BLOCK}")
        if kernel.maxntid and tpb > _prod(kernel.maxntid):
            raise Fault("invalid_launch", f"{tpb} threads per block exceed .maxntid {kernel.maxntid} of {kernel.name}")
        if kernel.reqntid and tuple(kernel.reqntid) + (1,) * (3 - len(kernel.reqntid)) != block:
            raise Fault("invalid_launch", f"block {block} differs from .reqntid {kernel.reqntid} of {kernel.name}")
        if dynamic_shared < 0:
            raise Fault("invalid_launch", f"negative dynamic shared memory size {dynamic_shared}")
        if len(params) < kernel.param_size:
            raise Fault("invalid_launch", f"kernel {kernel.name} takes {kernel.param_size} bytes of parameters, "
                        f"got {len(params)}")
        code = code_for(kernel)
        _tune_allocator()
        param_base = memory.alloc(max(len(params), 1))
        if params:
            memory.write(param_base, bytes(params))
        dyn_base = (kernel.static_shared_size + 15) // 16 * 16
        shared_size = dyn_base + dynamic_shared if (dynamic_shared or kernel.uses_dynamic_shared) \
            else kernel.static_shared_size
        key = (id(module), len(module.functions))
        facts = code.launch_facts.get(key)
        if facts is None:  # stack size and register bytes per lane, once per kernel and module
            local = stack_bytes(kernel, module)
            facts = code.launch_facts[key] = (local, sum(dt.itemsize for dt in code.var_dtypes) + local + 64)
        local, per_lane = facts
        per_cta = per_lane * tpb + shared_size
        ctas_per_batch = max(1, min(LANE_BUDGET // tpb, BYTES_BUDGET // max(per_cta, 1)))
        total = grid[0] * grid[1] * grid[2]
        explicit = cluster is not None or kernel.cluster_dims is not None
        cluster = _check_cluster(kernel, grid, cluster)
        csize = cluster[0] * cluster[1] * cluster[2]
        order = cluster_order(grid, cluster)
        ctas_per_batch = total if cooperative else max(csize, ctas_per_batch // csize * csize)
        if cooperative:  # the grid-barrier word of NVIDIA's grid_group::sync() (%envreg1:%envreg2)
            workspace = memory.alloc(16)
            memory.write(workspace, bytes(16))
        # Raised once and left raised: CPython 3.11's Py_SetRecursionLimit walks the thread-state list
        # without its lock, so setting it on every launch while stream worker threads exit crashed the
        # process (a segfault in Py_SetRecursionLimit seen under the full test suite).
        if sys.getrecursionlimit() < needed:
            sys.setrecursionlimit(needed)
        if tier is not None and (cooperative or explicit or csize > 1):
            tier = None  # co-scheduled blocks: the whole launch stays on this engine
        with np.errstate(all="ignore"):
            if tier is None:
                for c0 in range(first_cta, total, ctas_per_batch):
                    nctas = min(ctas_per_batch, total - c0)
                    deadline = _deadline(watchdog_s)  # the time without a finished batch is limited
                    batch = Batch(memory, module, kernel, grid, block, c0, nctas, symbols, param_base,
                                  shared_size, dynamic_shared, local, deadline, watchdog_s, printf)
                    set_grouping(batch, None if order is None else order[c0:c0 + nctas], cluster, explicit,
                                 cooperative, workspace)
                    run(_root_ctx(batch, code))
                return LaunchOutcome(None, printf)
            return _tiered(kernel, module, memory, grid, block, symbols, param_base, shared_size, dynamic_shared,
                           local, watchdog_s, printf, code, tier, first_cta, total, ctas_per_batch)
    except Fault as f:
        return LaunchOutcome(KernelFault(f.code, f.message), printf)
    except RecursionError:
        return LaunchOutcome(KernelFault("illegal_address", f"call stack overflow in kernel {kernel.name}"), printf)
    except (MemoryError, ValueError, TypeError, KeyError, IndexError, NotImplementedError) as e:
        # an IR construct the engine cannot execute (or a bug): a failed launch, never a traceback
        return LaunchOutcome(KernelFault("illegal_instruction", f"kernel {kernel.name}: the CPU engine cannot "
                                         f"execute this kernel: {type(e).__name__}: {e}"), printf)
    finally:
        if param_base is not None:
            memory.free(param_base)
        if workspace is not None:
            memory.free(workspace)


def _tiered(kernel, module, memory, grid, block, symbols, param_base, shared_size, dynamic_shared, local,
            watchdog_s, printf, code, tier: TierHooks, first_cta: int, total: int,
            per_batch: int) -> LaunchOutcome:
    """The batch loop of a tiered launch (no clusters): compiled code takes the remaining CTAs over
    once it is ready — at a batch boundary, or inside a batch whose writes are then undone (its
    printf lines taken back) and which reruns natively from its first CTA."""
    undo = _UndoLog(memory)
    c0 = first_cta
    while c0 < total:
        if tier.poll(c0):
            left = watchdog_s or None  # a batch just finished: the compiled code's watchdog starts afresh
            native = tier.run_native(c0, left)
            return LaunchOutcome(native.fault, printf + list(native.printf))
        nctas = min(per_batch, total - c0)
        deadline = _deadline(watchdog_s)
        batch = _TieredBatch(undo, module, kernel, grid, block, c0, nctas, symbols, param_base,
                             shared_size, dynamic_shared, local, deadline, watchdog_s, printf)
        batch._tier, batch._undo = tier, undo
        undo.reset()
        mark = len(printf)
        set_grouping(batch, None, (1, 1, 1), False, False, None)
        try:
            run(_root_ctx(batch, code))
        except Fault:
            if not batch.abandoned:
                raise
            undo.undo()  # nothing the batch did stays: it runs again, natively
            del printf[mark:]
            continue
        c0 += nctas
    return LaunchOutcome(None, printf)


launch.supports_tier = True  # type: ignore[attr-defined]  # (a replacement launch function may not)


def _check_cluster(kernel: Function, grid: tuple[int, int, int],
                   cluster: tuple[int, int, int] | None) -> tuple[int, int, int]:
    if cluster is None:
        cluster = kernel.cluster_dims or (1, 1, 1)
    cluster = _check_shape("cluster", cluster)
    if kernel.cluster_dims is not None and tuple(kernel.cluster_dims) != cluster:
        raise Fault("invalid_launch", f"cluster {cluster} differs from .reqnctapercluster {kernel.cluster_dims} "
                    f"of {kernel.name}")
    if any(g % c for g, c in zip(grid, cluster, strict=True)):
        raise Fault("invalid_launch", f"grid {grid} is not a whole number of clusters {cluster}")
    return cluster


def _root_ctx(batch: Batch, code) -> Ctx:
    tpb, wpc = batch.tpb, batch.wpc
    n = batch.nctas * tpb
    rlane = np.arange(n, dtype=np.intp)
    cta = np.repeat(np.arange(batch.nctas, dtype=np.intp), tpb)
    slot = rlane if tpb == wpc * 32 else cta * (wpc * 32) + (rlane - cta * tpb)
    frame = np.zeros(n, dtype=np.uint64)
    return Ctx(batch, code, cta, slot, rlane, frame, 0)



