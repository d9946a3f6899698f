"""air-sim: run the AIR modules that go into a ``.metallib`` on the CPU (``CUMETAL_BACKEND=air-sim``).

``launch_air`` has the signature of ``cumetal.backends.cpu.launch`` and the outcome types of every backend
(``cumetal.backends.common.outcome``). The kernel's
AIR module (the same bitcode ``compile_metallib`` packs) is read back with llvmlite, instrumented
for bounds checks and the watchdog (``instrument.py``), JIT-compiled (``compile.py``: cached in
memory and on disk), and run by a C runtime (``runtime.c``) that implements the air.* functions and
runs the threadgroups on ``workers`` threads (the calling thread and ``workers - 1`` more; the GIL
is released meanwhile), one threadgroup at a time per worker, each worker with its own copy of the
module's threadgroup globals, zeroed before each threadgroup. Kernels without barriers or
SIMD-group operations run a threadgroup as one loop over its threads; the others schedule each
thread as a fiber. Bindings follow the runtime's one Metal ABI
(``cumetal.backends.apple.abi``): the parameter buffer, launch_info, the printf ring and the
threadgroup memory are set up here exactly as a Metal launch would set them.
"""

from __future__ import annotations

import ctypes
import struct
import threading
from dataclasses import dataclass

import numpy as np

from cumetal.backends.air.abi import air_threadgroup_bytes
from cumetal.backends.air.lower_context import AirLoweringError
from cumetal.backends.air.sim import runtime_lib
from cumetal.backends.air.sim.compile import (
    K_PTR,
    SimCompileError,
    compile_kernel,
    local_stack_bytes,
    vectors_for_launch,
)
from cumetal.backends.air.sim.runtime_lib import FAULT_NAMES, SimBuildError, SimLaunch
from cumetal.backends.apple import abi as metal_abi
from cumetal.backends.common.outcome import KernelFault, LaunchOutcome
from cumetal.ir.nodes import Function, Module

__all__ = ["launch", "launch_air", "refusal", "compile_or_refusal", "LaunchOutcome", "KernelFault"]

MAX_THREADS_PER_BLOCK = 1024
PRINTF_CAPACITY = 1 << 20
FIBER_STACK_BASE = 128 << 10  # JIT frames of the kernel and its callees, on top of local memory
_RUN_LOCK = threading.Lock()  # one launch at a time: a kernel's engines (threadgroup globals) are shared


def _shape(name: str, v) -> tuple[int, int, int] | str:
    try:
        t = tuple(int(x) for x in v)
    except (TypeError, ValueError):
        return f"{name} must be three integers, got {v!r}"
    if len(t) != 3 or min(t) < 1 or max(t) >= 1 << 32:
        return f"{name} must be three positive 32-bit integers, got {v!r}"
    return t  # type: ignore[return-value]


def _cstring(memory, addr: int, limit: int = 1 << 16) -> bytes:
    found = memory.find(addr)
    if found is None:
        return b"(bad string address)"
    alloc, off = found
    data = alloc.data[off: off + limit].tobytes()
    end = data.find(b"\0")
    return data if end < 0 else data[:end]


def _printf_text(memory, ring: int, module: Module) -> list[str]:
    """Decode the printf ring with the ABI's decoder (msl/printf.py), one string per launch."""
    from cumetal.backends.apple.printf_ring import decode_ring, printf_formats

    used, cap = struct.unpack("<2I", memory.read(ring, 8))
    data = memory.read(ring, metal_abi.PRINTF_HEADER_BYTES + min(used, cap))
    text, _dropped = decode_ring(data, printf_formats(module), lambda a: _cstring(memory, a))
    return [text] if text else []


def _allocation_table(memory) -> tuple[np.ndarray, np.ndarray]:
    """The live allocations' bases (ascending) and sizes as uint64 arrays (cached by the memory
    until the next alloc/free when it offers its tables: the same array objects until then)."""
    tables = getattr(memory, "_tables", None)
    if tables is not None:
        bases, sizes, _ = tables()
        return bases, sizes
    allocs = sorted(memory.allocations(), key=lambda a: a.base)
    return (np.array([a.base for a in allocs], dtype=np.uint64), np.array([a.size for a in allocs], dtype=np.uint64))


