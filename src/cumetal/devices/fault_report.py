"""Fault reports of the compiled engines (cpu-jit, air-sim, msl-sim) in the CPU engine's words.

Compiled code knows the kernel, the fault and the address, not the PTX instruction, block and
thread (nor which refused operation): the device reruns a launch that faulted so on the CPU engine
(memory after a faulted launch is undefined, as on CUDA) and uses the rerun's report when it is the
same fault — the same code and, where both name one, the same address. A rerun that finds another
fault (the launch changed memory its addresses depend on) leaves the engine's own report."""

from __future__ import annotations

import re
from collections.abc import Callable

# faults the CPU engine's rerun words better (it names the block, thread and PTX instruction, or what
# is refused: e.g. an im2col-wide tensor map); a trap, an assertion or a timeout is not rerun
RERUN_FOR_REPORT = ("illegal_address", "misaligned_address", "illegal_instruction")
# the simulators' rerun time limit (s; the launch's own watchdog when that is shorter): a report must
# not cost minutes of CPU-engine time on a large grid; past it the simulator's report stands
RERUN_LIMIT_S = 20.0
_ADDRESS = re.compile(r"0x[0-9a-fA-F]+")


def same_fault(found, ref) -> bool:
    """Whether the rerun's fault ``ref`` is the launch's ``found``: the same code and, where both
    messages name an address, the address of ``found`` among the rerun's."""
    if ref is None or found is None or ref.code != found.code:
        return False
    mine, theirs = _ADDRESS.findall(str(found.message)), _ADDRESS.findall(str(ref.message))
    return not (mine and theirs) or int(mine[-1], 16) in {int(a, 16) for a in theirs}


def _rerun_worthy(code: str, message: str) -> bool:
    """Whether a simulator's fault is one the CPU engine can word. Refusals to build a kernel
    (air-sim: lowering or compile errors, reported as illegal_instruction) are not: the CPU engine
    would run the whole kernel only to find no fault."""
    if code not in RERUN_FOR_REPORT:
        return False
    if code != "illegal_instruction":
        return True
    # a refused operation at run time: air-sim's runtime code, msl-sim's fault code
    return message.startswith(("an operation the hardware refuses", "illegal_instruction in kernel"))


def with_fault_report(launch: Callable, tag: str = "") -> Callable:
    """``launch`` (a simulator's launcher: kernel, module, memory, grid, block, dynamic shared,
    params, symbols, **options) whose address faults and refused operations carry the CPU engine's
    report when its rerun finds the same fault (``same_fault``); ``tag`` is appended to that report
    (msl-sim's messages end in " (msl-sim)")."""
    from cumetal.backends.cpu import launch as cpu_launch

    def reported(kernel, module, memory, grid, block, dynamic_shared, params, symbols, **options):
        out = launch(kernel, module, memory, grid, block, dynamic_shared, params, symbols, **options)
        f = out.fault
        if f is None or not _rerun_worthy(str(f.code), str(f.message)):
            return out
        watchdog = options.get("watchdog_s")
        limit = min(float(watchdog), RERUN_LIMIT_S) if watchdog else RERUN_LIMIT_S
        try:
            ref = cpu_launch(kernel, module, memory, grid, block, dynamic_shared, params, symbols,
                             watchdog_s=limit).fault
        except Exception:  # noqa: BLE001 - the simulator's own report stands
            return out
        if not same_fault(f, ref):
            return out
        return type(out)(type(f)(f.code, ref.message + tag), out.printf)

    reported.__wrapped__ = launch  # type: ignore[attr-defined]
    return reported
