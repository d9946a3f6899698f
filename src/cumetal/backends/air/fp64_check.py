"""FP64 on the Apple paths: which mode a build uses, and which kernels cannot have it.

Apple GPUs reject ``double`` in compute pipelines. ``--fp64=emulate`` (the default for Metal
targets) legalizes every f64 operation into f32/integer code (``passes/legalize/fp64``,
docs/fp64-policy.md), so neither the ``.metallib`` nor the MSL holds a double; ``native`` keeps
``double`` (for simulators and future hardware), ``warn`` is native with a warning. The simulators
(air-sim, msl-sim) follow ``CUMETAL_FP64`` with native as their default, so the sweep compares
NVIDIA's bits; ``CUMETAL_FP64=emulate`` runs the code a Mac gets.
"""

from __future__ import annotations

import os
import sys

from cumetal.backends.air.lower_context import AirLoweringError
from cumetal.ir import nodes as N

FP64_MODES = ("native", "emulate", "warn")
_WARNED: set[str] = set()


def fp64_mode(default: str = "native") -> str:
    """``CUMETAL_FP64`` (native | emulate | warn), else ``default``; another value is said on
    stderr once and ``default`` is used."""
    raw = os.environ.get("CUMETAL_FP64", "").strip().lower()
    if not raw:
        return default
    if raw in FP64_MODES:
        return raw
    if raw not in _WARNED:
        _WARNED.add(raw)
        print(f"cumetal: CUMETAL_FP64={raw!r} is not one of {', '.join(FP64_MODES)}; using {default}",
              file=sys.stderr, flush=True)
    return default


def _reachable(module: N.Module, kernel: N.Function) -> list[N.Function]:
    """The kernel and every function it may call, directly or through a function address."""
    seen: dict[str, N.Function] = {}
    in_globals = [r[1] for g in module.globals.values() for r in g.relocs]
    todo = [kernel]
    while todo:
        fn = todo.pop()
        if fn.name in seen and seen[fn.name] is fn:
            continue
        seen[fn.name] = fn
        for b in fn.blocks:
            for inst in b.insts:
                names = [inst.attrs.get("callee")] if inst.op == "call" else []
                names += [a.name for a in inst.args if isinstance(a, N.SymAddr) and a.space == "func"]
                if inst.op == "call_indirect":  # any function whose address a global holds
                    names += in_globals
                todo += [module.functions[n] for n in names if n in module.functions and n not in seen]
    return list(seen.values())


def first_f64_instruction(module: N.Module, kernel: N.Function) -> tuple[N.Function, N.Inst] | None:
    """The first instruction (kernel first, then its callees) that reads or writes an f64 value."""
    for fn in _reachable(module, kernel):
        for b in fn.blocks:
            for inst in b.insts:
                if any(getattr(v, "type", None) == "f64" for v in (*inst.dsts, *inst.args)):
                    return fn, inst
    return None


def f64_diagnostics(module: N.Module) -> dict[str, str]:
    """Kernel name -> why it needs ``double`` under ``--fp64=native`` (only kernels that use f64)."""
    out: dict[str, str] = {}
    for name, kernel in module.kernels.items():
        found = first_f64_instruction(module, kernel)
        if found is None:
            continue
        fn, inst = found
        where = f"{inst.loc.file}:{inst.loc.line}: " if inst.loc.line else ""
        text = inst.text.strip() or inst.op
        via = "" if fn is kernel else f" (in function '{fn.name}')"
        out[name] = (f"{where}kernel '{name}' uses f64{via}: '{text}'. Apple GPUs reject double in compute "
                     "pipelines: build with --fp64=emulate (CUMETAL_FP64=emulate, the default for Metal)")
    return out


def emulation_refusals(module: N.Module, caps=None) -> dict[str, str]:
    """Kernel name -> why its f64 code cannot be emulated (the legalizer's message, naming the
    instruction); kernels that emulate fine, or use no f64, are not listed."""
    from cumetal.passes.legalize import LegalizeError, legalize, with_fp64

    if caps is None:
        from cumetal.backends.air.capabilities import CAPABILITIES as caps
    emulate = with_fp64(caps, "emulate")
    out: dict[str, str] = {}
    for name, kernel in module.kernels.items():
        if first_f64_instruction(module, kernel) is None:
            continue
        try:
            legalize(module, emulate, only=[f.name for f in _reachable(module, kernel)])
        except LegalizeError as e:
            out[name] = f"kernel '{name}': f64 emulation: {e}"
    return out


class AirFp64Error(AirLoweringError):
    """Kernels use f64 that cannot be emulated (the message lists each kernel)."""


def refuse_f64(module: N.Module, fp64: str = "emulate") -> None:
    """Raise AirFp64Error naming every kernel whose f64 cannot be built in mode ``fp64`` (with
    ``emulate``: an f64 operation without emulation; ``native``/``warn``: nothing is refused)."""
    if fp64 not in FP64_MODES:
        raise ValueError(f"fp64 mode must be one of {', '.join(FP64_MODES)}, not {fp64!r}")
    if fp64 != "emulate":
        return
    found = emulation_refusals(module)
    if found:
        raise AirFp64Error("\n".join(found.values()))
