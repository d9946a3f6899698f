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

import numpy as np

from cumetal.backends.air.abi import air_threadgroup_bytes
from cumetal.backends.air.lower_context import AirLoweringError
from cumetal.backends.air.sim import runtime_lib
from cumetal.backends.air.sim.compile import K_PTR, SimCompileError, compile_kernel, local_stack_bytes
from cumetal.backends.air.sim.runtime_lib import FAULT_NAMES, SimBuildError, SimLaunch
from cumetal.backends.apple import abi as metal_abi
from cumetal.backends.common.outcome import KernelFault, LaunchOutcome
from cumetal.ir.nodes import Function, Module

__all__ = ["launch", "launch_air", "refusal", "LaunchOutcome", "KernelFault"]

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
    until the next alloc/free when it offers its tables)."""
    tables = getattr(memory, "_tables", None)
    if tables is not None:
        bases, sizes, _ = tables()
        return bases, sizes
    allocs = sorted(memory.allocations(), key=lambda a: a.base)
    return (np.array([a.base for a in allocs], dtype=np.uint64), np.array([a.size for a in allocs], dtype=np.uint64))


def launch_air(kernel: Function, module: Module, memory, grid: tuple[int, int, int],
               block: tuple[int, int, int], dynamic_shared: int, params: bytes, symbols: dict[str, int],
               *, watchdog_s: float | None = None, workers: int = 1) -> LaunchOutcome:
    """Run ``kernel`` over the grid on the air-sim; faults come back in the outcome.

    ``workers`` > 1 runs threadgroups concurrently on that many threads (kernels with printf use
    one, so that the output keeps threadgroup order). A fault reported is the one of the
    lowest-numbered faulting threadgroup either way."""
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
    missing = [g for g in module.globals if g not in symbols]
    if missing:
        return LaunchOutcome(KernelFault("invalid_launch", f"no device address for module globals {missing}"))
    try:
        runtime_lib.runtime()  # built once; a build failure is this launch's fault
        ck = compile_kernel(kernel, module)
    except (AirLoweringError, SimCompileError, SimBuildError) as exc:
        return LaunchOutcome(KernelFault("illegal_instruction", str(exc)))

    owned: list[int] = []
    printf: list[str] = []
    try:
        param_buf = memory.alloc(max(len(params), 1))
        owned.append(param_buf)
        if params:
            memory.write(param_buf, bytes(params))
        # launch_info as the Metal runtime packs it (INFO_TOTAL_SMEM: static + dynamic bytes); the
        # threadgroup(0) buffer with AIR's length: dynamic memory + scratch (the static part is the
        # module's addrspace(3) global, zeroed by the runtime per threadgroup)
        msl_total = metal_abi.shared_bytes(kernel, dynamic_shared)
        info = metal_abi.pack_launch_info(module, params_addr=param_buf, global_addrs=symbols,
                                          dynamic_shared=dynamic_shared,
                                          total_shared=msl_total - metal_abi.REDUCTION_SCRATCH)
        total_shared = air_threadgroup_bytes(kernel, dynamic_shared)
        info_buf = memory.alloc(len(info))
        owned.append(info_buf)
        memory.write(info_buf, info)
        roles = {"params": param_buf, "launch_info": info_buf, "constant": info_buf}
        if any(role == "printf" for _, role in ck.arg_kinds):
            ring = memory.alloc(metal_abi.PRINTF_HEADER_BYTES + PRINTF_CAPACITY)
            owned.append(ring)
            memory.write(ring, struct.pack("<4I", 0, PRINTF_CAPACITY, 0, 0))
            roles["printf"] = ring
        bases, sizes = _allocation_table(memory)

        nworkers = 1 if "printf" in roles else max(1, min(int(workers), runtime_lib.MAX_WORKERS,
                                                          grid_t[0] * grid_t[1] * grid_t[2]))
        engines = ck.engine_array(nworkers)
        launch = SimLaunch()
        launch.engines = engines
        launch.nworkers = nworkers
        launch.nargs = len(ck.arg_kinds)
        for i, (kind, role) in enumerate(ck.arg_kinds):
            launch.kinds[i] = kind
            launch.values[i] = roles[role] if kind == K_PTR else 0
        launch.grid[:] = grid_t
        launch.block[:] = block_t
        launch.alloc_base = bases.__array_interface__["data"][0]
        launch.alloc_size = sizes.__array_interface__["data"][0]
        launch.nalloc = len(bases)
        launch.shared = None  # each worker allocates its own threadgroup(0) buffer
        launch.shared_size = total_shared
        launch.nas3 = len(ck.as3_globals)
        launch.timeout_s = float(watchdog_s or 0.0)
        launch.direct = int(ck.direct)
        launch.stack_size = FIBER_STACK_BASE + (local_stack_bytes(kernel, module) + 4095) // 4096 * 4096
        lib = runtime_lib.runtime()
        with _RUN_LOCK:
            lib.sim_run(ctypes.byref(launch))

        if "printf" in roles:
            printf = _printf_text(memory, roles["printf"], module)
        if launch.fault:
            name = FAULT_NAMES.get(launch.fault, "illegal_instruction")
            msg = launch.message.decode(errors="replace")
            if name in ("illegal_address", "misaligned_address"):
                msg = f"{msg} at address 0x{launch.fault_addr:x} in kernel {kernel.name}"
            elif name == "timeout":
                msg = f"kernel {kernel.name} exceeded the {watchdog_s} s watchdog"
            return LaunchOutcome(KernelFault(name, msg), printf)
        code = ctypes.c_uint32.from_address(info_buf + 4 * metal_abi.INFO_FAULT_CODE).value
        if code:
            name = metal_abi.FAULT_CODES.get(code, "illegal_instruction")
            what = {"trap": "trap instruction executed", "assert": "device-side assertion failed"}.get(
                name, "call of a non-function address")
            return LaunchOutcome(KernelFault(name, f"{what} in kernel {kernel.name}"), printf)
        return LaunchOutcome(None, printf)
    finally:
        for addr in owned:
            memory.free(addr)


def refusal(kernel: Function, module: Module) -> str | None:
    """Why the air-sim cannot run ``kernel`` (it cannot be lowered to AIR, a call has no runtime
    implementation, or the runtime does not build), or None when it can. Compiles it (cached)."""
    try:
        runtime_lib.runtime()
        compile_kernel(kernel, module)
    except (AirLoweringError, SimCompileError, SimBuildError) as exc:
        return str(exc)
    return None


launch = launch_air  # the name a device backend calls (as cumetal.backends.cpu.launch)
