"""Type rules of the IR ops: which destination/argument types an instruction of each op may have.

A rule is a ``TypeRule``: a name (for messages and docs) and a check ``(dsts, args) -> problem or
None`` over the operand *types*. ``cumetal.ir.ops`` names one rule per op; the verifier applies it,
and the differential tests enumerate every valid signature of an op from it (``signatures``), so a
rule is also the generator's description of the op's domain. Kinds used below:
``int`` i8..i64 (arithmetic integers), ``bits`` i1..i64 (bitwise ops also act on predicates),
``float`` f16 bf16 f32 f64, ``any`` every type.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass

from cumetal.ir import types as T

Check = Callable[[tuple[str, ...], tuple[str, ...]], "str | None"]

KINDS: dict[str, tuple[str, ...]] = {
    "int": ("i8", "i16", "i32", "i64"),
    "bits": T.INT_TYPES,
    "float": T.FLOAT_TYPES,
    "any": T.ALL_TYPES,
}


@dataclass(frozen=True, slots=True)
class TypeRule:
    name: str
    check: Check

    def __call__(self, dsts: tuple[str, ...], args: tuple[str, ...]) -> str | None:
        return self.check(dsts, args)


def _kind_problem(what: str, t: str, kind: str) -> str | None:
    return None if t in KINDS[kind] else f"{what} type {t} is not {kind} ({' '.join(KINDS[kind])})"


def same(kind: str) -> TypeRule:
    """Destination and every argument have one type, of ``kind``."""
    def check(d, a):
        if d:
            for t in a:
                if t != d[0]:
                    return f"argument type {t} differs from result type {d[0]}"
            return _kind_problem("result", d[0], kind)
        return None
    return TypeRule(f"same({kind})", check)


def compare(kind: str) -> TypeRule:
    """i1 result of comparing two arguments of one type of ``kind``."""
    def check(d, a):
        if d and d[0] != "i1":
            return f"result type {d[0]} is not i1"
        if len(a) == 2 and a[0] != a[1]:
            return f"compared types differ ({a[0]}, {a[1]})"
        return _kind_problem("argument", a[0], kind) if a else None
    return TypeRule(f"compare({kind})", check)


def _select(d, a):
    if len(a) == 3:
        if a[0] != "i1":
            return f"condition type {a[0]} is not i1"
        if d and (a[1] != d[0] or a[2] != d[0]):
            return f"selected types {a[1]}, {a[2]} differ from result type {d[0]}"
    return None


SELECT = TypeRule("select", _select)


def _shift(d, a):
    if d and a and a[0] != d[0]:
        return f"shifted type {a[0]} differs from result type {d[0]}"
    if len(a) == 2 and a[1] != "i32":
        return f"shift amount type {a[1]} is not i32"
    return _kind_problem("result", d[0], "int") if d else None


SHIFT = TypeRule("shift", _shift)


def _count(d, a):
    if d and d[0] != "i32":
        return f"result type {d[0]} is not i32"
    return _kind_problem("argument", a[0], "int") if a else None


COUNT = TypeRule("count", _count)


def _equal_width(d, a):
    if d and a and T.bits(d[0]) != T.bits(a[0]):
        return f"width mismatch ({a[0]} -> {d[0]})"
    return None


EQUAL_WIDTH = TypeRule("equal-width", _equal_width)


def _extend(d, a):
    if not (d and a):
        return None
    p = _kind_problem("result", d[0], "int") or _kind_problem("argument", a[0], "bits")
    if p is None and T.bits(d[0]) < T.bits(a[0]):
        return f"cannot extend {a[0]} to the narrower {d[0]}"
    return p


EXTEND = TypeRule("extend", _extend)


def _truncate(d, a):
    if not (d and a):
        return None
    p = _kind_problem("result", d[0], "bits") or _kind_problem("argument", a[0], "int")
    if p is None and T.bits(d[0]) > T.bits(a[0]):
        return f"cannot truncate {a[0]} to the wider {d[0]}"
    return p


TRUNCATE = TypeRule("truncate", _truncate)


def convert(src: str, dst: str) -> TypeRule:
    """One argument of kind ``src`` to a result of kind ``dst``."""
    def check(d, a):
        if not (d and a):
            return None
        return _kind_problem("result", d[0], dst) or _kind_problem("argument", a[0], src)
    return TypeRule(f"convert({src}->{dst})", check)


def address(value_arg: int | None = None) -> TypeRule:
    """Argument 0 is an i64 address (memory ops)."""
    def check(d, a):
        if a and a[0] != "i64":
            return f"address type {a[0]} is not i64"
        return None
    return TypeRule("address", check)


ANY = TypeRule("any", lambda d, a: None)


def signatures(rule: TypeRule, ndst: int, nargs: int) -> list[tuple[tuple[str, ...], tuple[str, ...]]]:
    """Every (dst types, arg types) the rule accepts: the domain a test generator draws from."""
    out = []
    for d in itertools.product(T.ALL_TYPES, repeat=ndst):
        for a in itertools.product(T.ALL_TYPES, repeat=nargs):
            if rule(d, a) is None:
                out.append((d, a))
    return out
