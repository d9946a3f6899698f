"""Float semantics of the CPU engine against exact rational arithmetic (fref.py)."""

from __future__ import annotations

import math
import struct
from fractions import Fraction

import numpy as np
import pytest
from fref import CANON, UNSIGNED, encode, interesting, ref_bits, round_exact, value
from hypothesis import given, settings
from hypothesis import strategies as st

from cumetal.backends.cpu import floats as F
from cumetal.backends.cpu import nanrules

MODES = ("rn", "rz", "rm", "rp")
FORMATS = ("f32", "f64", "f16", "bf16")
N = 300


def _check(t: str, mode: str, op: str, ins: list[np.ndarray]) -> None:
    fn = {"fadd": F.fadd, "fsub": F.fsub, "fmul": F.fmul, "fdiv": F.fdiv}.get(op)
    if op == "fma":
        got = F.fma(*ins, t, mode)
    elif op == "fsqrt":
        got = F.fsqrt(ins[0], t, mode)
    else:
        got = fn(*ins, t, mode)
    if t == "f64":  # as the engine runs it: hardware NaN propagation on top of the arithmetic
        got = nanrules.f64_result(op, got, ins)
    assert got.dtype == UNSIGNED[t]
    bad = []
    for i in range(len(ins[0])):
        xs = [int(a[i]) for a in ins]
        want = ref_bits(t, mode, op, *xs)
        if int(got[i]) != want:
            bad.append((op, t, mode, [hex(x) for x in xs], hex(int(got[i])), hex(want)))
    assert not bad, f"{len(bad)} mismatches, first: {bad[:3]}"


