"""Accuracy of the fp64 emulation against exact arithmetic (fractions; mpmath for square roots).

Each operation runs on random operands over binary64's whole exponent range (and subnormal
results); the error of every result is measured in binary64 ulps of a scale: the exact result for
mul/div/sqrt/rcp/rsqrt, the larger operand for add/sub (float-float addition is accurate relative to
its operands, not to a cancelled result) and max(|a*b|, |c|) for fma. Run on a backend::

    python -m tests.fp64.accuracy                     (emulation on the cpu engine: the rules)
    python -m tests.fp64.accuracy air-sim msl-sim     (the backends, CUMETAL_FP64=emulate)

The table in docs/fp64-policy.md comes from here; tests/fp64/test_accuracy.py asserts BOUNDS.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

import mpmath
import numpy as np
from tests.fp64.ir_kernels import emulated, kernel, run

# documented bound per op (ulps of the scale above), with margin over the measured maxima
BOUNDS = {"add": 96, "sub": 96, "mul": 128, "div": 128, "fma": 160, "sqrt": 64, "rcp": 128, "rsqrt": 160,
          "load": 32}
N = 2048


def random_f64(rng: np.random.Generator, n: int, emin: int, emax: int, positive: bool = False) -> np.ndarray:
    """Random 53-bit significands, exponents uniform in [emin, emax], random signs."""
    m = rng.integers(1 << 52, 1 << 53, size=n, dtype=np.uint64).astype(np.float64)
    e = rng.integers(emin, emax + 1, size=n)
    x = np.ldexp(m, e - 52)
    if not positive:
        x *= rng.choice([-1.0, 1.0], size=n)
    return x


OPS = {  # name: (IR op, attrs, operand generator, exact value, scale)
    "add": ("fadd", {"rnd": "rn"}, 2, lambda a, b: Fraction(a) + Fraction(b), lambda a, b: max(abs(a), abs(b))),
    "sub": ("fsub", {"rnd": "rn"}, 2, lambda a, b: Fraction(a) - Fraction(b), lambda a, b: max(abs(a), abs(b))),
    "mul": ("fmul", {"rnd": "rn"}, 2, lambda a, b: Fraction(a) * Fraction(b), None),
    "div": ("fdiv", {"rnd": "rn"}, 2, lambda a, b: Fraction(a) / Fraction(b), None),
    "fma": ("fma", {"rnd": "rn"}, 3, lambda a, b, c: Fraction(a) * Fraction(b) + Fraction(c),
            lambda a, b, c: max(abs(a * b), abs(c))),
    "sqrt": ("fsqrt", {"rnd": "rn"}, 1, lambda a: mpmath.sqrt(mpmath.mpf(a)), None),
    "rcp": ("fdiv", {"rnd": "rn"}, 1, lambda a: 1 / Fraction(a), None),
    "rsqrt": ("fapprox", {"fn": "rsqrt"}, 1, lambda a: 1 / mpmath.sqrt(mpmath.mpf(a)), None),
    "load": ("fmul", {"rnd": "rn"}, 2, lambda a, b: Fraction(a) * Fraction(b), None),  # x * 1: to a pair and back
}


def operands(name: str, rng: np.random.Generator, n: int = N) -> list[np.ndarray]:
    ranges = {"add": (-1000, 1000), "sub": (-1000, 1000), "mul": (-500, 500), "div": (-500, 500),
              "fma": (-300, 300), "sqrt": (-1074, 1023), "rcp": (-1000, 1000), "rsqrt": (-1074, 1023),
              "load": (-1022, 1023)}
    lo, hi = ranges[name]
    n_args = OPS[name][2]
    args = [random_f64(rng, n, lo, hi, positive=name in ("sqrt", "rsqrt")) for _ in range(n_args)]
    h = n // 2
    if name in ("add", "sub"):  # half the pairs within a few binades of each other (real cancellation)
        args[1][:h] = args[0][:h] * np.ldexp(1.0, rng.integers(-8, 9, h)) * rng.uniform(0.5, 2, h)
    if name == "fma":  # and a sum of comparable size
        args[2][:h] = args[0][:h] * args[1][:h] * rng.uniform(-2, 2, h)
    if name == "load":
        args[1][:] = 1.0
    if name == "rcp":
        return [np.ones(n)] + args  # rcp as 1.0 / a through fdiv
    return args


def ulp(x: float) -> float:
    return math.ldexp(1.0, max(math.frexp(x)[1] - 53, -1074)) if x else math.ldexp(1.0, -1074)


def errors(name: str, args: list[np.ndarray], got: np.ndarray) -> np.ndarray:
    """Error of each result in binary64 ulps of the op's scale."""
    _op, _attrs, _n, exact, scale = OPS[name]
    ops = args[1:] if name == "rcp" else args
    out = np.empty(len(got))
    mpmath.mp.prec = 200
    for i in range(len(got)):
        xs = [float(a[i]) for a in ops]
        want = exact(*xs)
        s = abs(float(scale(*xs))) if scale else abs(float(want))
        if not math.isfinite(float(got[i])):
            out[i] = math.inf
            continue
        diff = abs(Fraction(float(got[i])) - (want if isinstance(want, Fraction) else Fraction(str(want))))
        out[i] = float(diff / Fraction(ulp(s)))
    return out


def measure(name: str, launch=None, seed: int = 20261124, n: int = N, **kw) -> np.ndarray:
    from cumetal.backends.cpu import launch as cpu_launch

    rng = np.random.default_rng(seed + len(name))
    op, attrs, n_args, _e, _s = OPS[name]
    args = operands(name, rng, n)
    module = kernel(op, "f64", ("f64",) * len(args), attrs)
    if launch is None:
        got = run(cpu_launch, emulated(module), args, 8)
    else:
        got = run(launch, module, args, 8, **kw)
    return errors(name, args, got.view(np.float64))


def main(argv: list[str]) -> int:
    import os

    backends = argv or ["reference"]
    for backend in backends:
        launch, kw = None, {}
        if backend == "air-sim":
            from cumetal.backends.air.sim import launch_air as launch
            os.environ["CUMETAL_FP64"] = "emulate"
        elif backend == "msl-sim":
            from cumetal.backends.msl.sim.device_launch import launch
            kw = {"fp64": "emulate"}
        print(f"{backend}: op, samples, exact, median, p99, max (ulps of the scale), max relative error")
        for name in OPS:
            e = measure(name, launch, **kw)
            rel = np.max(e) * 2.0 ** -52
            print(f"| {name} | {len(e)} | {100 * np.mean(e == 0):.1f}% | {np.median(e):.1f} | "
                  f"{np.percentile(e, 99):.1f} | {np.max(e):.1f} | 2^{math.log2(rel) if rel else -math.inf:.1f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
