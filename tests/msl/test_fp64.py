"""FP64: native mode is IEEE double (msl-sim runs it; Apple GPUs do not); emulate mode is the
legalizer's float-float emulation (passes/legalize/fp64) with the accuracy documented in
docs/fp64-policy.md (asserted here with margin; tests/fp64 measures it in detail)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from msl_elementwise import kernel
from msl_testing import compile_module, launch

OPS = {
    "add": ("add.rn.f64 {d}, {a}, {b}", np.add),
    "sub": ("sub.rn.f64 {d}, {a}, {b}", np.subtract),
    "mul": ("mul.rn.f64 {d}, {a}, {b}", np.multiply),
    "div": ("div.rn.f64 {d}, {a}, {b}", np.divide),
    "fma": ("fma.rn.f64 {d}, {a}, {b}, {c}", None),
    "sqrt": ("sqrt.rn.f64 {d}, {a}", np.sqrt),
}
PTX = "".join(kernel(f"d_{k}", ins, "f64", ("f64", "f64", "f64")) for k, (ins, _f) in OPS.items()) + "".join([
    kernel("d_to_f32", "cvt.rn.f32.f64 {d}, {a}", "f32", ("f64",)),
    kernel("d_from_f32", "cvt.f64.f32 {d}, {a}", "f64", ("f32",)),
    kernel("d_to_s64", "cvt.rzi.s64.f64 {d}, {a}", "s64", ("f64",)),
    kernel("d_lt", "setp.lt.f64 {d}, {a}, {b}", "pred", ("f64", "f64")),
    kernel("d_mov", "mov.f64 {d}, {a}", "f64", ("f64",)),
    *(kernel(f"d_add_{m}", f"add.{m}.f64 {{d}}, {{a}}, {{b}}", "f64", ("f64", "f64")) for m in ("rz", "rm", "rp")),
    *(kernel(f"d_div_{m}", f"div.{m}.f64 {{d}}, {{a}}, {{b}}", "f64", ("f64", "f64")) for m in ("rz", "rm", "rp")),
])


@pytest.fixture(scope="module")
def native():
    return compile_module(PTX, fp64="native", name="fp64n.ptx")


@pytest.fixture(scope="module")
def emulate():
    return compile_module(PTX, fp64="emulate", name="fp64e.ptx")


def inputs(rng, n=2000, lo=-30, hi=30):
    def one():
        return rng.uniform(1, 2, n) * rng.choice([-1.0, 1.0], n) * np.exp2(rng.integers(lo, hi, n).astype(float))
    return one(), one(), one()


def run(prog, name, out_dtype, *args):
    n = len(args[0])
    args = list(args) + [args[0]] * (3 - len(args))
    out = np.zeros(n, out_dtype)
    launch(prog, name, (n + 127) // 128, 128, *args, out, n)
    return out


def rel_err(got, want):
    return np.abs(got - want) / np.maximum(np.abs(want), np.finfo(np.float64).tiny)


def test_native_fp64_is_ieee(native, rng):
    a, b, c = inputs(rng)
    for op in ("add", "sub", "mul", "div"):
        assert (run(native, f"d_{op}", np.float64, a, b, c) == OPS[op][1](a, b)).all(), op
    assert (run(native, "d_sqrt", np.float64, np.abs(a)) == np.sqrt(np.abs(a))).all()
    fma = run(native, "d_fma", np.float64, a, b, c)
    exact = [float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a[:300], b[:300], c[:300], strict=True)]
    assert (fma[:300] == np.array(exact)).all(), "one rounding (Fraction -> float rounds to nearest)"


def round_f64(q: Fraction, mode: str) -> float:
    near = float(q)
    lo = near if Fraction(near) <= q else math.nextafter(near, -math.inf)
    if Fraction(lo) == q:
        return lo
    hi = math.nextafter(lo, math.inf)
    return {"rz": lo if q > 0 else hi, "rm": lo, "rp": hi}[mode]


@pytest.mark.parametrize("mode", ["rz", "rm", "rp"])
def test_native_fp64_directed_rounding(native, rng, mode):
    a, b, _ = inputs(rng, 500)
    got_add = run(native, f"d_add_{mode}", np.float64, a, b)
    got_div = run(native, f"d_div_{mode}", np.float64, a, b)
    for x, y, s, d in zip(a, b, got_add, got_div, strict=True):
        assert s == round_f64(Fraction(x) + Fraction(y), mode), (x, y)
        assert d == round_f64(Fraction(x) / Fraction(y), mode), (x, y)


def test_emulated_fp64_accuracy(emulate, rng):
    a, b, c = inputs(rng)
    bounds = {"add": 2.0**-44, "sub": 2.0**-44, "mul": 2.0**-45, "div": 2.0**-44, "sqrt": 2.0**-45}
    for op, bound in bounds.items():
        x = np.abs(a) if op == "sqrt" else a
        got = run(emulate, f"d_{op}", np.float64, x, b, c)
        want = np.sqrt(x) if op == "sqrt" else OPS[op][1](a, b)
        err = rel_err(got, want)
        # add/sub can cancel: measure against the operands' magnitude, as for any float-float sum
        if op in ("add", "sub"):
            err = np.abs(got - want) / np.maximum(np.abs(a), np.abs(b))
        assert err.max() <= bound, f"{op}: max relative error {err.max():.3g}"
    got = run(emulate, "d_fma", np.float64, a, b, c)
    scale = np.maximum(np.abs(a * b), np.abs(c))
    assert (np.abs(got - (a * b + c)) / scale).max() <= 2.0**-43


def test_emulated_fp64_conversions_and_compare(emulate, rng):
    a, b, _ = inputs(rng, 1000)
    mov = run(emulate, "d_mov", np.float64, a)
    assert (mov.view(np.uint64) == a.view(np.uint64)).all(), "registers and memory keep the binary64 bits"
    f32 = run(emulate, "d_to_f32", np.float32, a)
    assert (f32 == a.astype(np.float32)).all()
    f = a.astype(np.float32)
    assert (run(emulate, "d_from_f32", np.float64, f) == f.astype(np.float64)).all()
    big = rng.integers(-2**40, 2**40, 1000).astype(np.float64) + 0.25  # exactly representable in a pair
    assert (run(emulate, "d_to_s64", np.int64, big) == np.trunc(big).astype(np.int64)).all()
    lt = run(emulate, "d_lt", np.uint8, a, b)
    assert (lt == (a < b)).all()
    specials = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1e300, 1e-300])
    got = run(emulate, "d_mov", np.float64, specials)
    assert got[0] == np.inf and got[1] == -np.inf and np.isnan(got[2])
    assert got[4] == 0 and math.copysign(1, got[4]) < 0
    assert got[5] == 1e300 and got[6] == 1e-300, "binary64 bits, whatever the exponent"
    assert "double" not in emulate.emitted.source, "no double reaches the MSL under --fp64=emulate"
