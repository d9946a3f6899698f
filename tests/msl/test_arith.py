"""Arithmetic and conversions of emitted MSL under msl-sim against exact references
(Python fractions / integers / numpy), including rounding modes, NaNs, saturation, clamped shifts."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from msl_elementwise import kernel
from msl_testing import compile_module, launch

F32_MODES = ("rn", "rz", "rm", "rp")
N = 512

_KERNELS = []
for _m in F32_MODES:
    for _op in ("add", "sub", "mul", "div"):
        _KERNELS.append(kernel(f"f_{_op}_{_m}", f"{_op}.{_m}.f32 {{d}}, {{a}}, {{b}}", "f32", ("f32", "f32")))
    _KERNELS.append(kernel(f"f_fma_{_m}", f"fma.{_m}.f32 {{d}}, {{a}}, {{b}}, {{c}}", "f32", ("f32", "f32", "f32")))
    _KERNELS.append(kernel(f"f_sqrt_{_m}", f"sqrt.{_m}.f32 {{d}}, {{a}}", "f32", ("f32",)))
    _KERNELS.append(kernel(f"cvt_s32_{_m}", f"cvt.{_m}i.s32.f32 {{d}}, {{a}}", "s32", ("f32",)))
    _KERNELS.append(kernel(f"cvt_u32_{_m}", f"cvt.{_m}i.u32.f32 {{d}}, {{a}}", "u32", ("f32",)))
    _KERNELS.append(kernel(f"cvt_f32_s64_{_m}", f"cvt.{_m}.f32.s64 {{d}}, {{a}}", "f32", ("s64",)))
    _KERNELS.append(kernel(f"cvt_f16_{_m}", f"cvt.{_m}.f16.f32 {{d}}, {{a}}", "b16", ("f32",)))
_KERNELS += [
    kernel("i_div_s", "div.s32 {d}, {a}, {b}", "s32", ("s32", "s32")),
    kernel("i_rem_s", "rem.s32 {d}, {a}, {b}", "s32", ("s32", "s32")),
    kernel("i_div_u", "div.u32 {d}, {a}, {b}", "u32", ("u32", "u32")),
    kernel("i_rem_u", "rem.u32 {d}, {a}, {b}", "u32", ("u32", "u32")),
    kernel("i_shl", "shl.b32 {d}, {a}, {b}", "b32", ("b32", "u32")),
    kernel("i_shr_s", "shr.s32 {d}, {a}, {b}", "s32", ("s32", "u32")),
    kernel("i_shr_u", "shr.u32 {d}, {a}, {b}", "u32", ("u32", "u32")),
    kernel("i_mulhi_s", "mul.hi.s32 {d}, {a}, {b}", "s32", ("s32", "s32")),
    kernel("i_mulhi_u64", "mul.hi.u64 {d}, {a}, {b}", "u64", ("u64", "u64")),
    kernel("i_mulhi_s64", "mul.hi.s64 {d}, {a}, {b}", "s64", ("s64", "s64")),
    kernel("i_popc", "popc.b64 {d}, {a}", "u32", ("b64",)),
    kernel("i_clz", "clz.b32 {d}, {a}", "u32", ("b32",)),
    kernel("i_brev", "brev.b32 {d}, {a}", "b32", ("b32",)),
    kernel("f_min", "min.f32 {d}, {a}, {b}", "f32", ("f32", "f32")),
    kernel("f_max_nan", "max.NaN.f32 {d}, {a}, {b}", "f32", ("f32", "f32")),
    kernel("f_setp_ltu", "setp.ltu.f32 {d}, {a}, {b}", "pred", ("f32", "f32")),
    kernel("f_setp_equ", "setp.eq.f32 {d}, {a}, {b}", "pred", ("f32", "f32")),
    kernel("cvt_f32_f16", "cvt.f32.f16 {d}, {a}", "f32", ("b16",)),
    kernel("cvt_sat", "cvt.sat.f32.f32 {d}, {a}", "f32", ("f32",)),
    kernel("cvt_ftz", "cvt.ftz.f32.f32 {d}, {a}", "f32", ("f32",)),
    kernel("cvt_s64_rn", "cvt.rni.s64.f32 {d}, {a}", "s64", ("f32",)),
]


@pytest.fixture(scope="module")
def prog():
    return compile_module("".join(_KERNELS))


def run(prog, name, out_dtype, *inputs):
    n = len(inputs[0])
    args = [np.ascontiguousarray(x) for x in inputs]
    while len(args) < 3:
        args.append(args[0])
    out = np.zeros(n, out_dtype)
    launch(prog, name, (n + 127) // 128, 128, *args, out, n)
    return out


def random_f32(rng, n, lo=-40, hi=40):
    mant = rng.uniform(1, 2, n) * rng.choice([-1, 1], n)
    return (mant * np.exp2(rng.integers(lo, hi, n))).astype(np.float32)


def round_f32(q: Fraction, mode: str) -> np.float32:
    """Round an exact rational to binary32 (finite range) by direct search: independent of the
    prelude's error-free transformations."""
    if q == 0:
        return np.float32(0)
    lo = np.float32(float(q))
    while Fraction(float(lo)) > q:
        lo = np.nextafter(lo, np.float32(-np.inf))
    while Fraction(float(np.nextafter(lo, np.float32(np.inf)))) <= q:
        lo = np.nextafter(lo, np.float32(np.inf))
    if Fraction(float(lo)) == q:
        return lo
    hi = np.nextafter(lo, np.float32(np.inf))
    if mode == "rz":
        return lo if q > 0 else hi
    if mode == "rm":
        return lo
    if mode == "rp":
        return hi
    dl, dh = q - Fraction(float(lo)), Fraction(float(hi)) - q
    if dl != dh:
        return lo if dl < dh else hi
    return lo if int(lo.view(np.uint32)) % 2 == 0 else hi


