"""Domains of the primitives defined on part of their operands (``OpInfo.domain`` in ``cumetal.ir.ops``).

Each factory ``(d, a, at) -> f(*args) -> bool array`` says per lane whether the operands lie where
the op's reference is its definition; the legalizer's rules guarantee it for the instructions they
make. Outside, a backend may give any result (a target's native division by zero, an oversized shift),
so constant folding does not fold there and the differential tests do not compare there.
"""

from __future__ import annotations

import numpy as np

from cumetal.ir import types as T
from cumetal.ir.semantics.dtypes import UDT
from cumetal.ir.semantics.elementwise import Attrs, Fn, Types
from cumetal.ir.semantics.rounding import to_f64


def divisor_ok(d: str, a: Types, at: Attrs) -> Fn:
    """a1 != 0 and, when signed, not INT_MIN / -1."""
    dt = UDT[d]
    int_min, ones = dt.type(1 << (T.bits(d) - 1)), dt.type(T.mask(d))

    def ok(x, y):
        x, y = np.asarray(x, dtype=dt), np.asarray(y, dtype=dt)
        r = y != 0
        if at.get("signed"):
            r &= ~((x == int_min) & (y == ones))
        return r
    return ok


def shift_in_range(d: str, a: Types, at: Attrs) -> Fn:
    """The amount a1 (unsigned i32) is below the width of the shifted type."""
    n = T.bits(d)
    return lambda x, s: np.asarray(s).astype(np.uint64) < np.uint64(n)


def integral_in_range(d: str, a: Types, at: Attrs) -> Fn:
    """a0 is an integral float value that the integer type d represents."""
    n = T.bits(d)
    lo, end = (-(2.0 ** (n - 1)), 2.0 ** (n - 1)) if at.get("signed") else (0.0, 2.0 ** n)  # exact in f64

    def ok(x):
        with np.errstate(all="ignore"):
            v = to_f64(x, a[0])
            return np.isfinite(v) & (np.trunc(v) == v) & (v >= lo) & (v < end)
    return ok