class _Scratch:
    """The parameter buffer and launch_info of every launch, in one host buffer that lives as long
    as the process (entered in the runtime's allocation table as an extra region, not in the
    device's): no allocation, table rebuild or free per launch. Used under ``_RUN_LOCK``."""

    SIZE = 64 << 10
    PARAMS = 0
    INFO = 36 << 10  # after the largest parameter block CUDA allows (32764 bytes)

    def __init__(self) -> None:
        self.buf = np.zeros(self.SIZE + 256, dtype=np.uint8)
        self.base = (self.buf.ctypes.data + 255) // 256 * 256


_scratch: _Scratch | None = None


@dataclass
class _Prepared:
    """What a launch of one compiled kernel with one grid shape, shared size and symbol table
    needs besides its parameters: the filled ``SimLaunch`` and the launch_info bytes, and what the
    launch after it reuses (the argument to sim_run, the fault-code cell, the allocation table
    last entered: set again only when the device memory's table changed)."""

    launch: SimLaunch
    info: bytes
    nworkers: int
    symbols: dict
    ref: object = None  # ctypes.byref(launch)
    code: object = None  # the launch_info's fault-code word (a c_uint32 in the scratch buffer)
    tables: object = None  # the (bases, sizes) arrays in launch.alloc_base/alloc_size
    timeout_s: float = 0.0
    first_block: int = 0


def _prepare(ck, kernel: Function, module: Module, memory, grid_t, block_t, dynamic_shared: int,
             symbols: dict[str, int], workers: int, scratch: _Scratch) -> _Prepared:
    params_addr, info_addr = scratch.base + scratch.PARAMS, scratch.base + scratch.INFO
    msl_total = metal_abi.shared_bytes(kernel, dynamic_shared)
    info = bytes(metal_abi.pack_launch_info(module, params_addr=params_addr, global_addrs=symbols,
                                            dynamic_shared=dynamic_shared,
                                            total_shared=msl_total - metal_abi.REDUCTION_SCRATCH))
    if len(info) > scratch.SIZE - scratch.INFO:
        raise ValueError("launch_info too large for the launch scratch buffer")
    nworkers = max(1, min(int(workers), runtime_lib.MAX_WORKERS, grid_t[0] * grid_t[1] * grid_t[2]))
    launch = SimLaunch()
    launch.engines = ck.engine_array(nworkers)
    launch.nworkers = nworkers
    launch.nargs = len(ck.arg_kinds)
    roles = {"params": params_addr, "launch_info": info_addr, "constant": info_addr, "printf": 0}  # ring: per launch
    for i, (kind, role) in enumerate(ck.arg_kinds):
        launch.kinds[i] = kind
        launch.values[i] = roles[role] if kind == K_PTR else 0
    launch.grid[:] = grid_t
    launch.block[:] = block_t
    launch.shared = None  # each worker allocates its own threadgroup(0) buffer
    launch.shared_size = air_threadgroup_bytes(kernel, dynamic_shared)
    launch.nas3 = len(ck.as3_globals)
    launch.direct = int(ck.direct)
    launch.stack_size = FIBER_STACK_BASE + (local_stack_bytes(kernel, module) + 4095) // 4096 * 4096
    launch.extra_base = scratch.base
    launch.extra_size = scratch.SIZE
    code = ctypes.c_uint32.from_address(info_addr + 4 * metal_abi.INFO_FAULT_CODE)
    return _Prepared(launch, info, nworkers, dict(symbols), ctypes.byref(launch), code)