def same_bits(got: np.ndarray, want: np.ndarray) -> np.ndarray:
    g, w = got.view(np.uint32), want.view(np.uint32)
    return (g == w) | ((got == 0) & (want == 0))


@pytest.mark.parametrize("mode", F32_MODES)
def test_f32_arith_rounding_modes(prog, rng, mode):
    a, b, c = random_f32(rng, N), random_f32(rng, N), random_f32(rng, N)
    fa, fb, fc = ([Fraction(float(x)) for x in v] for v in (a, b, c))
    refs = {
        "add": [x + y for x, y in zip(fa, fb, strict=True)],
        "sub": [x - y for x, y in zip(fa, fb, strict=True)],
        "mul": [x * y for x, y in zip(fa, fb, strict=True)],
        "div": [x / y for x, y in zip(fa, fb, strict=True)],
        "fma": [x * y + z for x, y, z in zip(fa, fb, fc, strict=True)],
    }
    for op, exact in refs.items():
        got = run(prog, f"f_{op}_{mode}", np.float32, a, b, c)
        want = np.array([round_f32(q, mode) for q in exact], np.float32)
        bad = np.flatnonzero(~same_bits(got, want))
        assert bad.size == 0, f"{op}.{mode}: {a[bad[0]]!r} {b[bad[0]]!r} -> {got[bad[0]]!r}, want {want[bad[0]]!r}"


@pytest.mark.parametrize("mode", F32_MODES)
def test_f32_sqrt_rounding_modes(prog, rng, mode):
    a = np.abs(random_f32(rng, N))
    got = run(prog, f"f_sqrt_{mode}", np.float32, a)
    for x, r in zip(a, got, strict=True):
        q = Fraction(float(x))
        rr = Fraction(float(r))
        up = Fraction(float(np.nextafter(r, np.float32(np.inf))))
        down = Fraction(float(np.nextafter(r, np.float32(0))))
        if mode in ("rz", "rm"):
            assert rr * rr <= q < up * up, (x, r)
        elif mode == "rp":
            assert down * down < q <= rr * rr, (x, r)
        else:
            assert r == np.sqrt(x), (x, r)


def test_f32_special_values_and_canonical_nan(prog):
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1.0, -1.0, 1e-45, -1e-45, 3.4e38, 1.17e-38],
                    np.float32)
    a = np.repeat(vals, len(vals))
    b = np.tile(vals, len(vals))
    with np.errstate(all="ignore"):
        for op, fn in (("add", np.add), ("sub", np.subtract), ("mul", np.multiply), ("div", np.divide)):
            got = run(prog, f"f_{op}_rn", np.float32, a, b)
            want = fn(a, b)
            nan = np.isnan(want)
            assert (got.view(np.uint32)[nan] == 0x7FFFFFFF).all(), f"{op}: NaN results must be canonical"
            assert (got.view(np.uint32)[~nan] == want.view(np.uint32)[~nan]).all(), op
    got = run(prog, "f_min", np.float32, a, b)
    for x, y, r in zip(a, b, got, strict=True):
        if np.isnan(x) and np.isnan(y):
            assert r.view(np.uint32) == 0x7FFFFFFF
        elif np.isnan(x) or np.isnan(y):
            assert r.view(np.uint32) == (y if np.isnan(x) else x).view(np.uint32)
        elif x == 0 and y == 0:
            assert r.view(np.uint32) == (x.view(np.uint32) | y.view(np.uint32))
        else:
            assert r == min(x, y)
    got = run(prog, "f_max_nan", np.float32, a, b)
    either_nan = np.isnan(a) | np.isnan(b)
    assert (got.view(np.uint32)[either_nan] == 0x7FFFFFFF).all()
    assert (got[~either_nan] == np.maximum(a, b)[~either_nan]).all()
    ltu = run(prog, "f_setp_ltu", np.uint8, a, b)
    assert (ltu == ((a < b) | either_nan)).all()
    eq = run(prog, "f_setp_equ", np.uint8, a, b)
    assert (eq == ((a == b) & ~either_nan)).all()