@pytest.mark.parametrize("t", FORMATS)
@pytest.mark.parametrize("op", ["fadd", "fsub", "fmul", "fdiv", "fsqrt", "fma"])
def test_arith_all_modes_match_exact_rounding(t: str, op: str) -> None:
    rng = np.random.default_rng(hash((t, op)) & 0xFFFF)
    nargs = {"fsqrt": 1, "fma": 3}.get(op, 2)
    for mode in MODES:
        ins = [interesting(t, N, rng) for _ in range(nargs)]
        if op == "fsub":  # exact cancellation: x - x
            ins[1][: N // 10] = ins[0][: N // 10]
        _check(t, mode, op, ins)


def _bits(x: float, t: str) -> int:
    return encode(x, t)


@pytest.mark.parametrize("mode", MODES)
def test_fma_f32_double_rounding_cases(mode: str) -> None:
    # a*b lies exactly halfway between two floats; a tiny c decides the direction. Rounding the
    # f64 sum first would lose c (the classic double-rounding error).
    a = 1 + 2.0 ** -12
    cases = []
    for c in (2.0 ** -60, -(2.0 ** -60), 0.0, 2.0 ** -100, 3 * 2.0 ** -149):
        for sa in (1, -1):
            cases.append((sa * a, a, c))
    ins = [np.array([_bits(x[i], "f32") for x in cases], dtype=np.uint32) for i in range(3)]
    _check("f32", mode, "fma", ins)


@pytest.mark.parametrize("mode", MODES)
def test_fma_f64_ties_and_cancellation(mode: str) -> None:
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(200):
        k, j = int(rng.integers(1, 1 << 20)) | 1, int(rng.integers(1, 1 << 20)) | 1
        a = 1 + k * 2.0 ** -26
        b = 1 + j * 2.0 ** -27
        tiny = float(rng.choice([2.0 ** -100, -(2.0 ** -100), 0.0]))
        cases.append((a, b, tiny))
        cases.append((a, b, -(a * b)))  # massive cancellation: the result is the product's error
        cases.append((a, -b, float(rng.normal()) * 2.0 ** int(rng.integers(-1070, -1000))))  # subnormal c
        cases.append((2.0 ** -540 * a, 2.0 ** -530 * b, 0.0))  # product in the subnormal range
        cases.append((1.7e308, -2.3e100 * b, float("inf")))  # product overflows f64 but is finite
    ins = [np.array([_bits(x[i], "f64") for x in cases], dtype=np.uint64) for i in range(3)]
    _check("f64", mode, "fma", ins)


@settings(max_examples=150, deadline=None)
@given(st.floats(allow_nan=False, width=64), st.floats(allow_nan=False, width=64),
       st.floats(allow_nan=False, width=64), st.sampled_from(MODES))
def test_fma_f64_property(a: float, b: float, c: float, mode: str) -> None:
    ins = [np.array([_bits(x, "f64")], dtype=np.uint64) for x in (a, b, c)]
    _check("f64", mode, "fma", ins)


@settings(max_examples=150, deadline=None)
@given(st.floats(allow_nan=False, width=32), st.floats(allow_nan=False, width=32), st.sampled_from(MODES),
       st.sampled_from(["fadd", "fmul", "fdiv"]))
def test_f32_binary_property(a: float, b: float, mode: str, op: str) -> None:
    ins = [np.array([_bits(x, "f32")], dtype=np.uint32) for x in (a, b)]
    _check("f32", mode, op, ins)


# ----------------------------------------------------------------------------- conversions
@pytest.mark.parametrize("dst", ["f32", "f16", "bf16"])
@pytest.mark.parametrize("mode", MODES)
def test_fcvt_narrowing(dst: str, mode: str) -> None:
    rng = np.random.default_rng(3)
    src = "f64"
    xs = interesting(src, 400, rng)
    # doubles near the destination's rounding boundaries
    xs[:100] = np.array([_bits(float(np.float32(v)) * (1 + 2.0 ** -30), "f64") for v in rng.normal(size=100)])
    got = F.fcvt(xs, src, dst, mode)
    for x, g in zip(xs.tolist(), got.tolist(), strict=True):
        v = value(x, src)
        if math.isnan(v):
            # sign and the payload's top bits kept, quieted (H100, sweep family 'regress')
            sign, payload = x >> 63, x & ((1 << 52) - 1)
            want = {"f32": 0x7FC00000 | sign << 31 | payload >> 29,
                    "f16": 0x7E00 | sign << 15 | payload >> 42}.get(dst, CANON[dst])
        elif math.isinf(v) or v == 0:
            want = encode(v, dst)
        else:
            want = encode(round_exact(Fraction(v), dst, mode), dst)
        assert g == want, (hex(x), mode, dst, hex(g), hex(want))


@pytest.mark.parametrize("mode", MODES)
def test_fcvt_f16_bf16_cross(mode: str) -> None:
    rng = np.random.default_rng(5)
    for src, dst in (("f16", "bf16"), ("bf16", "f16"), ("f32", "f16")):
        xs = interesting(src, 300, rng)
        got = F.fcvt(xs, src, dst, mode)
        for x, g in zip(xs.tolist(), got.tolist(), strict=True):
            v = value(x, src)
            want = CANON[dst] if math.isnan(v) else (encode(v, dst) if math.isinf(v) or v == 0
                                                     else encode(round_exact(Fraction(v), dst, mode), dst))
            assert g == want, (src, dst, hex(x), hex(g), hex(want))


@pytest.mark.parametrize("dst", ["f64", "f32", "f16", "bf16"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("signed", [True, False])
def test_i2f_64bit_exact_beyond_2_53(dst: str, mode: str, signed: bool) -> None:
    rng = np.random.default_rng(11)
    xs = rng.integers(0, 1 << 64, size=300, dtype=np.uint64)
    xs[:5] = [0, 1, (1 << 63) - 1, 1 << 63, (1 << 64) - 1]
    xs[5:50] = (np.uint64(1) << np.uint64(53)) + rng.integers(0, 1 << 12, size=45, dtype=np.uint64)
    got = F.i2f(xs, "i64", signed, dst, mode)
    for x, g in zip(xs.tolist(), got.tolist(), strict=True):
        iv = x - (1 << 64) if signed and x >> 63 else x
        want = encode(0.0, dst) if iv == 0 else encode(round_exact(Fraction(iv), dst, mode), dst)
        assert g == want, (x, hex(g), hex(want))


@pytest.mark.parametrize("src", ["f32", "f64", "f16"])
@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("bits,signed", [(32, True), (32, False), (64, True), (64, False), (16, True), (8, False)])
def test_f2i_rounds_then_saturates(src: str, mode: str, bits: int, signed: bool) -> None:
    rng = np.random.default_rng(13)
    xs = interesting(src, 200, rng)
    vals = [2.5, -2.5, 3.5, -0.5, 2.0 ** 31, -(2.0 ** 31), 2.0 ** 63, 2.0 ** 64, -1.0, 1e30, 255.5, 65535.9]
    fixed = [encode(v, src) for v in vals if not math.isinf(float(np.array(v).astype(
        {"f32": np.float32, "f64": np.float64, "f16": np.float16}[src])))]
    xs[: len(fixed)] = fixed
    got = F.f2i(xs, src, bits, signed, mode)
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    nan_int = 1 << (bits - 1) if (src == "f64" or bits == 64) else 0  # measured on NVIDIA hardware
    rnd = {"rn": lambda f: round(f), "rz": math.trunc, "rm": math.floor, "rp": math.ceil}[mode]
    for x, g in zip(xs.tolist(), got.tolist(), strict=True):
        v = value(x, src)
        if math.isnan(v):
            want = nan_int
        elif math.isinf(v):
            want = hi if v > 0 else lo
        else:
            want = min(max(rnd(Fraction(v)), lo), hi)  # round(Fraction) is half-to-even
        assert g == want & ((1 << bits) - 1), (src, hex(x), v, g, want)


# ----------------------------------------------------------------------------- min/max, cmp, misc
@pytest.mark.parametrize("t", FORMATS)
def test_fmin_fmax_nan_and_signed_zero(t: str) -> None:
    u = UNSIGNED[t]
    pz, nz, one, nan = encode(0.0, t), encode(-0.0, t), encode(1.0, t), CANON[t] - 5
    a = np.array([pz, nz, one, nan, nan, one], dtype=u)
    b = np.array([nz, pz, nan, one, nan, encode(-1.0, t)], dtype=u)
    assert F.fmin(a, b, t, "num").tolist() == [nz, nz, one, one, CANON[t], encode(-1.0, t)]
    assert F.fmin(a, b, t, "num", True).tolist() == [pz, pz, one, one, CANON[t], one]
    assert F.fmin(a, b, t, "propagate").tolist() == [nz, nz, CANON[t], CANON[t], CANON[t], encode(-1.0, t)]


def test_f64_nan_propagation_rules_through_kernels() -> None:
    # hardware rules (sweep goldens): NaN operand kept and quieted, priority b-then-a for add/min,
    # a-then-b for div; NaN from numbers = 0xFFF8000000000000; cvt f32->f64 keeps the payload
    from cumetal.backends.cpu.nanrules import f64_result
    snan_a, snan_b = 0x7FF0000000000123, 0xFFF0000000000456
    one = encode(1.0, "f64")
    a = np.array([snan_a, snan_a, one, encode(math.inf, "f64")], dtype=np.uint64)
    b = np.array([snan_b, one, snan_b, encode(-math.inf, "f64")], dtype=np.uint64)
    q = 1 << 51
    assert f64_result("fadd", F.fadd(a, b, "f64", "rn"), [a, b]).tolist() == [
        snan_b | q, snan_a | q, snan_b | q, 0xFFF8000000000000]
    assert f64_result("fdiv", F.fdiv(a, b, "f64", "rn"), [a, b]).tolist()[0] == snan_a | q
    assert F.fcvt(np.array([0x7F800001, 0xFFC00010], dtype=np.uint32), "f32", "f64", "rn").tolist() == [
        0x7FF0000020000000 | q, 0xFFF8000200000000]
    assert F.fcvt(np.array([0x7F81], dtype=np.uint16), "bf16", "f32", "rn").tolist() == [0x7F810000]


def test_canonical_nan_and_payload_rules() -> None:
    qnan_payload = np.array([0x7FC01234, 0xFFC00001], dtype=np.uint32)
    one = np.uint32(0x3F800000)
    assert F.fadd(qnan_payload, one, "f32", "rn").tolist() == [0x7FFFFFFF, 0x7FFFFFFF]
    # hardware: f32 neg/abs of a NaN give the canonical NaN; f64 keeps the NaN, quieted, sign unchanged
    assert F.fneg(qnan_payload, "f32").tolist() == [0x7FFFFFFF, 0x7FFFFFFF]
    assert F.fabs(qnan_payload, "f32").tolist() == [0x7FFFFFFF, 0x7FFFFFFF]
    assert F.fneg(np.array([0x3F800000], dtype=np.uint32), "f32").tolist() == [0xBF800000]
    from cumetal.backends.cpu.elementwise import elementwise_fn
    from cumetal.ir import Inst, Var
    neg64 = elementwise_fn(Inst("fneg", (Var(0, "f64"),), (Var(1, "f64"),)))
    assert neg64(np.array([0xFFF0000000000001, 0x3FF0000000000000], dtype=np.uint64)).tolist() == [
        0xFFF8000000000001, 0xBFF0000000000000]
    inf = np.array([0x7F800000], dtype=np.uint32)
    assert F.fsub(inf, inf, "f32", "rn").tolist() == [0x7FFFFFFF]


def test_ftz_and_fsat() -> None:
    d = np.array([0x00000001, 0x80000010, 0x00800000, 0x3F800000], dtype=np.uint32)
    assert F.ftz(d, "f32").tolist() == [0, 0x80000000, 0x00800000, 0x3F800000]
    s = np.array([encode(x, "f32") for x in (-0.0, -3.0, 0.25, 7.0)] + [0x7FC00000], dtype=np.uint32)
    assert F.fsat(s, "f32").tolist() == [0, 0, encode(0.25, "f32"), encode(1.0, "f32"), 0]


def test_frint_modes() -> None:
    xs = np.array([encode(v, "f32") for v in (2.5, -2.5, 1.5, -0.3, 7.0)], dtype=np.uint32)
    want = {"rn": [2.0, -2.0, 2.0, -0.0, 7.0], "rz": [2.0, -2.0, 1.0, -0.0, 7.0],
            "rm": [2.0, -3.0, 1.0, -1.0, 7.0], "rp": [3.0, -2.0, 2.0, -0.0, 7.0]}
    for mode, w in want.items():
        assert F.frint(xs, "f32", mode).tolist() == [encode(v, "f32") for v in w]


def test_fcmp_ordered_unordered() -> None:
    nan = np.uint32(0x7FC00000)
    a = np.array([encode(1.0, "f32"), nan, encode(2.0, "f32")], dtype=np.uint32)
    b = np.array([encode(1.0, "f32"), encode(1.0, "f32"), nan], dtype=np.uint32)
    assert F.fcmp(a, b, "f32", "oeq").tolist() == [True, False, False]
    assert F.fcmp(a, b, "f32", "une").tolist() == [False, True, True]
    assert F.fcmp(a, b, "f32", "one").tolist() == [False, False, False]
    assert F.fcmp(a, b, "f32", "uno").tolist() == [False, True, True]
    assert F.fcmp(a, b, "f32", "ult").tolist() == [False, True, True]


def test_struct_reference_self_check() -> None:
    # the reference encoder agrees with struct on a round trip of exactly representable values
    for v in (1.0, -2.5, 2.0 ** -149, 65504.0):
        assert value(encode(v, "f32"), "f32") == v
    assert struct.pack("<f", value(encode(1.5, "bf16"), "bf16")) == struct.pack("<f", 1.5)


def test_ftz_attribute_flushes_inputs_and_tiny_exact_results() -> None:
    from cumetal.backends.cpu.elementwise import elementwise_fn
    from cumetal.ir import Inst, Var

    def op(name: str, t: str, n: int, **attrs):
        return elementwise_fn(Inst(name, (Var(0, t),), tuple(Var(i + 1, t) for i in range(n)), attrs))
    u = np.uint32
    mul = op("fmul", "f32", 2, rnd="rn", ftz=True)
    # exact product just below the smallest normal rounds up to it in IEEE, but is tiny before rounding
    a = np.array([0x00800000, 0x80800000, 0x00000010, 0x3F800000], dtype=u)
    b = np.array([0x3F7FFFFF, 0x3F7FFFFF, 0x3F800000, 0x00800000], dtype=u)
    assert mul(a, b).tolist() == [0, 0x80000000, 0, 0x00800000]
    assert op("fmul", "f32", 2, rnd="rn")(a, b).tolist()[:2] == [0x00800000, 0x80800000]  # no ftz: IEEE
    add = op("fadd", "f32", 2, rnd="rn", ftz=True)
    assert add(np.array([0x00000005], dtype=u), np.array([0x00800000], dtype=u)).tolist() == [0x00800000]
    assert add(np.array([0x00C00000], dtype=u), np.array([0x80800000], dtype=u)).tolist() == [0]


# PTX ISA bounds (docs/ptx-sweep.md "Bounds of approximate instructions"): since the f32 .approx
# functions model the H100's special-function unit bit for bit (ir/semantics/mufu.py), they are held
# to NVIDIA's documented accuracy, not to 1 ulp of the exact value
_ULP = lambda k: lambda x, w: k * np.spacing(np.abs(w).astype(np.float32))  # noqa: E731
_APPROX_BOUND = {
    "ex2": _ULP(2), "rcp": _ULP(1), "tanh": lambda x, w: np.abs(w) * 2.0**-10.987,
    "sqrt": lambda x, w: np.abs(w) * 2.0**-23, "rsqrt": lambda x, w: np.abs(w) * 2.0**-22.9,
    "lg2": lambda x, w: np.maximum(2.0**-22.6, np.abs(w) * 2.0**-22),
    # sin/cos: abs 2^-20.5 within |x| <= pi, growing about |x| * 2^-22 beyond (measured on the H100)
    "sin": lambda x, w: 2.0**-20.5 + np.abs(x) * 2.0**-22, "cos": lambda x, w: 2.0**-20.5 + np.abs(x) * 2.0**-22,
}


@pytest.mark.parametrize("fn,ref", [("ex2", np.exp2), ("lg2", np.log2), ("sin", np.sin), ("cos", np.cos),
                                    ("rsqrt", lambda x: 1 / np.sqrt(x)), ("rcp", lambda x: 1 / x),
                                    ("sqrt", np.sqrt), ("tanh", np.tanh)])
def test_fapprox_f32_within_the_ptx_isa_bound(fn: str, ref) -> None:
    x = np.random.default_rng(9).uniform(0.01, 20, size=500).astype(np.float32)
    got = F.fapprox(fn, [x.view(np.uint32)], "f32").view(np.float32)
    want = ref(x.astype(np.float64))
    assert (np.abs(got - want) <= _APPROX_BOUND[fn](x.astype(np.float64), want)).all()
    div = F.fapprox("div_approx", [x.view(np.uint32), x[::-1].copy().view(np.uint32)], "f32").view(np.float32)
    assert np.allclose(div, x.astype(np.float64) / x[::-1], rtol=2 ** -23)
