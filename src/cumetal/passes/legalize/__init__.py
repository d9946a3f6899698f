"""IR legalization: NVIDIA-specific behaviour written once, as rules that expand into primitives.

Each rule (``rules/<name>.py``) matches the op variants whose semantics carry one NVIDIA rule
(integer x/0, shift clamps, atomic inc/dec, float->int saturation, …) and re-expresses them in
primitive ops of weaker, target-friendly semantics (``cumetal.ir.ops``). Each backend declares once
what it implements itself (``backends/<name>/capabilities.py``) and applies ``legalize`` where it
receives the module, so everything downstream of it sees only ops it implements. The cpu engine
is the reference: it executes every op by its definition and is never legalized.
See docs/legalization.md.
"""

from __future__ import annotations

from collections.abc import Iterable

from cumetal.ir import types as T
from cumetal.ir.nodes import Function, Module
from cumetal.passes.legalize.capabilities import REFERENCE, Capabilities
from cumetal.passes.legalize.driver import LegalizeError, legalize_function, legalize_module
from cumetal.passes.legalize.fp64 import FP64_KEYS, emulates_f64, with_fp64
from cumetal.passes.legalize.fp64.storage import retype_function, retype_module
from cumetal.passes.legalize.rule import Rule
from cumetal.passes.legalize.rules import RULES


def active_rules(caps: Capabilities) -> tuple[Rule, ...]:
    """The rules a backend with ``caps`` gets applied (those it does not implement natively)."""
    if caps.reference:
        return ()
    rules = tuple(r for r in RULES if r.key not in caps.native)
    for r in rules:
        missing = [p for p in r.emits if p not in caps.primitives]
        if missing:
            raise LegalizeError(f"backend {caps.name}: rule {r.key} needs primitives {missing} it does not declare")
    return rules


def legalize(module: Module, caps: Capabilities, only: Iterable[str] | None = None) -> Module:
    """``module`` with every rule ``caps`` needs applied (a new module; the input is unchanged).
    ``only``: restrict to these kernel/function names (the others are shared untouched)."""
    rules = active_rules(caps)
    out = legalize_module(module, rules, only)
    if emulates_f64(caps):  # the emulated f64 registers become their binary64 bits (i64)
        out = retype_module(out, only)
    return out


def legalize_fn(fn: Function, caps: Capabilities) -> Function:
    out = legalize_function(fn, active_rules(caps))
    return retype_function(out) if emulates_f64(caps) else out


def expanded_ops(caps: Capabilities) -> dict[str, str]:
    """Rule key -> what it expands, for every rule a backend with ``caps`` gets applied."""
    return {r.key: r.summary for r in active_rules(caps)}


def received_ops(caps: Capabilities, all_ops: Iterable[str]) -> set[str]:
    """The op names a backend with ``caps`` may receive after legalization: ``all_ops`` minus the
    ops some applied rule removes entirely, plus the primitives applied rules emit."""
    rules = active_rules(caps)
    removed = {op for r in rules for op in r.removes}  # 'op' (every variant) or 'op:type'
    gone = {op for op in all_ops if op in removed or all(f"{op}:{t}" in removed for t in T.FLOAT_TYPES)}
    return (set(all_ops) - gone) | {op for r in rules for op in r.emits}


__all__ = ["FP64_KEYS", "with_fp64", "Capabilities", "LegalizeError", "REFERENCE", "RULES", "Rule", "active_rules", "expanded_ops",
           "legalize", "legalize_fn", "received_ops"]
