"""Native launches from C (capi/csrc/cm_native_launch.c): the Python half.

A C program's ``cudaLaunchKernel`` (and ``<<<>>>``) goes through Python the first time a (kernel,
grid, block, dynamic shared size, stream) is launched. When that launch ran, compiled, on the
compiled CPU backend, :func:`arm` gives libcumetal a *plan* for the key: the parameter layout, the
stream's doorbell and the prepared launch record. Later launches with the key are enqueued by C
alone (the arguments copied into the doorbell's log) and run in batches: the stream's queue turns
the log into one operation (:class:`~cumetal.devices.stream_worker.WorkQueue`), which calls the C
runner under the device's locks; an entry the runner cannot take (its plan went stale, a fault)
runs through the device's Python launch, which reports exactly as for any launch.

What a plan assumes is kept true by an *epoch* in libcumetal: every C entry point that enters
Python, except synchronisations, copies, events and error queries, moves it; so do device
allocations and frees (:func:`bump`, the device memory's ``on_change``) and faults. Plans are made
only where the Python path would do nothing a plan cannot: a compiled kernel without printf,
device heap, texture handles or clusters; no stream capture anywhere; an asynchronous stream that
the legacy stream's implicit barriers cannot involve (a non-blocking stream, or the only stream);
an interpreter started by libcumetal (a C program: every CUDA call passes through libcumetal).
``CUMETAL_NATIVE_LAUNCH=0`` turns plans off.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
from dataclasses import dataclass
from typing import Any

MAX_PARAMS = 128  # cm_native_launch.c's NL_MAX_PARAMS / NL_MAX_BYTES
MAX_BYTES = 4096
DRIVER_KEY = 1 << 63  # cm_native_launch.h's CM_NATIVE_DRIVER_KEY: plans of cuLaunchKernel's CUfunctions
_u64, _u32 = ctypes.c_uint64, ctypes.c_uint32


class PlanDesc(ctypes.Structure):
    """cm_native_launch.c's cm_plan_desc (keep the two together)."""

    _fields_ = [("func", _u64), ("stream", _u64), ("shared", _u64), ("thread", _u64), ("grid", _u32 * 3),
                ("block", _u32 * 3),
                ("epoch", _u64), ("nparams", _u32), ("param_size", _u32), ("offset", _u32 * MAX_PARAMS),
                ("size", _u32 * MAX_PARAMS), ("bell", _u64), ("push", _u64), ("burst", ctypes.c_int64),
                ("sim_run", _u64), ("launch", _u64), ("scratch_params", _u64), ("scratch_info", _u64),
                ("info", _u64), ("info_len", _u64), ("code", _u64), ("fault", _u64), ("first_block", _u64)]


class _Api(ctypes.Structure):
    _fields_ = [("version", _u64), ("desc_size", _u64), ("epoch", _u64), ("bump", _u64), ("plan_set", _u64),
                ("run", _u64), ("launches", _u64), ("entry_header", _u64)]


@dataclass
class _Native:
    """libcumetal's native-launch functions (one per process)."""

    epoch: ctypes.c_uint64
    bump: Any
    plan_set: Any
    run: Any
    launches: ctypes.c_uint64
    header: int


@dataclass
class _Plan:
    """What a slot's launches need from Python: the device launch for the Python path, and the
    objects whose memory the C plan points into (kept alive for the life of the process)."""

    device: Any
    stream: Any
    image: Any
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    shared: int
    param_size: int
    keep: tuple
    retired: list


_native: _Native | None = None
_plans: dict[int, _Plan] = {}  # slot -> plan (a slot keeps its key for the life of the process)
_lock = threading.Lock()
_disabled = False


_unsupported = False  # the process's device is not the compiled CPU backend: never a plan


def enabled() -> bool:
    return not _disabled and not _unsupported and os.environ.get("CUMETAL_NATIVE_LAUNCH", "1") != "0"