def _round_int(x: float, mode: str) -> int:
    q = Fraction(x)
    fl = q.numerator // q.denominator
    if q == fl:
        return fl
    return {"rz": int(x), "rm": fl, "rp": fl + 1,
            "rn": fl if (q - fl < Fraction(1, 2) or (q - fl == Fraction(1, 2) and fl % 2 == 0)) else fl + 1}[mode]


@pytest.mark.parametrize("mode", F32_MODES)
def test_f2i_saturation_and_rounding(prog, rng, mode):
    a = np.concatenate([random_f32(rng, 200, -3, 34),
                        np.array([np.nan, np.inf, -np.inf, 2.5, -2.5, 0.5, -0.5, 1.5, 2**31, -2**31, 4.3e9,
                                  -1.0, -0.75, 0.75], np.float32)])
    got_s = run(prog, f"cvt_s32_{mode}", np.int32, a)
    got_u = run(prog, f"cvt_u32_{mode}", np.uint32, a)
    for x, s, u in zip(a, got_s, got_u, strict=True):
        if np.isnan(x):
            assert s == 0 and u == 0
            continue
        r = (2**40 if x > 0 else -2**40) if np.isinf(x) else _round_int(float(x), mode)
        assert s == min(max(r, -2**31), 2**31 - 1), (x, s)
        assert u == min(max(r, 0), 2**32 - 1), (x, u)


@pytest.mark.parametrize("mode", F32_MODES)
def test_i2f_and_f32_to_f16_rounding(prog, rng, mode):
    ints = np.concatenate([rng.integers(-2**63, 2**63 - 1, 300, dtype=np.int64),
                           np.array([0, 1, -1, 2**24 + 1, -(2**24 + 1), 2**63 - 1, -2**63], np.int64)])
    got = run(prog, f"cvt_f32_s64_{mode}", np.float32, ints)
    want = np.array([round_f32(Fraction(int(v)), mode) for v in ints], np.float32)
    assert same_bits(got, want).all()
    f = random_f32(rng, 300, -20, 16)
    got16 = run(prog, f"cvt_f16_{mode}", np.uint16, f).view(np.float16)
    for x, h in zip(f, got16, strict=True):
        q = Fraction(float(x))
        hq = Fraction(float(h))
        step_up = Fraction(float(np.nextafter(h, np.float16(np.inf))))
        step_down = Fraction(float(np.nextafter(h, np.float16(-np.inf))))
        if mode == "rn":
            assert h == np.float16(x), (x, h)  # numpy's f32->f16 cast is round-to-nearest-even
        elif mode == "rm":
            assert hq <= q < step_up or (np.isinf(h) and q < -65504), (x, h)
        elif mode == "rp":
            assert step_down < q <= hq or (np.isinf(h) and q > 65504), (x, h)
        else:
            assert abs(hq) <= abs(q) and (abs(q) < abs(step_up if q > 0 else step_down)), (x, h)


def test_f16_to_f32_exact(prog):
    bits = np.arange(0, 65536, 7, dtype=np.uint16)
    got = run(prog, "cvt_f32_f16", np.float32, bits)
    want = bits.view(np.float16).astype(np.float32)
    nan = np.isnan(want)
    assert (got.view(np.uint32)[nan] == 0x7FFFFFFF).all()
    assert (got[~nan].view(np.uint32) == want[~nan].view(np.uint32)).all()


