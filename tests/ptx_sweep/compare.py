"""Comparison rules between a golden buffer and a backend's buffer, with readable mismatch reports.

Rules (a rule string may join alternatives with '|'; an element passes if any alternative does):
  exact      bit-for-bit equality (NaN payloads and the sign of zero included)
  ulp:N      floats: |ordered(got) - ordered(expected)| <= N; any NaN matches any NaN; +0 == -0
  abs:E      floats: |got - expected| <= E (NaN matches NaN, infinities must be equal)
  rel:E      floats: |got - expected| <= E * |expected|
  multiset   the sorted bit patterns are equal (values whose order the hardware does not fix)
  nan        floats: both are NaNs (any payload); joined with exact ('exact|nan') where the NaN
             picked among several NaN operands is not fixed by the PTX (ptxas may commute them)
"""

from __future__ import annotations

import numpy as np

from .case import Buf, Case

_LAYOUT = {  # bits, exponent mask, mantissa mask
    "f16": (16, 0x7C00, 0x03FF),
    "bf16": (16, 0x7F80, 0x007F),
    "f32": (32, 0x7F800000, 0x007FFFFF),
    "f64": (64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF),
}


def as_bits(arr: np.ndarray) -> np.ndarray:
    """View any array as unsigned integers of the same width."""
    arr = np.ascontiguousarray(arr)
    return arr.view(f"u{arr.dtype.itemsize}")


