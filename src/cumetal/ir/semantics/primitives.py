"""Reference definitions of the legalizer's primitives (``cumetal.passes.legalize``).

A primitive is an op with weaker, target-friendly semantics that the legalization rules expand
NVIDIA-specific ops into: it is defined only on a *domain* (a nonzero divisor, an in-range shift
amount, an integral in-range float) where LLVM's instructions and C++/MSL operators are defined.
The factories below (same protocol as ``elementwise``: ``ref_<op>(d, a, at) -> f(*args)``) give
the value inside the domain; outside it a target may give anything (LLVM: poison or a trap), so
the reference returns the NVIDIA op's value there only to stay total (the domains are
``ir/semantics/domains.py``, named by each entry's ``domain``). The float primitives ``*_ieee`` are
total but leave a NaN result's sign and payload open (their entries say ``any_nan``).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

import numpy as np

from cumetal.ir.semantics import elementwise as E

Types = tuple[str, ...]
Attrs = Mapping[str, Any]
Fn = Callable[..., np.ndarray]


def ref_div_nz(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_div(d, a, at)


def ref_rem_nz(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_rem(d, a, at)


def ref_shl_lt(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_shl(d, a, at)


def ref_lshr_lt(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_lshr(d, a, at)


def ref_ashr_lt(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_ashr(d, a, at)


def ref_f2i_inrange(d: str, a: Types, at: Attrs) -> Fn:
    return E.ref_f2i(d, a, {**at, "rnd": "rz"})  # the value is integral: every mode gives it


def _ieee(op: str) -> Callable[[str, Types, Attrs], Fn]:
    """``<op>_ieee``: the IEEE operation (rounding per rnd, the op's ``ftz`` attribute where it
    takes one); a NaN result is *some* NaN. The NVIDIA op's value is one such refinement."""
    plain = getattr(E, f"ref_{op}")

    def factory(d: str, a: Types, at: Attrs) -> Fn:
        return E.with_modifiers(op, plain(d, a, at), d, at)
    factory.__name__ = f"ref_{op}_ieee"
    return factory


ref_fadd_ieee, ref_fsub_ieee, ref_fmul_ieee, ref_fdiv_ieee, ref_fma_ieee, ref_fsqrt_ieee, ref_frint_ieee = (
    _ieee(op) for op in ("fadd", "fsub", "fmul", "fdiv", "fma", "fsqrt", "frint"))
ref_fapprox_ieee, ref_fcvt_ieee = _ieee("fapprox"), _ieee("fcvt")

__all__ = ["ref_fapprox_ieee", "ref_fcvt_ieee", "ref_fadd_ieee", "ref_fdiv_ieee", "ref_fma_ieee", "ref_fmul_ieee", "ref_frint_ieee",
           "ref_fsqrt_ieee", "ref_fsub_ieee", "ref_ashr_lt", "ref_div_nz", "ref_f2i_inrange", "ref_lshr_lt", "ref_rem_nz",
           "ref_shl_lt"]