def test_sat_ftz_and_s64_conversion(prog):
    a = np.array([-1.0, 0.5, 2.0, np.nan, -0.0, 1e-40, -1e-40, 2e-38, 3e9, -1e19, 1e19], np.float32)
    sat = run(prog, "cvt_sat", np.float32, a)
    assert sat.tolist()[:5] == [0.0, 0.5, 1.0, 0.0, 0.0] and sat.view(np.uint32)[3] == 0
    ftz = run(prog, "cvt_ftz", np.float32, a)
    assert ftz.view(np.uint32)[5] == 0 and ftz.view(np.uint32)[6] == 0x80000000 and ftz[7] == a[7]
    s64 = run(prog, "cvt_s64_rn", np.int64, a)
    assert s64[8] == 3000000000 and s64[9] == -2**63 and s64[10] == 2**63 - 1 and s64[3] == -2**63  # NaN into 64 bits: 1 << 63 (ops.py f2i)


def test_integer_edge_cases(prog, rng):
    smin = -2**31
    a = np.array([7, -7, 7, -7, smin, smin, 5, -5, 0, 2**31 - 1] + rng.integers(-2**31, 2**31, 100).tolist(), np.int32)
    b = np.array([2, 2, -2, -2, -1, 1, 0, 0, 0, -1] + rng.integers(-2**31, 2**31, 100).tolist(), np.int32)

    def sdiv(x, y):
        if y == 0:  # all ones for every x (ops.py div, as NVIDIA hardware)
            return -1
        if x == smin and y == -1:
            return smin
        q = abs(x) // abs(y)
        return q if (x >= 0) == (y >= 0) else -q

    def srem(x, y):
        if y == 0:  # all ones (ops.py rem)
            return -1
        if x == smin and y == -1:
            return 0
        return x - sdiv(x, y) * y

    assert run(prog, "i_div_s", np.int32, a, b).tolist() == [sdiv(int(x), int(y)) for x, y in zip(a, b, strict=True)]
    assert run(prog, "i_rem_s", np.int32, a, b).tolist() == [srem(int(x), int(y)) for x, y in zip(a, b, strict=True)]
    ua, ub = a.view(np.uint32), b.view(np.uint32)
    assert run(prog, "i_div_u", np.uint32, ua, ub).tolist() == [
        (int(x) // int(y)) if y else 0xFFFFFFFF for x, y in zip(ua, ub, strict=True)]
    assert run(prog, "i_rem_u", np.uint32, ua, ub).tolist() == [
        (int(x) % int(y)) if y else 0xFFFFFFFF for x, y in zip(ua, ub, strict=True)]
    shifts = np.array([0, 1, 31, 32, 33, 255, 2**31, 4] * 14, np.uint32)[:len(a)]
    assert run(prog, "i_shl", np.uint32, ua, shifts).tolist() == [
        (int(x) << int(s)) & 0xFFFFFFFF if s < 32 else 0 for x, s in zip(ua, shifts, strict=True)]
    assert run(prog, "i_shr_u", np.uint32, ua, shifts).tolist() == [
        int(x) >> int(s) if s < 32 else 0 for x, s in zip(ua, shifts, strict=True)]
    assert run(prog, "i_shr_s", np.int32, a, shifts).tolist() == [
        int(x) >> min(int(s), 31) for x, s in zip(a, shifts, strict=True)]
    assert run(prog, "i_mulhi_s", np.int32, a, b).tolist() == [
        (int(x) * int(y)) >> 32 for x, y in zip(a, b, strict=True)]
    x64 = rng.integers(0, 2**64 - 1, 200, dtype=np.uint64, endpoint=True)
    y64 = rng.integers(0, 2**64 - 1, 200, dtype=np.uint64, endpoint=True)
    assert run(prog, "i_mulhi_u64", np.uint64, x64, y64).tolist() == [
        (int(x) * int(y)) >> 64 for x, y in zip(x64, y64, strict=True)]
    s64a, s64b = x64.view(np.int64), y64.view(np.int64)
    assert run(prog, "i_mulhi_s64", np.int64, s64a, s64b).tolist() == [
        (int(x) * int(y)) >> 64 for x, y in zip(s64a, s64b, strict=True)]
    assert run(prog, "i_popc", np.uint32, x64).tolist() == [bin(int(x)).count("1") for x in x64]
    vals = np.concatenate([ua, np.array([0, 1, 0x80000000], np.uint32)])
    assert run(prog, "i_clz", np.uint32, vals).tolist() == [32 - int(v).bit_length() for v in vals]
    assert run(prog, "i_brev", np.uint32, vals).tolist() == [int(f"{int(v):032b}"[::-1], 2) for v in vals]
