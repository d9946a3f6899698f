"""Measure the float-float (--fp64=emulate) error distribution against IEEE f64 under msl-sim.

Usage: python tests/msl/measure_fp64_accuracy.py [samples]   (prints the table of docs/fp64-policy.md)
Errors are in units of the f64 ulp of the correctly rounded result (add/sub: of the larger operand,
because float-float addition is accurate relative to its operands, not to a cancelled result).
"""

from __future__ import annotations

import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from msl_testing import compile_module, launch  # noqa: E402
from test_fp64 import PTX, inputs  # noqa: E402


def ulps(got: np.ndarray, want: np.ndarray, scale: np.ndarray) -> np.ndarray:
    return np.abs(got - want) / np.spacing(np.abs(scale))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 20000
    prog = compile_module(PTX, fp64="emulate", name="measure.ptx")
    rng = np.random.default_rng(1)
    a, b, c = inputs(rng, n)

    def run(name, *args, dtype=np.float64):
        args = list(args) + [args[0]] * (3 - len(args))
        out = np.zeros(n, dtype)
        launch(prog, name, (n + 127) // 128, 128, *args, out, n)
        return out

    exact_fma = np.array([float(Fraction(x) * Fraction(y) + Fraction(z)) for x, y, z in zip(a, b, c, strict=True)])
    rows = {
        "add": ulps(run("d_add", a, b), a + b, np.maximum(np.abs(a), np.abs(b))),
        "sub": ulps(run("d_sub", a, b), a - b, np.maximum(np.abs(a), np.abs(b))),
        "mul": ulps(run("d_mul", a, b), a * b, a * b),
        "div": ulps(run("d_div", a, b), a / b, a / b),
        "sqrt": ulps(run("d_sqrt", np.abs(a)), np.sqrt(np.abs(a)), np.sqrt(np.abs(a))),
        "fma": ulps(run("d_fma", a, b, c), exact_fma, np.maximum(np.abs(a * b), np.abs(c))),
        "load/store": ulps(run("d_mov", a), a, a),
    }
    print("| op | samples | exact | median ulp | p99 ulp | max ulp | max rel. error |")
    print("|---|---|---|---|---|---|---|")
    for op, e in rows.items():
        rel = e.max() * 2.0**-52
        print(f"| {op} | {n} | {np.mean(e == 0):.1%} | {np.median(e):.0f} | {np.percentile(e, 99):.0f} | "
              f"{e.max():.0f} | 2^{np.log2(rel):.1f} |")


if __name__ == "__main__":
    main()