def _bind(api_address: int) -> _Native | None:
    global _native
    if _native is None and api_address:
        api = _Api.from_address(api_address)
        if api.version != 1 or api.desc_size != ctypes.sizeof(PlanDesc):
            return None
        _native = _Native(epoch=ctypes.c_uint64.from_address(api.epoch),
                          bump=ctypes.CFUNCTYPE(None)(api.bump),
                          plan_set=ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(PlanDesc))(api.plan_set),
                          run=ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p, ctypes.c_uint64,
                                               ctypes.POINTER(ctypes.c_uint64))(api.run),
                          launches=ctypes.c_uint64.from_address(api.launches), header=int(api.entry_header))
        if os.environ.get("CUMETAL_NATIVE_LAUNCH_REPORT"):
            import atexit

            atexit.register(lambda: print(f"cumetal: {native_launches()} launches enqueued natively",
                                          file=sys.stderr, flush=True))
    return _native


def epoch(api_address: int) -> int:
    """The current epoch (read before a launch that may arm a plan: anything after it makes it stale)."""
    native = _bind(api_address) if enabled() else None
    return int(native.epoch.value) if native is not None else 0


def bump() -> None:
    """Invalidate every plan (a device allocation or free, a fault). Free when no plan was armed."""
    if _native is not None:
        _native.bump()


def native_launches() -> int:
    """Launches enqueued by C without Python in this process (for tests and benchmarks)."""
    return int(_native.launches.value) if _native is not None else 0


def arm(api_address: int, epoch_before: int, func: int, grid: tuple, block: tuple, shared: int,
        stream_handle: int, *, driver: bool = False) -> None:
    """After a successful ``cudaLaunchKernel`` (``driver``: ``cuLaunchKernel``; ``func`` its CUfunction)
    from C: arm the plan of its key when the launch qualifies (see the module doc). Never raises: a
    failure turns native launches off (said with CUMETAL_DEBUG)."""
    global _disabled
    if not enabled() or not epoch_before or stream_handle in (1, 2):
        return
    try:
        _arm(api_address, epoch_before, int(func), tuple(grid), tuple(block), int(shared), int(stream_handle),
             driver)
    except Exception as e:  # noqa: BLE001 - the launch itself succeeded; only the fast path is lost
        _disabled = True
        if os.environ.get("CUMETAL_DEBUG"):
            print(f"cumetal: native launches off: {e!r}", file=sys.stderr, flush=True)