def to_float(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Bit patterns of fmt -> float64 values."""
    bits = as_bits(bits)
    with np.errstate(invalid="ignore"):  # signalling NaNs quieten when widened; any NaN will do here
        return _to_float(bits, fmt)


def _to_float(bits: np.ndarray, fmt: str) -> np.ndarray:
    if fmt == "f16":
        return bits.astype(np.uint16).view(np.float16).astype(np.float64)
    if fmt == "bf16":
        return (bits.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if fmt == "f32":
        return bits.astype(np.uint32).view(np.float32).astype(np.float64)
    return bits.astype(np.uint64).view(np.float64)


def is_nan(bits: np.ndarray, fmt: str) -> np.ndarray:
    _, emask, mmask = _LAYOUT[fmt]
    b = as_bits(bits).astype(np.uint64)
    return ((b & np.uint64(emask)) == np.uint64(emask)) & ((b & np.uint64(mmask)) != 0)


def ordered(bits: np.ndarray, fmt: str) -> np.ndarray:
    """Map float bit patterns to integers whose difference counts representable values (ULPs)."""
    nbits = _LAYOUT[fmt][0]
    b = as_bits(bits).astype(np.uint64)
    sign = (b >> np.uint64(nbits - 1)) & np.uint64(1)
    mag = b & np.uint64((1 << (nbits - 1)) - 1)
    if nbits == 64:  # differences of 64-bit magnitudes overflow int64: use Python ints
        return np.array([-int(m) if s else int(m) for m, s in zip(mag, sign, strict=True)], dtype=object)
    mag = mag.astype(np.int64)
    return np.where(sign == 1, -mag, mag)


def _rule_ok(rule: str, exp: np.ndarray, got: np.ndarray, fmt: str | None) -> np.ndarray:
    kind, _, arg = rule.partition(":")
    eb, gb = as_bits(exp), as_bits(got)
    if kind == "exact":
        return eb == gb
    if fmt is None:
        raise ValueError(f"rule {rule!r} needs a float buffer (fmt)")
    both_nan = is_nan(eb, fmt) & is_nan(gb, fmt)
    if kind == "nan":
        return both_nan
    if kind == "ulp":
        diff = np.abs(ordered(gb, fmt) - ordered(eb, fmt))
        any_nan = is_nan(eb, fmt) | is_nan(gb, fmt)
        return both_nan | (~any_nan & np.array(diff <= int(arg), dtype=bool))
    ev, gv = to_float(eb, fmt), to_float(gb, fmt)
    with np.errstate(invalid="ignore", over="ignore"):
        same_inf = np.isinf(ev) & (ev == gv)
        if kind == "abs":
            close = np.abs(gv - ev) <= float(arg)
        elif kind == "rel":
            close = np.abs(gv - ev) <= float(arg) * np.abs(ev)
        else:
            raise ValueError(f"unknown comparison rule {rule!r}")
    return both_nan | same_inf | (np.isfinite(ev) & np.isfinite(gv) & close)


def element_ok(rule: str, exp: np.ndarray, got: np.ndarray, fmt: str | None) -> np.ndarray:
    """Boolean per element: does got match exp under rule (alternatives joined by '|').

    Packed formats ('f16x2', 'bf16x2') pass when both halves pass.
    """
    if fmt in ("f16x2", "bf16x2"):
        halves = element_ok(rule, as_bits(exp).view(np.uint16), as_bits(got).view(np.uint16), fmt[:-2])
        return halves.reshape(-1, 2).all(axis=1)
    ok = np.zeros(exp.shape, dtype=bool)
    for alt in rule.split("|"):
        ok |= _rule_ok(alt.strip(), exp, got, fmt)
    return ok


def _fmt_value(v: np.ndarray, fmt: str | None) -> str:
    b = int(as_bits(np.asarray(v).reshape(1))[0])
    width = np.asarray(v).dtype.itemsize * 2
    if fmt in ("f16x2", "bf16x2"):
        lo, hi = b & 0xFFFF, b >> 16
        pair = to_float(np.array([lo, hi], dtype=np.uint16), fmt[:-2])
        return f"0x{b:0{width}x} (lo {pair[0]!r}, hi {pair[1]!r})"
    if fmt:
        return f"0x{b:0{width}x} ({to_float(np.array([b], dtype=f'u{width // 2}'), fmt)[0]!r})"
    return f"0x{b:0{width}x} ({int(np.asarray(v).reshape(1)[0])})"


def compare_buffer(case: Case, buf: Buf, exp: np.ndarray, got: np.ndarray, max_report: int = 8) -> str | None:
    """None when got matches exp under buf.rule, else a report of the first mismatches."""
    got = np.asarray(got)
    if got.dtype != exp.dtype or got.shape != exp.shape:
        return f"{case.name}.{buf.name}: expected {exp.dtype}{exp.shape}, got {got.dtype}{got.shape}"
    if buf.rule == "multiset":
        se, sg = np.sort(as_bits(exp)), np.sort(as_bits(got))
        if np.array_equal(se, sg):
            return None
        bad = np.nonzero(se != sg)[0][:max_report]
        lines = [f"{case.name}.{buf.name}: multisets differ (sorted positions shown)"]
        lines += [f"  sorted[{i}]: expected {_fmt_value(se[i], None)}  got {_fmt_value(sg[i], None)}" for i in bad]
        return "\n".join(lines)
    ok = element_ok(buf.rule, exp, got, buf.fmt)
    if ok.all():
        return None
    bad = np.nonzero(~ok)[0]
    lines = [f"{case.name}.{buf.name}: {len(bad)}/{len(ok)} elements differ (rule {buf.rule})"]
    for i in bad[:max_report]:
        ins = []
        for ib in case.inputs:
            if ib.count == buf.count and ib is not buf:
                ins.append(f"{ib.name}={_fmt_value(ib.init[i], ib.fmt)}")
        lines.append(f"  [{i}] {' '.join(ins)}")
        lines.append(f"       expected {_fmt_value(exp[i], buf.fmt)}  got {_fmt_value(got[i], buf.fmt)}")
    return "\n".join(lines)


def compare_case(case: Case, expected: dict[str, np.ndarray], got: dict[str, np.ndarray]) -> list[str]:
    """All mismatch reports of a case (empty when it matches)."""
    reports = []
    for buf in case.outputs:
        if buf.name not in got:
            reports.append(f"{case.name}.{buf.name}: backend returned no such output")
            continue
        r = compare_buffer(case, buf, expected[buf.name], got[buf.name])
        if r:
            reports.append(r)
    return reports
