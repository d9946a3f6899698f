"""Float -> integer conversion: NaN and out-of-range values (NVIDIA hardware).

``f2i`` rounds to an integral value per ``rnd``, then saturates to the destination's range; a NaN
gives 0 from f32/f16/bf16 into at most 32 bits and 1 << (bits-1) from f64 or into 64 bits. Targets
convert exactly only an integral value that fits (``f2i_inrange``: LLVM's fptosi/fptoui and C++'s
conversion are undefined otherwise), so the value is rounded with ``frint_ieee`` (f16 and bf16 first
widened to f32, exactly), compared with the bounds (lo is a power of two, hi + 1 too: both exact),
and replaced by 0.0 where the rule decides the result itself::

    r     = frint_ieee.rnd x
    below = fcmp olt r, lo      above = fcmp oge r, hi + 1      nan = fcmp uno r, r
    v     = f2i_inrange (select below|above|nan, 0.0, r)
    d     = select nan, NaNvalue, select above, hi, select below, lo, v
"""

from __future__ import annotations

from cumetal.ir import types as T
from cumetal.ir.nodes import Inst, Value
from cumetal.passes.legalize.builder import Builder
from cumetal.passes.legalize.rule import Rule


def _matches(inst: Inst) -> bool:
    return inst.op == "f2i"


def _bounds(t: str, signed: bool) -> tuple[int, int]:
    n = T.bits(t)
    return (-(1 << (n - 1)), (1 << (n - 1)) - 1) if signed else (0, (1 << n) - 1)


def _expand(b: Builder, inst: Inst) -> list[Value]:
    dt = inst.dsts[0].type
    x = inst.args[0]
    st = x.type
    signed = bool(inst.attrs.get("signed"))
    rnd = inst.attrs.get("rnd") or "rn"
    wt = st
    if st in ("f16", "bf16"):
        x = b.op("fcvt_ieee", "f32", x, rnd="rn")  # exact (only its NaN-ness is read when NaN)
        wt = "f32"
    r = b.op("frint_ieee", wt, x, rnd=rnd)  # only its NaN-ness is read when NaN
    lo, hi = _bounds(dt, signed)
    below = b.fcmp("olt", r, b.float(wt, float(lo)))
    above = b.fcmp("oge", r, b.float(wt, float(hi + 1)))
    nan = b.is_nan(r)
    bad = b.or1(b.or1(below, above), nan)
    safe = b.select(bad, b.float(wt, 0.0), r)
    v: Value = b.op("f2i_inrange", dt, safe, signed=signed)
    if lo != 0:
        v = b.select(below, b.int(dt, lo), v)
    else:  # unsigned: below is only ever -x (rounded), and v is then 0 already
        pass
    v = b.select(above, b.int(dt, hi), v)
    nan_value = 1 << (T.bits(dt) - 1) if (st == "f64" or T.bits(dt) == 64) else 0
    return [b.select(nan, b.int(dt, nan_value), v)]


RULE = Rule(
    ops=("f2i",),
    key="cvt.f2i_saturate",
    summary="f2i: round, saturate to the range, NaN -> 0 or 1<<(bits-1) -> frint + f2i_inrange of an in-range value",
    matches=_matches, expand=_expand, emits=("f2i_inrange", "frint_ieee", "fcvt_ieee"), removes=("f2i",))