def _arm(api_address: int, epoch_before: int, func: int, grid: tuple, block: tuple, shared: int,
         stream_handle: int, driver: bool) -> None:
    global _unsupported
    from cumetal.capi import bridge
    from cumetal.devices.cpu_jit_device import CpuJitDevice
    from cumetal.driver.state import STATE

    native = _bind(api_address)
    ctx = STATE.current()
    device = ctx.device
    if native is None or not getattr(bridge, "_owns_interpreter", False) or not isinstance(device, CpuJitDevice):
        _unsupported = True  # (the backend is the process's: another context's device is of the same kind)
        return
    from cumetal.backends.air import sim
    from cumetal.backends.air.sim.heap import uses_heap
    from cumetal.devices.cpu_device import watchdog_seconds
    from cumetal.passes.specialize_textures import _plan as texture_plan
    from cumetal.runtime import graphs
    from cumetal.runtime.execution import kernel_function

    if graphs._captures:  # a capture anywhere: launches must be recorded, and the next call moves the epoch
        return
    fn = STATE.objects.get(func if driver else kernel_function(func))
    if fn is None or fn.module.context is not ctx:
        return
    if not driver:
        from cumetal.runtime.state import RUNTIME

        stream = STATE.stream(RUNTIME.stream_handle(stream_handle), ctx)  # (0 may mean the thread's stream)
    else:
        stream = STATE.stream(stream_handle, ctx)
    queue = stream.work
    if queue is None or getattr(queue.bell, "push_address", None) is None:
        return
    if stream.blocking:  # the legacy stream's implicit barriers (CpuDevice._implicit_barrier): none possible
        with device._streams_lock:
            if any(s is not stream and s.blocking for s in device._streams):
                return
    slots = fn.kernel.params
    if len(slots) > MAX_PARAMS or fn.kernel.param_size > MAX_BYTES:
        return
    image = fn.module.image
    module = image.module
    kernel = module.kernels[fn.kernel.name]
    if getattr(kernel, "cluster_dims", None) is not None or uses_heap(kernel, module) or texture_plan(kernel, module).handles:
        return
    tier = device._tiers.get((id(kernel), id(module)))
    if tier is None:  # its first launch has not run yet: start it now, so that a later launch can be armed
        queue.start_now()
        return
    if tier.kernel is not kernel or tier.module is not module:
        return
    ck = tier.compiled
    if ck is None or isinstance(ck, str):
        return
    has_printf = ck.__dict__.get("_has_printf")
    prep = ck.__dict__.get("_prepared", {}).get((grid, block, shared, device.workers))
    if has_printf is None or prep is None:  # not run yet: start it now, so that the next launch can be armed
        queue.start_now()
        return
    if has_printf:
        return
    # (no lock: a launch running meanwhile sets the record for the same memory state, since a change
    # of the allocation table moves the epoch; cm_native_run reads a slot under the plans' mutex)
    scratch = sim._scratch
    tables = sim._allocation_table(device.memory)
    symbols = image.symbol_addresses() if image.symbols else {}
    launch = prep.launch
    if (scratch is None or prep.tables is None or tables[0] is not prep.tables[0]
            or tables[1] is not prep.tables[1] or prep.symbols != symbols or launch.first_block
            or launch.timeout_s != float(watchdog_seconds() or 0.0)):
        return  # the record is set for another state: the next launch through Python updates it
    info = prep.__dict__.get("_native_info")  # (one per record: a run may be copying from it)
    if info is None:
        info = prep.__dict__["_native_info"] = ctypes.create_string_buffer(bytes(prep.info), len(prep.info))
    d = PlanDesc(func=func | DRIVER_KEY if driver else func, stream=stream_handle, shared=shared,
                 thread=threading.get_ident(), epoch=epoch_before, nparams=len(slots),
                 param_size=fn.kernel.param_size, bell=queue.bell.address, push=queue.bell.push_address,
                 burst=_burst(), sim_run=ctypes.cast(sim.runtime_lib.loaded().sim_run, ctypes.c_void_p).value,
                 launch=ctypes.addressof(launch), scratch_params=scratch.base + scratch.PARAMS,
                 scratch_info=scratch.base + scratch.INFO, info=ctypes.addressof(info), info_len=len(prep.info),
                 code=ctypes.addressof(prep.code), fault=ctypes.addressof(launch) + type(launch).fault.offset,
                 first_block=ctypes.addressof(launch) + type(launch).first_block.offset)
    d.grid[:] = grid
    d.block[:] = block
    for i, slot in enumerate(slots):
        d.offset[i], d.size[i] = slot.offset, slot.size
    if queue.native_runner is None:
        queue.native_runner = functools.partial(_run_batch, device, stream)
    keep = (info, prep, ck, scratch, queue, tables)
    with _lock:
        slot_index = native.plan_set(ctypes.byref(d))
        if slot_index >= 0:
            old = _plans.get(slot_index)
            # a run of the slot's previous plan may still use its objects: they stay alive (the same
            # key almost always comes back with the same launch record, so this rarely grows)
            retired = old.retired + [old.keep] if old is not None and old.keep[1] is not prep else (
                old.retired if old is not None else [])
            _plans[slot_index] = _Plan(device, stream, image, fn.kernel.name, grid, block, shared,
                                       fn.kernel.param_size, keep, retired)


@functools.cache
def _run_lock() -> Any:
    """The air-sim runtime's launch lock (its scratch buffer and launch records)."""
    from cumetal.backends.air import sim

    return sim._RUN_LOCK


def _burst() -> int:
    from cumetal.devices.stream_worker import START_BURST

    return START_BURST


def _run_batch(device: Any, stream: Any, log: int, length: int) -> None:
    """One operation of ``stream``'s queue: the launches C logged (in order); see the module doc."""
    native = _native
    assert native is not None
    run_lock = _run_lock()
    pos = ctypes.c_uint64(0)
    while pos.value < length:
        with device._exec_lock, run_lock:  # (the device's lock order: one kernel at a time)
            status = native.run(log, length, ctypes.byref(pos))
        if status == 0:
            return
        from cumetal.devices.protocol import log_fault

        at = log + pos.value
        slot, nbytes = _u32.from_address(at).value, _u32.from_address(at + 4).value
        with _lock:
            plan = _plans[slot]
        params = ctypes.string_at(at + native.header, plan.param_size)
        fault = device._run(plan.image, plan.kernel, plan.grid, plan.block, plan.shared, params, immediate=False)
        if fault is not None:
            log_fault(fault)
            stream.add_fault(fault)
        pos.value += nbytes
