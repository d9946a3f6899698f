"""f64 arithmetic propagates a NaN operand, quieted, by a per-op priority (NVIDIA hardware).

A NaN operand comes out with its sign and payload, bit 51 set; when several are NaN the op's
priority picks (fadd/fsub/fmul/fmin/fmax: a1 then a0; fdiv, fapprox: a0 then a1; fma: a1, a2, a0); a NaN
made from non-NaN operands (0*inf, inf-inf, 0/0, sqrt(-x)) is 0xFFF8000000000000::

    r   = fadd_ieee a0, a1
    q   = select (uno a0), a0 | QUIET, 0xFFF8000000000000     (lowest priority first)
    q   = select (uno a1), a1 | QUIET, q
    d   = select (uno r), q, r
"""

from __future__ import annotations

from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule

ARITH = ("fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt", "frint", "fapprox")
PRIORITY = {"fadd": (1, 0), "fsub": (1, 0), "fmul": (1, 0), "fmin": (1, 0), "fmax": (1, 0), "fdiv": (0, 1),
            "fma": (1, 2, 0), "fsqrt": (0,), "frint": (0,), "fapprox": (0, 1)}
DEFAULT_NAN = 0xFFF8000000000000
QUIET = 1 << 51


def _matches(inst: Inst) -> bool:
    return inst.op in ARITH and inst.dsts[0].type == "f64"


def nan_result(b: Builder, op: str, args: tuple[Value, ...] | list[Value]) -> Value:
    """The f64 NaN ``op`` gives for operands ``args`` when its result is NaN (used by fmin/fmax too)."""
    q: Value = b.bits("f64", DEFAULT_NAN)
    for i in reversed(PRIORITY[op]):
        if i >= len(args):  # fapprox of one operand
            continue
        a = args[i]
        quiet = b.from_bits("f64", b.op("or", "i64", b.to_bits(a), b.int("i64", QUIET)))
        q = b.select(b.is_nan(a), quiet, q)
    return q


def _expand(b: Builder, inst: Inst) -> list[Value]:
    r = b.op(f"{inst.op}_ieee", "f64", *inst.args, **inst.attrs)
    return [b.select(b.is_nan(r), nan_result(b, inst.op, inst.args), r)]


RULE = Rule(
    ops=ARITH,
    key="nan.f64_priority",
    summary="fadd/fsub/fmul/fdiv/fma/fsqrt/frint/fapprox on f64: a NaN operand propagates quieted by the op's "
            "priority, else 0xFFF8000000000000 -> <op>_ieee + selects",
    matches=_matches, expand=_expand, emits=tuple(f"{op}_ieee" for op in ARITH),
    removes=tuple(f"{op}:f64" for op in ARITH))
