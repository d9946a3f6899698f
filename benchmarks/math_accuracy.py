"""Accuracy of CuMetal's device math library, through the real pipeline.

Every case of tests/math/math_cases.py is compiled from CUDA C++ with CuMetal's front end (the
libdevice bitcode linked in), run on the cpu device through cumetal.driver, and compared with
  * correctly rounded mpmath references: max error in ulps (and NVIDIA's own max error on the
    same inputs, from the goldens), checked against CUDA's documented bound;
  * NVIDIA H100 outputs (tests/math/golden): share of bit-identical results (NaN = NaN).

    python benchmarks/math_accuracy.py                 # all cases, mpmath on 1500 inputs each
    python benchmarks/math_accuracy.py --only sinf,expf --ref-samples 8192
    python benchmarks/math_accuracy.py --markdown docs/math-accuracy-table.md
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "math"))
sys.path.insert(0, str(ROOT / "scripts"))
import math_cases as mc  # noqa: E402
import refs  # noqa: E402
from make_math_goldens import SIZES, inputs_crc  # noqa: E402

GOLDEN = ROOT / "tests" / "math" / "golden"


def load_goldens() -> dict[str, dict]:
    out = {}
    for dt in ("f4", "f8"):
        p = GOLDEN / f"math_goldens_{dt}.npz"
        if p.exists():
            out[dt] = dict(np.load(p))
    return out


def same_bits(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    if a.dtype.kind == "f":
        ib = a.view(np.uint32 if a.itemsize == 4 else np.uint64)
        jb = b.view(ib.dtype)
        return (ib == jb) | (np.isnan(a) & np.isnan(b))
    return a == b


def special_mask(gold: list[np.ndarray], ours: list[np.ndarray]) -> np.ndarray:
    """Special-value results: NVIDIA's or ours is +-0, +-inf or NaN (a first float output)."""
    g, o = gold[0], ours[0]
    if g.dtype.kind != "f":
        return np.zeros(len(g), bool)
    return ~np.isfinite(g) | (g == 0) | ~np.isfinite(o) | (o == 0)


def bound_for(case: mc.Case, args: list) -> tuple[str, float] | None:
    """('ulp', n) or ('abs', e) for these arguments, or None where CUDA documents no bound."""
    x = float(args[-1]) if case.shape == "K_F_IF" else float(args[0])
    if case.skip_interval and case.skip_interval[0] < x < case.skip_interval[1]:
        return None
    if case.abs_beyond and abs(x) >= case.abs_beyond[0]:
        return ("abs", case.abs_beyond[1])
    if case.shape == "K_F_IF":  # jn/yn: CUDA gives an absolute bound (n=128) / an order-dependent one
        return ("abs", 2.2e-6 if case.dtype == "f4" else 5e-12) if case.name.startswith("jn") else None
    return ("ulp", case.ulp)


def evaluate(case: mc.Case, ins: list[np.ndarray], ours: list[np.ndarray], gold: list[np.ndarray] | None,
             ref_samples: int) -> dict:
    n = len(ins[0])
    row: dict = {"name": case.name, "dtype": case.dtype, "bound": case.ulp, "n": n}
    if gold is not None:
        ident = np.ones(n, bool)
        for a, b in zip(ours, gold, strict=True):
            ident &= same_bits(a, b)
        row["identical"] = float(ident.mean())
        sp = special_mask(gold, ours)
        row["specials"] = int(sp.sum())
        row["specials_ok"] = bool(ident[sp].all())
        row["specials_bad"] = [[float(a[i]) if a.dtype.kind == "f" else int(a[i]) for a in ins]
                               for i in np.nonzero(sp & ~ident)[0][:4]]
    if not case.ref or case.ref not in refs.REFS or case.ulp < 0 and case.ref in ("saturate",):
        return row
    finite = np.ones(n, bool)
    for a in ins:
        if a.dtype.kind == "f":
            finite &= np.isfinite(a)
    idx = np.nonzero(finite)[0]
    if len(idx) > ref_samples:
        idx = np.concatenate([idx[:64], np.random.default_rng(7).choice(idx[64:], ref_samples - 64, replace=False)])
    worst, worst_nv, worst_at, over = 0.0, 0.0, None, 0
    worst_abs = 0.0
    for i in idx:
        args = [a[i] for a in ins]
        exact = refs.reference(case.ref, args, case.dtype)
        if exact is None:
            continue
        b = bound_for(case, args)
        got = float(ours[0][i])
        if b is not None and b[0] == "abs":
            err = abs(got - float(exact)) if math.isfinite(got) else math.inf
            worst_abs = max(worst_abs, err)
            if err > b[1]:
                over += 1
            continue
        e = refs.ulp_error(got, exact, case.dtype)
        if e > worst:
            worst, worst_at = e, [float(v) for v in args]
        if gold is not None:
            worst_nv = max(worst_nv, refs.ulp_error(float(gold[0][i]), exact, case.dtype))
        if b is not None and case.ulp >= 0 and e > b[1] + 0.5:  # +0.5: the bound is on the rounded result
            over += 1
    row.update(max_ulp=worst, max_ulp_nvidia=worst_nv, worst_at=worst_at, over_bound=over, checked=len(idx),
               max_abs_beyond=worst_abs)
    return row


