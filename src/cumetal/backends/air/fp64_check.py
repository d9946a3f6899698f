"""FP64 on the AIR (``.metallib``) path: Apple GPUs reject ``double`` in compute pipelines.

The AIR lowering writes f64 as native ``double``; a Mac would refuse the pipeline (or the whole
library) with an opaque message. Until the shared fp64 legalizer (issue #10) gives the AIR path the
float-float emulation the MSL path has, ``.metallib`` builds refuse kernels that use f64 unless
native doubles are asked for explicitly (``--fp64=native``, ``CUMETAL_FP64=native``), naming the
kernel and its first f64 instruction.
"""

from __future__ import annotations

from cumetal.backends.air.lower_context import AirLoweringError
from cumetal.ir import nodes as N

AIR_FP64_MODES = ("native", "refuse")


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
    """Kernel name -> why it cannot go into a ``.metallib`` without ``--fp64=native`` (only the
    kernels that use f64 are listed)."""
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
                     "pipelines and the .metallib path has no fp64 emulation yet (issue #10); use the MSL path "
                     "(--emit=msl --fp64=emulate, or CUMETAL_METAL_LIBRARY=msl) or ask for native doubles "
                     "with --fp64=native")
    return out


class AirFp64Error(AirLoweringError):
    """Kernels use f64 and native doubles were not asked for (the message lists each kernel)."""


def refuse_f64(module: N.Module, fp64: str = "refuse") -> None:
    """For ``cumetalc --emit=metallib``: raise AirFp64Error naming every kernel that uses f64 and its
    first f64 instruction, unless ``fp64 == "native"`` (``--fp64=native``)."""
    if fp64 not in AIR_FP64_MODES:
        raise ValueError(f"fp64 mode for the .metallib path must be one of {', '.join(AIR_FP64_MODES)}, not {fp64!r}")
    if fp64 == "native":
        return
    found = f64_diagnostics(module)
    if found:
        raise AirFp64Error("\n".join(found.values()))
