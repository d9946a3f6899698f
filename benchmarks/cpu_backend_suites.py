"""Test-suite wall time on the CPU engines side by side: what the compiled backend costs CI.

    python benchmarks/cpu_backend_suites.py [--rounds N] [--suite tests/functional ...]

Runs each suite (default: the PTX sweep's int_arith, float32 and cvt families, and
tests/functional) under pytest in a fresh process per configuration:

* ``numpy``: ``CUMETAL_CPU_ENGINE=numpy`` (the numpy engine);
* ``jit tiered``: ``CUMETAL_CPU_ENGINE=jit`` (the compiled backend behind ``cpu``, tiering on);
* ``jit always``: ``CUMETAL_CPU_ENGINE=jit CUMETAL_JIT_TIER=off`` (every kernel compiled);

each with an empty JIT cache (a fresh CI machine), ``jit`` also with the cache the previous
``jit always`` run filled (a CI machine that keeps ``$CUMETAL_CACHE_DIR/air-sim/jit``). The other
caches (clang, libdevice, the C ABI library) are the user's warm ones, linked in, so that only the
JIT differs. Configurations alternate within a round (the machine is shared; each round's rows see
about the same load); a cell is the median over the rounds.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SWEEP_FAMILIES = "int_arith,float32,cvt"
SUITES = {"sweep int_arith+float32+cvt": (["tests/ptx_sweep/test_sweep.py"], {"CUMETAL_SWEEP_FAMILIES": SWEEP_FAMILIES}),
          "tests/functional": (["tests/functional"], {})}
CONFIGS = [("numpy", {"CUMETAL_CPU_ENGINE": "numpy"}, "fresh"),
           ("jit tiered, empty JIT cache", {"CUMETAL_CPU_ENGINE": "jit"}, "fresh"),
           ("jit always, empty JIT cache", {"CUMETAL_CPU_ENGINE": "jit", "CUMETAL_JIT_TIER": "off"}, "fresh"),
           ("jit always, warm JIT cache", {"CUMETAL_CPU_ENGINE": "jit", "CUMETAL_JIT_TIER": "off"}, "warm"),
           ("jit tiered, warm JIT cache", {"CUMETAL_CPU_ENGINE": "jit"}, "warm")]


def user_cache() -> Path:
    return Path(os.environ.get("CUMETAL_CACHE_DIR") or os.environ.get("CUMETAL_CACHE")
                or Path.home() / ".cache" / "cumetal")


def cache_with_empty_jit(base: Path) -> Path:
    """A cache directory linking the user's caches except the JIT's, which starts empty."""
    d = Path(tempfile.mkdtemp(prefix="cumetal-suites-"))
    src = user_cache()
    if src.is_dir():
        for entry in src.iterdir():
            if entry.name != "air-sim":
                (d / entry.name).symlink_to(entry)
    sim = d / "air-sim"
    (sim / "jit").mkdir(parents=True)
    for so in (src / "air-sim").glob("runtime-*.so") if (src / "air-sim").is_dir() else ():
        (sim / so.name).symlink_to(so)
    return d


def run_suite(args: list[str], env_extra: dict[str, str], cache: Path) -> tuple[float, str]:
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_CACHE_DIR=str(cache), **env_extra)
    env.pop("CUMETAL_CACHE", None)
    t0 = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=3600)
    wall = time.perf_counter() - t0
    tail = (proc.stdout.strip().splitlines() or ["(no output)"])[-1]
    return wall, tail


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--suite", action="append", help="a pytest path (default: the sweep families and tests/functional)")
    opts = ap.parse_args()
    suites = {s: ([s], {}) for s in opts.suite} if opts.suite else SUITES
    times: dict[tuple[str, str], list[float]] = {}
    tails: dict[tuple[str, str], str] = {}
    for r in range(opts.rounds):
        for suite, (paths, extra) in suites.items():
            warm: Path | None = None
            made: list[Path] = []
            for name, env, cache_kind in CONFIGS:
                if cache_kind == "fresh":
                    cache = cache_with_empty_jit(user_cache())
                    made.append(cache)
                    if name.startswith("jit always"):
                        warm = cache
                else:
                    assert warm is not None
                    cache = warm
                wall, tail = run_suite(paths, {**extra, **env}, cache)
                times.setdefault((suite, name), []).append(wall)
                tails[(suite, name)] = tail
                print(f"round {r + 1}  {suite:30s} {name:30s} {wall:7.1f} s   {tail}", flush=True)
            for d in made:
                shutil.rmtree(d, ignore_errors=True)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"\n{opts.rounds} round(s), load average now {load:.1f}, Python {sys.version.split()[0]}\n")
    names = [c[0] for c in CONFIGS]
    print("| suite | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for suite in suites:
        base = statistics.median(times[(suite, "numpy")])
        cells = []
        for n in names:
            t = statistics.median(times[(suite, n)])
            cells.append(f"{t:.1f} s" + ("" if n == "numpy" else f" ({t / base:.2f}×)"))
        print(f"| {suite} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