def _check_launch(kernel: Function, module: Module, grid, block, dynamic_shared: int, params: bytes,
                  symbols: dict[str, int]):
    """(grid, block) as integer triples, or the LaunchOutcome that refuses the launch."""
    grid_t, block_t = _shape("grid", grid), _shape("block", block)
    for t in (grid_t, block_t):
        if isinstance(t, str):
            return LaunchOutcome(KernelFault("invalid_launch", t))
    tpb = block_t[0] * block_t[1] * block_t[2]
    if tpb > MAX_THREADS_PER_BLOCK:
        return LaunchOutcome(KernelFault("invalid_launch", f"{tpb} threads per block exceed {MAX_THREADS_PER_BLOCK}"))
    if dynamic_shared < 0:
        return LaunchOutcome(KernelFault("invalid_launch", f"negative dynamic shared memory size {dynamic_shared}"))
    if len(params) < kernel.param_size:
        return LaunchOutcome(KernelFault(
            "invalid_launch", f"kernel {kernel.name} takes {kernel.param_size} bytes of parameters, got {len(params)}"))
    if len(params) > _Scratch.INFO:
        return LaunchOutcome(KernelFault("invalid_launch", f"{len(params)} bytes of parameters exceed "
                                         f"{_Scratch.INFO}"))
    missing = [g for g in module.globals if g not in symbols]
    if missing:
        return LaunchOutcome(KernelFault("invalid_launch", f"no device address for module globals {missing}"))
    return grid_t, block_t


def launch_air(kernel: Function, module: Module, memory, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_shared: int, params: bytes, symbols: dict[str, int],
               *, watchdog_s: float | None = None, workers: int = 1, compiled=None,
               first_block: int = 0, cooperative: bool = False) -> LaunchOutcome:
    """Run ``kernel`` over the grid on the air-sim; faults come back in the outcome.

    ``workers`` > 1 runs threadgroups concurrently on that many threads (kernels with printf use
    one, so that the output keeps threadgroup order). A fault reported is the one of the
    lowest-numbered faulting threadgroup either way. ``compiled``: the kernel's ``compile_or_refusal``
    result when the caller already has it (saves the cache lookup). ``first_block``: run only the
    threadgroups from this linear id on (the rest of a launch whose first ones ran on the numpy
    engine: cpu-jit's tiering). ``cooperative``: a cooperative launch of a kernel compiled from
    ``grid.cooperative_module`` (its grid barriers): each worker runs its share of the grid's
    threadgroups in turns, and the workers meet at the grid barriers (workitem.c ``run_grid``)."""
    global _scratch
    ck = compiled
    if ck is None:
        ck = compile_or_refusal(kernel, module, vectors_for_launch(_threads(grid, block)))
        if isinstance(ck, str):
            return LaunchOutcome(KernelFault("illegal_instruction", ck))
    # the common case first: the same kernel, shape and symbols as a previous launch
    coop = ("cooperative",) if cooperative else ()  # (devices/native_launch.py looks plain ones up)
    prep_key = (grid, block, dynamic_shared, workers) + coop
    cache = ck.__dict__.setdefault("_prepared", {})
    try:
        prep = cache.get(prep_key)
    except TypeError:  # a list or other unhashable shape: checked and converted below
        prep = None
    if prep is None or prep.symbols != symbols or len(params) < kernel.param_size:
        checked = _check_launch(kernel, module, grid, block, dynamic_shared, params, symbols)
        if isinstance(checked, LaunchOutcome):
            return checked
        prep = None
    if len(params) > _Scratch.INFO:
        return LaunchOutcome(KernelFault("invalid_launch", f"{len(params)} bytes of parameters exceed "
                                         f"{_Scratch.INFO}"))
    has_printf = ck.__dict__.get("_has_printf")
    if has_printf is None:
        has_printf = ck.__dict__["_has_printf"] = any(role == "printf" for _, role in ck.arg_kinds)
    owned: list[int] = []
    printf: list[str] = []
    try:
        with _RUN_LOCK:
            if _scratch is None:
                _scratch = _Scratch()
            scratch = _scratch
            if prep is None:
                grid_t, block_t = checked
                prep = _prepare(ck, kernel, module, memory, grid_t, block_t, dynamic_shared, symbols,
                                1 if has_printf else workers, scratch)
                if len(cache) > 64:
                    cache.clear()
                prep.launch.coop = int(cooperative)
                cache[(grid_t, block_t, dynamic_shared, workers) + coop] = prep
            launch = prep.launch
            if params:
                ctypes.memmove(scratch.base + scratch.PARAMS, bytes(params), len(params))
            ctypes.memmove(scratch.base + scratch.INFO, prep.info, len(prep.info))  # (its lock words too)
            ring = 0
            if has_printf:
                ring = memory.alloc(metal_abi.PRINTF_HEADER_BYTES + PRINTF_CAPACITY)
                owned.append(ring)
                memory.write(ring, struct.pack("<4I", 0, PRINTF_CAPACITY, 0, 0))
                for i, (_kind, role) in enumerate(ck.arg_kinds):
                    if role == "printf":
                        launch.values[i] = ring
            tables = _allocation_table(memory)
            if prep.tables is None or tables[0] is not prep.tables[0] or tables[1] is not prep.tables[1]:
                bases, sizes = prep.tables = tables  # (kept alive with the pointers into them)
                launch.alloc_base = bases.__array_interface__["data"][0]
                launch.alloc_size = sizes.__array_interface__["data"][0]
                launch.nalloc = len(bases)
            timeout_s = float(watchdog_s or 0.0)
            if timeout_s != prep.timeout_s:
                launch.timeout_s = prep.timeout_s = timeout_s
            if first_block != prep.first_block:
                launch.first_block = prep.first_block = int(first_block)
            runtime_lib.loaded().sim_run(prep.ref)
            code = prep.code.value
            fault = launch.fault
            if fault:
                fault = (fault, launch.fault_addr, launch.message.decode(errors="replace"))

        if has_printf:
            printf = _printf_text(memory, ring, module)
        if fault or code:
            return _faulted(kernel, fault, code, watchdog_s, printf)
        return LaunchOutcome(None, printf)
    finally:
        for addr in owned:
            memory.free(addr)