def run(cases: list[mc.Case], ref_samples: int, verbose: bool = True) -> list[dict]:
    import runner  # noqa: PLC0415

    gold = load_goldens()
    t0 = time.time()
    r = runner.Runner()
    mod = r.load(runner.compile_cases(cases))
    rows = []
    for c in cases:
        ins = mc.make_inputs(c, SIZES[c.dtype])
        g = None
        if c.dtype in gold and f"{c.name}:0" in gold[c.dtype] and \
                int(gold[c.dtype][f"{c.name}:inputs_crc"][0]) == inputs_crc(ins):
            g = [gold[c.dtype][f"{c.name}:{i}"] for i in range(len(c.outputs))]
        try:
            ours = r.run(mod, c, ins)
        except RuntimeError as exc:
            rows.append({"name": c.name, "dtype": c.dtype, "bound": c.ulp, "error": str(exc)})
            if verbose:
                print(f"{c.name:18s} NOT RUN: {exc}", flush=True)
            continue
        row = evaluate(c, ins, ours, g, ref_samples)
        rows.append(row)
        if verbose:
            print(f"{c.name:18s} bound {c.ulp:>4} ours {row.get('max_ulp', float('nan')):8.3f} "
                  f"nv {row.get('max_ulp_nvidia', float('nan')):8.3f} over {row.get('over_bound', '-')!s:>4} "
                  f"ident {100 * row.get('identical', float('nan')):6.2f}% specials "
                  f"{'ok' if row.get('specials_ok') else row.get('specials_bad')} "
                  f"{'worst@' + str(row.get('worst_at')) if row.get('max_ulp', 0) > max(c.ulp, 0) + 0.5 else ''}",
                  flush=True)
    r.close()
    if verbose:
        print(f"total {time.time() - t0:.1f}s")
    return rows


def markdown(rows: list[dict]) -> str:
    lines = ["| function | type | CUDA bound (ulp) | ours: max ulp | NVIDIA: max ulp | over bound | bit-identical to H100 | special values |",
             "|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| `{r['name']}` | {r['dtype']} | {r['bound']} | not run | | | | |")
            continue
        b = "n/a (intrinsic)" if r["bound"] < 0 else str(r["bound"])
        mu = f"{r['max_ulp']:.2f}" if "max_ulp" in r else "exact check"
        nv = f"{r['max_ulp_nvidia']:.2f}" if "max_ulp_nvidia" in r else ""
        ov = str(r.get("over_bound", ""))
        idn = f"{100 * r['identical']:.2f}%" if "identical" in r else ""
        sp = "match" if r.get("specials_ok") else f"differ: {r.get('specials_bad')}"
        lines.append(f"| `{r['name']}` | {r['dtype']} | {b} | {mu} | {nv} | {ov} | {idn} | {sp} |")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description="device math accuracy (ulp vs mpmath, bit-identity vs NVIDIA)")
    ap.add_argument("--only", default="")
    ap.add_argument("--ref-samples", type=int, default=1500)
    ap.add_argument("--markdown", type=Path)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    cases = mc.all_cases()
    if args.only:
        keep = set(args.only.split(","))
        cases = [c for c in cases if c.name in keep]
    rows = run(cases, args.ref_samples)
    if args.markdown:
        args.markdown.write_text(markdown(rows))
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
