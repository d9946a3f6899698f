"""Measure what legalization does to the PTX corpus (figures for docs/legalization.md).

    python tests/legalize/measure_corpus.py [--caps air|msl] [--no-fold] [--limit N]

Compiles every ``tests/corpus/ptx/**/*.ptx`` (the files that compile), counts the IR instructions of
their kernels and device functions before and after ``legalize`` for the backend's capabilities
(by default followed by ``fold_legalized``, as the Apple backends run it), and times the pass.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def count(module) -> int:
    return sum(len(b.insts) for f in (*module.kernels.values(), *module.functions.values()) for b in f.blocks)


def main(argv: list[str] | None = None) -> int:
    from cumetal.passes import CompileError, compile_ptx
    from cumetal.passes.legalize import legalize

    ap = argparse.ArgumentParser()
    ap.add_argument("--caps", choices=("air", "msl"), default="air")
    ap.add_argument("--no-fold", action="store_true")
    ap.add_argument("--limit", type=int, default=0)
    args = ap.parse_args(argv)
    if args.caps == "air":
        from cumetal.backends.air.capabilities import CAPABILITIES as caps
    else:
        from cumetal.backends.msl.capabilities import CAPABILITIES as caps
    files = sorted((ROOT / "tests/corpus/ptx").rglob("*.ptx"))[: args.limit or None]
    before = after = n = 0
    t_leg = t_fold = 0.0
    for p in files:
        try:
            m = compile_ptx(p.read_text(errors="replace"), p.name)
        except (CompileError, RecursionError, ValueError) as e:
            print(f"skip {p.name}: {str(e).splitlines()[0][:100]}", file=sys.stderr)
            continue
        n += 1
        before += count(m)
        t0 = time.perf_counter()
        legal = legalize(m, caps)
        t1 = time.perf_counter()
        if not args.no_fold:
            from cumetal.passes.fold_constants import fold_legalized

            legal = fold_legalized(legal, m)
        t_leg += t1 - t0
        t_fold += time.perf_counter() - t1
        after += count(legal)
    print(f"{n} files: {before:,} IR instructions -> {after:,} after legalization"
          f"{'' if args.no_fold else ' and folding'} ({args.caps}); legalize {t_leg:.1f} s, fold {t_fold:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
