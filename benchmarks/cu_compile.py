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


def median_time(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=9, help="runs per row (median)")
    args = ap.parse_args()
    n = args.n
    source = SAMPLE.read_text()
    opts = CudaOptions()
    rows: list[tuple[str, float]] = []
    with tempfile.TemporaryDirectory() as tmp:
        t = Path(tmp)
        env_cold = {**os.environ, "CUMETAL_CUDACXX_CACHE": "0"}
        env_warm = {**os.environ, "CUMETAL_CUDACXX_CACHE_DIR": str(t / "cache")}
        compile_to_ptx(source, str(SAMPLE), opts, use_cache=False)  # builds libdevice if needed
        cmd = clang_command(opts, SAMPLE, t / "plain.ptx", bitcode=False, header_root=None, depfile=None)

        def plain() -> None:
            subprocess.run(cmd, check=True, capture_output=True)

        rows.append(("plain clang (same command line)", median_time(plain, n)))
        rows.append(("compile_to_ptx, cold (cache off)",
                     median_time(lambda: compile_to_ptx(source, str(SAMPLE), opts, use_cache=False), n)))
        cli = [sys.executable, "-m", "cumetal.tools.cumetalc", str(SAMPLE), "-ptx", "-o", str(t / "cli.ptx")]
        rows.append(("cumetalc -ptx, cold (new process, cache off)",
                     median_time(lambda: subprocess.run(cli, check=True, env=env_cold, capture_output=True), n)))
        os.environ["CUMETAL_CUDACXX_CACHE_DIR"] = str(t / "cache")
        compile_to_ptx(source, str(SAMPLE), opts)
        rows.append(("compile_to_ptx, cache hit", median_time(lambda: compile_to_ptx(source, str(SAMPLE), opts), n)))
        subprocess.run(cli, check=True, env=env_warm, capture_output=True)
        rows.append(("cumetalc -ptx, cache hit (new process)",
                     median_time(lambda: subprocess.run(cli, check=True, env=env_warm, capture_output=True), n)))
        nvcc = shutil.which("nvcc")
        if nvcc:
            nv = [nvcc, "-ptx", "-arch=sm_80", str(SAMPLE), "-o", str(t / "nv.ptx")]
            rows.append(("nvcc -ptx -arch=sm_80", median_time(lambda: subprocess.run(nv, check=True, capture_output=True), n)))
        py_start = median_time(lambda: subprocess.run([sys.executable, "-c", "pass"], check=True), n)
    anchor = rows[0][1]
    lines = SAMPLE.read_text().count("\n")
    print(f"{SAMPLE.name}: {lines} lines; {find_clang().version}; median of {n}; "
          f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores; python start-up {py_start * 1000:.0f} ms")
    print()
    print("| what | time | vs plain clang |")
    print("|---|---:|---:|")
    for name, secs in rows:
        shown = f"{secs * 1000:.2f} ms" if secs < 0.01 else f"{secs * 1000:.0f} ms"
        print(f"| {name} | {shown} | {secs / anchor:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
