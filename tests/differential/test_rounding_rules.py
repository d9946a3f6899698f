"""The legalizer's rounding rules (passes/legalize/rules/rounding_*.py) on every Apple backend.

Directed rounding (rz/rm/rp) of arithmetic and conversions and the single rounding of f16/bf16 fma
are IR rules that expand into round-to-nearest primitives plus exact residuals. Random programs of
those ops only (every directed variant, f16/bf16 fma in every mode) and programs whose operands sit
at the overflow threshold and at exact cancellations are run on air-sim and msl-sim and compared
bit for bit with the reference definitions; the reference's f64 fma is checked against exact
rational arithmetic on those operands (Python's Fraction) first.
"""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import program as P  # noqa: E402

from cumetal.ir.nodes import Const  # noqa: E402

ROUNDING_OPS = ["fadd_ieee", "fsub_ieee", "fmul_ieee", "fdiv_ieee", "fma_ieee", "fsqrt_ieee", "fcvt_ieee", "i2f"]
RULED = re.compile(r"rnd=r[zmp]|^fma_ieee\.(f16|bf16)<")
BACKENDS = ("air-sim", "msl-sim")
DBL_MAX = sys.float_info.max


def _launch(backend: str):
    if backend == "air-sim":
        from cumetal.backends.air.sim import launch_air
        return launch_air
    from cumetal.backends.msl.sim.device_launch import launch
    return launch


def _edge_values(t: str, rng: np.random.Generator) -> np.ndarray:
    """Operands next to the overflow threshold, around 1 (cancellations against them) and tiny."""
    dt = np.float64 if t == "f64" else np.float32
    big = np.array([DBL_MAX if t == "f64" else np.finfo(np.float32).max], dt)[0]
    base = np.array([big, big / 2, big / 3, 1.0, 1.37, 0.63, 2.0, 0.5, 1e-30, 3.0], dt)
    x = base[rng.integers(0, len(base), P.LANES)]
    ulps = rng.integers(-3, 4, P.LANES)  # a few units of the last place either way
    it = np.uint64 if t == "f64" else np.uint32
    bits = x.view(it).astype(np.int64) + ulps
    x = bits.astype(it).view(dt)
    x = np.where(np.isfinite(x), x, base[0])
    x = np.where(rng.random(P.LANES) < 0.5, -x, x)
    return x.view(it).astype(np.uint64)


def _edge_program(seed: int, ops: tuple[str, ...] = ("fma_ieee", "fadd_ieee", "fmul_ieee", "fdiv_ieee"),
                  types: str = "f32|f64") -> P.Program:
    prog = P.generate(seed, 120, ops=list(ops), exclude=lambda key: not re.search(rf"\.({types})<.*rnd=r[zmp]", key))
    rng = np.random.default_rng(seed)
    for slot, t in prog.loads.values():
        if t in ("f32", "f64"):
            prog.inputs[slot] = _edge_values(t, rng)
    return prog


def _directed_f64(q: Fraction, rnd: str) -> float:
    """The exact value q rounded to binary64 per rnd (q != 0)."""
    sign = 1.0 if q > 0 else -1.0
    try:
        r = float(q)  # correctly rounded to nearest
    except OverflowError:
        r = sign * math.inf
    if math.isinf(r):
        toward_zero = rnd == "rz" or (rnd == "rm" and q > 0) or (rnd == "rp" and q < 0)
        return sign * DBL_MAX if toward_zero else r
    if Fraction(r) > q and (rnd == "rm" or (rnd == "rz" and q > 0)):
        r = math.nextafter(r, -math.inf)
    elif Fraction(r) < q and (rnd == "rp" or (rnd == "rz" and q < 0)):
        r = math.nextafter(r, math.inf)
    return r


def test_the_reference_is_exact_at_the_overflow_threshold() -> None:
    """f64 fma and add, directed, on the edge operands: the reference equals exact rational
    arithmetic rounded per mode (Knuth's TwoSum overflowed in the reference's add once)."""
    prog = _edge_program(31, ("fma_ieee", "fadd_ieee"), "f64")
    ref = P.reference(prog)
    checked = 0
    for st in prog.steps:
        xs = [np.broadcast_to(np.uint64(x.bits), (P.LANES,)).view(np.float64) if isinstance(x, Const)
              else ref[x.id].view(np.float64) for x in st.args]
        got = ref[st.dst.id].view(np.float64)
        for lane in range(P.LANES):
            if not all(math.isfinite(v[lane]) for v in xs):
                continue
            f = [Fraction(float(v[lane])) for v in xs]
            q = f[0] * f[1] + f[2] if st.op == "fma_ieee" else f[0] + f[1]
            if q == 0:
                continue
            assert got[lane] == _directed_f64(q, st.attrs["rnd"]), (st.key(), lane, [v[lane] for v in xs])
            checked += 1
    assert checked > 5000


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounding_rules_match_the_reference(backend: str) -> None:
    problems = []
    for seed in (41, 42):
        prog = P.generate(seed, 160, ops=ROUNDING_OPS, exclude=lambda key: not RULED.search(key))
        assert len(prog.steps) == 160
        got = P.run(prog, _launch(backend))
        assert not isinstance(got, str), got
        problems += [f"program {seed}: {m}" for m in P.compare(prog, got, P.reference(prog))]
    prog = _edge_program(31)
    got = P.run(prog, _launch(backend))
    assert not isinstance(got, str), got
    problems += [f"edge program: {m}" for m in P.compare(prog, got, P.reference(prog))]
    assert not problems, "\n".join(problems[:20])
