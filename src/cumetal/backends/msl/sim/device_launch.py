"""msl-sim behind the device protocol: the same call shape as the CPU engine's ``launch`` so that a
``CUMETAL_BACKEND=msl-sim`` device is the CPU device (same memory, copies, streams) with this run
function (runtime/cpu_device.py ``_run`` calls ``launch`` and reads ``.fault`` and ``.printf``)."""

from __future__ import annotations

import dataclasses
import os
import sys
from collections import OrderedDict

from cumetal.backends.common.outcome import KernelFault, LaunchOutcome
from cumetal.backends.msl.fp64 import FP64_MODES
from cumetal.backends.msl.sim.launcher import MslProgram, build_program, fiber_stack_kb
from cumetal.backends.msl.values import EmitError
from cumetal.ir.nodes import Function, Module

# Modules are not weak-referenceable: keep the most recent programs (and their modules) alive.
_PROGRAMS: OrderedDict[tuple, tuple[Module, MslProgram | None]] = OrderedDict()  # None: refused
_MAX_PROGRAMS = 64


# msl-sim returns the outcome types of every backend (backends/common/outcome.py)
SimFault = KernelFault
SimLaunchOutcome = LaunchOutcome


_WARNED_FP64: set[str] = set()


def fp64_mode() -> str:
    """``CUMETAL_FP64`` (native | emulate | warn), default native; another value is said on stderr
    (once) and native is used."""
    mode = os.environ.get("CUMETAL_FP64", "").strip().lower() or "native"
    if mode in FP64_MODES:
        return mode
    if mode not in _WARNED_FP64:
        _WARNED_FP64.add(mode)
        print(f"cumetal: CUMETAL_FP64={mode!r} is not one of {', '.join(FP64_MODES)}; using native",
              file=sys.stderr, flush=True)
    return "native"


def program_for(module: Module, fp64: str, kernel: str | None = None) -> MslProgram:
    """The compiled program of a module (the 64 most recent are cached). When the back end refuses
    the module because of some kernel (e.g. a recursive one: Metal has no call stack), the program
    of the module reduced to ``kernel`` — so one bad kernel never costs the others; EmitError
    only when ``kernel`` itself cannot be emitted."""
    key = (id(module), fp64)
    entry = _PROGRAMS.get(key)
    if entry is None or entry[0] is not module:
        try:
            _remember(key, module, build_program(module, fp64=fp64))
        except EmitError:
            if kernel is None or len(module.kernels) == 1:
                raise
            _remember(key, module, None)  # refused: not emitted again on every launch
        entry = _PROGRAMS[key]
    _PROGRAMS.move_to_end(key)
    if entry[1] is not None:
        return entry[1]
    if kernel is None:
        raise EmitError(f"the MSL back end refuses module {module.filename}")
    alone = (id(module), fp64, kernel)
    single = _PROGRAMS.get(alone)
    if single is not None and single[0] is module and single[1] is not None:
        return single[1]
    prog = build_program(single_kernel(module, kernel), fp64=fp64)
    _remember(alone, module, prog)
    return prog


def single_kernel(module: Module, kernel: str) -> Module:
    """The module with only ``kernel`` (same functions and globals)."""
    return dataclasses.replace(module, kernels={kernel: module.kernels[kernel]})


def _remember(key: tuple, module: Module, prog: MslProgram | None) -> None:
    _PROGRAMS[key] = (module, prog)
    while len(_PROGRAMS) > _MAX_PROGRAMS:
        _PROGRAMS.popitem(last=False)


def launch(kernel: Function, module: Module, memory, grid: tuple[int, int, int], block: tuple[int, int, int],
           dynamic_shared: int, params: bytes, symbols: dict[str, int], *, watchdog_s: float | None = None,
           fp64: str | None = None) -> SimLaunchOutcome:
    """Run ``kernel`` under msl-sim. ``memory`` is the device's allocation table (anything with
    ``allocations()`` yielding objects with ``base`` and ``size``); faults come back in the outcome."""
    grid = tuple(int(x) for x in grid)  # type: ignore[assignment]
    block = tuple(int(x) for x in block)  # type: ignore[assignment]
    if len(grid) != 3 or len(block) != 3 or min(grid + block) < 1:
        return SimLaunchOutcome(SimFault("launch_failure", f"bad launch shape grid={grid} block={block}"))
    tpb = block[0] * block[1] * block[2]
    limit = 1
    for n in (kernel.reqntid or kernel.maxntid or (1024,)):
        limit *= n
    if tpb > min(limit, 1024):
        return SimLaunchOutcome(SimFault("launch_failure", f"{tpb} threads per block exceed {min(limit, 1024)} "
                                         f"for {kernel.name}"))
    if dynamic_shared < 0 or len(params) < kernel.param_size:
        return SimLaunchOutcome(SimFault("launch_failure", f"bad parameters or shared size for {kernel.name}"))
    try:
        prog = program_for(module, fp64 or fp64_mode(), kernel.name)
    except EmitError as e:
        return SimLaunchOutcome(SimFault("launch_failure", f"MSL back end: {e}"))
    except Exception as e:  # g++ failure: a back-end bug must not take the process down
        return SimLaunchOutcome(SimFault("launch_failure", f"msl-sim could not build {kernel.name}: {e}"))
    allocs = [(a.base, a.size) for a in memory.allocations()]
    res = prog.run(kernel.name, grid, block, params, dynamic_shared, allocations=allocs, global_addrs=symbols,
                   timeout_s=watchdog_s if watchdog_s else 1e9)
    printf = [res.printf] if res.printf else []
    if res.fault is None:
        return SimLaunchOutcome(None, printf)
    if res.message == "stack overflow":  # the guard below a fiber's stack (cumetal_msl_sim.h on_segv)
        return SimLaunchOutcome(SimFault("launch_failure", (
            f"a thread of kernel {kernel.name} overflowed msl-sim's fiber stack ({fiber_stack_kb()} KiB beyond "
            f"its local memory; CUMETAL_MSL_SIM_STACK_KB sets it) at address 0x{res.fault_address:x} (msl-sim)")),
            printf)
    if res.message.startswith("deadlock"):  # found at once by the fiber scheduler (cumetal_msl_sim.h)
        return SimLaunchOutcome(SimFault(res.fault, res.message.replace("@KERNEL@", kernel.name) + " (msl-sim)"),
                                printf)
    where = f" at address 0x{res.fault_address:x}" if res.fault in ("illegal_address", "misaligned_address") else ""
    return SimLaunchOutcome(SimFault(res.fault, f"{res.fault} in kernel {kernel.name}{where} (msl-sim)"), printf)