def _faulted(kernel: Function, fault, code: int, watchdog_s, printf: list[str]) -> LaunchOutcome:
    """The outcome of a launch that faulted: ``fault`` (the runtime's fault, its address and
    message) or the launch_info's fault ``code``."""
    if fault:
        fault, fault_addr, msg = fault
        name = FAULT_NAMES.get(fault, "illegal_instruction")
        if name in ("illegal_address", "misaligned_address"):
            msg = f"{msg} at address 0x{fault_addr:x} in kernel {kernel.name}"
        elif name == "timeout" and msg.startswith("deadlock"):  # runtime.c stall(): found at once
            msg = msg.replace("@KERNEL@", kernel.name)
        elif name == "timeout":
            msg = f"kernel {kernel.name} exceeded the {watchdog_s} s watchdog"
        return LaunchOutcome(KernelFault(name, msg), printf)
    name = metal_abi.FAULT_CODES.get(code, "illegal_instruction")
    what = {"trap": "trap instruction executed", "assert": "device-side assertion failed",
            "misaligned_address": "misaligned operands of an asynchronous copy"}.get(
        name, "an operation the hardware refuses, or a call of a non-function address")
    return LaunchOutcome(KernelFault(name, f"{what} in kernel {kernel.name}"), printf)


class _CopyPlan(ctypes.Structure):
    """runtime.c ``sim_copy_plan``: what ``sim_run_plan`` copies before it runs the launch."""

    _fields_ = [("launch", ctypes.c_void_p), ("params_dst", ctypes.c_void_p), ("info", ctypes.c_void_p),
                ("ninfo", ctypes.c_uint64), ("info_dst", ctypes.c_void_p)]


