"""Error of the fp64 emulation on the PTX sweep, per case, against NVIDIA's goldens.

Run a backend under ``CUMETAL_FP64=emulate`` and measure each f64 output element's distance from
the H100's bits in binary64 ulps (both NaN: 0; NaN on one side only, or a different infinity: a
class mismatch)::

    CUMETAL_BACKEND=air-sim CUMETAL_FP64=emulate python -m tests.fp64.sweep_errors [families]
    python -m tests.fp64.sweep_errors --reference [families]     (legalized IR on the cpu engine)

Prints one line per case (elements, exact, max ulp, class mismatches) and a summary per PTX op.
The figures in docs/fp64-policy.md come from this script.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict

import numpy as np
from tests.ptx_sweep.cases import all_cases
from tests.ptx_sweep.compare import as_bits, is_nan, ordered
from tests.ptx_sweep.golden import GoldenStore
from tests.ptx_sweep.harness import run_case


def ulp_errors(expected: np.ndarray, got: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ulp distance per element, class mismatch per element) of two binary64 bit arrays."""
    e, g = as_bits(expected).astype(np.uint64), as_bits(got).astype(np.uint64)
    en, gn = is_nan(e, "f64"), is_nan(g, "f64")
    oe, og = ordered(e, "f64").astype(np.int64), ordered(g, "f64").astype(np.int64)
    with np.errstate(over="ignore"):
        d = np.abs(oe - og).astype(np.float64)
    inf = np.uint64(0x7FF0000000000000)
    ei, gi = (e & np.uint64(0x7FFFFFFFFFFFFFFF)) == inf, (g & np.uint64(0x7FFFFFFFFFFFFFFF)) == inf
    mismatch = (en != gn) | ((ei | gi) & ~en & ~gn & (e != g))
    d[en & gn] = 0.0
    d[mismatch] = 0.0
    return d, mismatch


def _operand_scale(case) -> np.ndarray | None:
    """add/sub: max(|a|, |b|); fma/mad: max(|a*b|, |c|) (float-float sums are accurate relative to
    their operands, not to a cancelled result); other ops: None (the result itself is the scale)."""
    op = op_of(case.name)
    ins = [b for b in case.buffers if b.init is not None and b.fmt == "f64"]
    if op not in ("add", "sub", "fma", "mad") or not ins:
        return None
    v = [np.abs(b.init.view(np.float64)) for b in ins]
    with np.errstate(all="ignore"):
        return np.maximum(v[0], v[1]) if op in ("add", "sub") else np.maximum(v[0] * v[1], v[2])


def _scaled_error(expected: np.ndarray, got: np.ndarray, scale: np.ndarray, mismatch: np.ndarray) -> float:
    e, g = expected.view(np.float64), got.view(np.float64)
    with np.errstate(all="ignore"):
        ok = np.isfinite(e) & np.isfinite(g) & np.isfinite(scale) & ~mismatch
        ulp = np.ldexp(1.0, np.maximum(np.frexp(scale)[1] - 53, -1074))
        err = np.abs(g - e)[ok] / ulp[ok]
    return float(err.max()) if err.size else 0.0


def op_of(case_name: str) -> str:
    return case_name.split("_")[0]


def measure(families: list[str], driver) -> dict[str, dict]:
    store = GoldenStore()
    per_case: dict[str, dict] = {}
    for case in all_cases():
        if case.family not in families:
            continue
        f64_outs = [b for b in case.outputs if b.fmt == "f64"]
        if not f64_outs:
            continue
        try:
            got = run_case(driver, case)
        except Exception as exc:  # noqa: BLE001 - report every case
            per_case[case.name] = {"error": f"{type(exc).__name__}: {str(exc)[:200]}"}
            continue
        gold = store.get(case)
        n = exact = mism = 0
        worst = scaled = 0.0
        scale = _operand_scale(case)
        for buf in f64_outs:
            e, g = as_bits(gold[buf.name]), as_bits(got[buf.name])
            d, mm = ulp_errors(e, g)
            n += e.size
            exact += int(np.count_nonzero(e == g))
            mism += int(np.count_nonzero(mm))
            worst = max(worst, float(d.max()) if d.size else 0.0)
            if scale is not None and len(f64_outs) == 1:
                scaled = max(scaled, _scaled_error(e, g, scale, mm))
        per_case[case.name] = {"n": n, "exact": exact, "max_ulp": worst, "class_mismatch": mism,
                               "max_scaled": scaled if scale is not None else worst}
    return per_case


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("families", nargs="*", default=["float64"])
    ap.add_argument("--reference", action="store_true", help="legalize for AIR (emulate) and run on the cpu engine")
    args = ap.parse_args(argv)
    if args.reference:
        _route_cpu_through_emulation()
    import cumetal.driver as driver

    res = measure(args.families, driver)
    by_op: dict[str, list] = defaultdict(list)
    for name, r in res.items():
        if "error" in r:
            print(f"{name:32s} ERROR {r['error']}")
            continue
        print(f"{name:32s} n={r['n']:5d} exact={r['exact']:5d} max_ulp={r['max_ulp']:>10.0f} "
              f"max_scaled={r['max_scaled']:>8.0f} class_mismatch={r['class_mismatch']}")
        by_op[op_of(name)].append(r)
    print("\nper op: cases, elements, exact %, max ulp of the result, max ulp of the scale, class mismatches")
    for op, rs in sorted(by_op.items()):
        n = sum(r["n"] for r in rs)
        print(f"| {op} | {len(rs)} | {n} | {100.0 * sum(r['exact'] for r in rs) / max(n, 1):.1f}% | "
              f"{max(r['max_ulp'] for r in rs):.0f} | {max(r['max_scaled'] for r in rs):.0f} | "
              f"{sum(r['class_mismatch'] for r in rs)} |")
    return 0


def _route_cpu_through_emulation() -> None:
    import cumetal.backends.cpu
    from cumetal.backends.air.capabilities import CAPABILITIES
    from cumetal.passes.legalize import legalize, with_fp64

    caps = with_fp64(CAPABILITIES, "emulate")
    plain = cumetal.backends.cpu.launch

    def launch(kernel, module, *a, **kw):
        legal = legalize(module, caps)
        return plain(legal.kernels[kernel.name], legal, *a, **kw)
    cumetal.backends.cpu.launch = launch
    os.environ["CUMETAL_BACKEND"] = "cpu"
    os.environ["CUMETAL_CPU_ENGINE"] = "numpy"  # the patched launch is the numpy engine's


if __name__ == "__main__":
    sys.exit(main())
