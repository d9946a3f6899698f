"""The comparison rules accept what they should and reject what they should."""

from __future__ import annotations

import numpy as np

from .case import Buf, Case
from .compare import compare_buffer, element_ok, ordered


def _f32(*vals: float) -> np.ndarray:
    return np.array(vals, dtype=np.float32).view(np.uint32)


def test_exact_distinguishes_nan_payloads_and_zero_signs() -> None:
    exp = np.array([0x7FFFFFFF, 0x00000000], np.uint32)
    got = np.array([0x7FC00000, 0x80000000], np.uint32)
    assert not element_ok("exact", exp, got, "f32").any()
    assert element_ok("exact", exp, exp.copy(), "f32").all()


def test_ulp_counts_representable_steps_across_zero() -> None:
    one = _f32(1.0)
    assert element_ok("ulp:1", one, one + 1, "f32").all()
    assert not element_ok("ulp:1", one, one + 2, "f32").any()
    # smallest positive and negative denormals are 2 steps apart (via +-0, which count as one point)
    assert int(ordered(np.array([1], np.uint32), "f32")[0] - ordered(np.array([0x80000001], np.uint32), "f32")[0]) == 2
    assert element_ok("ulp:0", np.array([0], np.uint32), np.array([0x80000000], np.uint32), "f32").all()


def test_ulp_f64_does_not_overflow_between_extremes() -> None:
    big = np.array([0x7FEFFFFFFFFFFFFF], np.uint64)
    neg = np.array([0xFFEFFFFFFFFFFFFF], np.uint64)
    assert not element_ok("ulp:4", big, neg, "f64").any()


def test_nan_matches_any_nan_but_not_numbers_under_float_rules() -> None:
    nan_a, nan_b, num = _f32(np.nan), np.array([0x7FC12345], np.uint32), _f32(1.0)
    for rule in ("ulp:2", "abs:1e-3", "rel:1e-3"):
        assert element_ok(rule, nan_a, nan_b, "f32").all()
        assert not element_ok(rule, nan_a, num, "f32").any()
        assert not element_ok(rule, num, nan_a, "f32").any()


def test_infinities_must_be_equal_under_abs_and_rel() -> None:
    inf, ninf, big = _f32(np.inf), _f32(-np.inf), _f32(3e38)
    assert element_ok("abs:1e30|rel:1", inf, inf.copy(), "f32").all()
    assert not element_ok("abs:1e30|rel:1", inf, ninf, "f32").any()
    assert not element_ok("rel:1", inf, big, "f32").any()


def test_alternatives_and_packed_halves() -> None:
    exp = _f32(1e-9)
    got = _f32(2e-9)
    assert not element_ok("rel:0.1", exp, got, "f32").any()
    assert element_ok("rel:0.1|abs:1e-8", exp, got, "f32").all()
    packed_exp = np.array([0x3C003C00], np.uint32)  # f16x2 (1.0, 1.0)
    assert element_ok("ulp:1", packed_exp, np.array([0x3C013C00], np.uint32), "f16x2").all()
    assert not element_ok("ulp:1", packed_exp, np.array([0x3C003C02], np.uint32), "f16x2").any()


def test_bf16_values_decode() -> None:
    assert element_ok("abs:0.01", np.array([0x3F80], np.uint16), np.array([0x3F81], np.uint16), "bf16").all()


def test_multiset_ignores_order_only() -> None:
    buf = Buf("olds", "uint32", 4, output=True, rule="multiset")
    case = Case("t", "atomics", "", "k", (1, 1, 1), (1, 1, 1), (buf,))
    exp = np.array([0, 1, 2, 3], np.uint32)
    assert compare_buffer(case, buf, exp, np.array([3, 1, 0, 2], np.uint32)) is None
    report = compare_buffer(case, buf, exp, np.array([3, 1, 1, 2], np.uint32))
    assert report and "multisets differ" in report


def test_report_names_inputs_and_both_values() -> None:
    a = Buf("a", "uint32", 2, init=np.array([5, 6], np.uint32))
    d = Buf("d", "uint32", 2, output=True)
    case = Case("t", "int_arith", "", "k", (1, 1, 1), (2, 1, 1), (a, d))
    report = compare_buffer(case, d, np.array([1, 2], np.uint32), np.array([1, 9], np.uint32))
    assert report is not None
    assert "[1] a=0x00000006 (6)" in report and "expected 0x00000002 (2)  got 0x00000009 (9)" in report