def prepared_launch(kernel: Function, module: Module, memory, grid, block, dynamic_shared: int,
                    symbols: dict[str, int], *, workers: int, compiled):
    """A launcher of the compiled kernel ``compiled`` with this shape, symbol table and worker
    count: ``run(params, watchdog_s) -> LaunchOutcome | None`` (None: no fault), the same launch as
    ``launch_air``'s with its per-launch work cut to the parameters, the allocation table's and the
    watchdog's changes and ``sim_run`` (the device's fast path for a compiled kernel's repeated launches: the empty
    launch's host overhead, #12). None where launch_air's general path is needed: a kernel with
    printf (a ring per launch), a shape or symbol table its checks refuse. ``run`` refuses (the
    general path's outcome) a parameter block shorter than the kernel's or longer than the
    scratch's; the caller keeps ``run`` only for launches with this ``memory``, shape and symbols."""
    global _scratch
    ck = compiled
    if any(role == "printf" for _, role in ck.arg_kinds):
        return None
    checked = _check_launch(kernel, module, grid, block, dynamic_shared, b"\0" * kernel.param_size, symbols)
    if isinstance(checked, LaunchOutcome):
        return None
    grid_t, block_t = checked
    with _RUN_LOCK:
        if _scratch is None:
            _scratch = _Scratch()
        scratch = _scratch
        prep = _prepare(ck, kernel, module, memory, grid_t, block_t, dynamic_shared, symbols, workers, scratch)
    launch, info, code_cell = prep.launch, prep.info, prep.code
    params_at, info_at, ninfo = scratch.base + scratch.PARAMS, scratch.base + scratch.INFO, len(prep.info)
    need, room = kernel.param_size, _Scratch.INFO
    sim_run = runtime_lib.loaded().sim_run_plan  # (no argtypes: a plan pointer, bytes and an int convert fastest)
    plan = _CopyPlan(ctypes.addressof(launch), params_at, ctypes.cast(ctypes.c_char_p(info), ctypes.c_void_p).value,
                     ninfo, info_at)
    plan_ref = ctypes.byref(plan)  # (``info`` stays alive with ``prep``, which ``run`` keeps)
    tables_of = getattr(memory, "_tables", None)
    cached_bases = tables_of is not None and hasattr(memory, "_np_bases")
    tables = None

    def run(params: bytes, watchdog_s: float | None = None) -> LaunchOutcome:
        nonlocal tables
        n = len(params)
        if n < need or n > room:
            return launch_air(kernel, module, memory, grid_t, block_t, dynamic_shared, params, symbols,
                              watchdog_s=watchdog_s, workers=workers, compiled=ck)
        with _RUN_LOCK:
            # DeviceMemory keeps the bases array that _tables() returns until an alloc or free
            # drops it (None), so the same object means the same table: no call, no lock
            if tables is None or not cached_bases or memory._np_bases is not tables[0]:
                now = tables_of() if tables_of is not None else _allocation_table(memory)
                if tables is None or now[0] is not tables[0] or now[1] is not tables[1]:
                    tables = now  # (kept alive with the pointers into them)
                    launch.alloc_base = now[0].__array_interface__["data"][0]
                    launch.alloc_size = now[1].__array_interface__["data"][0]
                    launch.nalloc = len(now[0])
            timeout_s = float(watchdog_s or 0.0)
            if timeout_s != prep.timeout_s:
                launch.timeout_s = prep.timeout_s = timeout_s
            # the parameters, then launch_info (its lock words too), into the scratch buffer; then sim_run
            sim_run(plan_ref, params if type(params) is bytes else bytes(params), n)
            code = code_cell.value
            fault = launch.fault
            if fault:
                fault = (fault, launch.fault_addr, launch.message.decode(errors="replace"))
        if fault or code:
            return _faulted(kernel, fault, code, watchdog_s, [])
        return None

    return run


_refused: dict[tuple[int, int, str], tuple[Function, Module, str]] = {}


def _threads(grid, block) -> int:
    """The launch's thread count (0 for a malformed shape: the launch checks report it)."""
    try:
        n = 1
        for v in (*grid, *block):
            n *= int(v)
        return n
    except (TypeError, ValueError):
        return 0


def compile_or_refusal(kernel: Function, module: Module, vectors: bool = True):
    """The compiled kernel (cached), or why the air-sim cannot run it (a string: it cannot be
    lowered to AIR, a call has no runtime implementation, or the runtime does not build). A
    refusal is remembered per kernel object, so a refused kernel is not lowered again per launch."""
    from cumetal.backends.air.fp64_check import fp64_mode

    key = (id(kernel), id(module), fp64_mode())
    hit = _refused.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    try:
        if runtime_lib.loaded() is None:
            runtime_lib.runtime()  # built once; a build failure is this launch's fault
        return compile_kernel(kernel, module, vectors)
    except (AirLoweringError, SimCompileError, SimBuildError) as exc:
        if len(_refused) > 1024:
            _refused.clear()
        _refused[key] = (kernel, module, str(exc))
        return str(exc)


def refusal(kernel: Function, module: Module) -> str | None:
    """Why the air-sim cannot run ``kernel``, or None when it can. Compiles it (cached)."""
    got = compile_or_refusal(kernel, module)
    return got if isinstance(got, str) else None


launch = launch_air  # the name a device backend calls (as cumetal.backends.cpu.launch)
