"""CUDA C++ -> PTX compile time: CuMetal's front end vs the same clang run by hand vs nvcc.

    python benchmarks/cu_compile.py [-n 9]     # prints a Markdown table (docs/benchmarks-cu-compile.md)

Rows (median of N runs each, wall clock):
* plain clang: the identical clang command line CuMetal builds (same binary, same flags, same
  headers, libdevice linked), run directly with subprocess: the anchor.
* compile_to_ptx, cold: the Python API with the cache off (temp copy, clang, -MD parsing).
* cumetalc -ptx, cold: the command line in a fresh process, cache off (adds interpreter start-up).
* compile_to_ptx, cache hit / cumetalc -ptx, cache hit: a repeated compile.
* nvcc -ptx -arch=sm_80 (when installed): NVIDIA's compiler on the same file.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from cumetal.cudacxx.compile import clang_command, compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.cudacxx.toolchain import find_clang

SAMPLE = Path(__file__).with_name("cu") / "sample_kernels.cu"


def interleaved_medians(cases: list[tuple[str, object]], n: int) -> list[tuple[str, float]]:
    """Run the cases in rounds (one run of each per round), so that load from other processes on a
    shared machine falls on every row alike; the median of each."""
    times: dict[str, list[float]] = {name: [] for name, _ in cases}
    for _ in range(n):
        for name, fn in cases:
            t = time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t)
    return [(name, statistics.median(times[name])) for name, _ in cases]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=9, help="runs per row (median)")
    args = ap.parse_args()
    n = args.n
    source = SAMPLE.read_text()
    opts = CudaOptions()
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        env_cold = {**os.environ, "CUMETAL_CUDACXX_CACHE": "0"}
        env_warm = {**os.environ, "CUMETAL_CUDACXX_CACHE_DIR": str(t / "cache")}
        os.environ["CUMETAL_CUDACXX_CACHE_DIR"] = str(t / "cache")
        compile_to_ptx(source, str(SAMPLE), opts)  # builds libdevice if needed, fills the cache
        cmd = clang_command(opts, SAMPLE, t / "plain.ptx", bitcode=False, header_root=None, depfile=None)
        cli = [sys.executable, "-m", "cumetal.tools.cumetalc", str(SAMPLE), "-ptx", "-o", str(t / "cli.ptx")]
        subprocess.run(cli, check=True, env=env_warm, capture_output=True)
        cases = [
            ("plain clang (same command line)", lambda: subprocess.run(cmd, check=True, capture_output=True)),
            ("compile_to_ptx, cold (cache off)",
             lambda: compile_to_ptx(source, str(SAMPLE), opts, use_cache=False)),
            ("cumetalc -ptx, cold (new process, cache off)",
             lambda: subprocess.run(cli, check=True, env=env_cold, capture_output=True)),
            ("compile_to_ptx, cache hit", lambda: compile_to_ptx(source, str(SAMPLE), opts)),
            ("cumetalc -ptx, cache hit (new process)",
             lambda: subprocess.run(cli, check=True, env=env_warm, capture_output=True)),
        ]
        nvcc = shutil.which("nvcc")
        if nvcc:
            nv = [nvcc, "-ptx", "-arch=sm_80", str(SAMPLE), "-o", str(t / "nv.ptx")]
            cases.append(("nvcc -ptx -arch=sm_80", lambda: subprocess.run(nv, check=True, capture_output=True)))
        cases.append(("(python -c pass: interpreter start-up)",
                      lambda: subprocess.run([sys.executable, "-c", "pass"], check=True)))
        rows = interleaved_medians(cases, n)
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    anchor = rows[0][1]
    lines = SAMPLE.read_text().count("\n")
    print(f"{SAMPLE.name}: {lines} lines; {find_clang().version}; median of {n}, interleaved; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, load average {load:.1f}")
    print()
    print("| what | time | vs plain clang |")
    print("|---|---:|---:|")
    for name, secs in rows:
        shown = f"{secs * 1000:.2f} ms" if secs < 0.01 else f"{secs * 1000:.0f} ms"
        print(f"| {name} | {shown} | {secs / anchor:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
