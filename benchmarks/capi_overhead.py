"""C-side call overhead of libcumetal vs PoCL's OpenCL C API (a benchmark, not a test).

Builds ``benchmarks/capi_overhead/cumetal_overhead.cu`` with ``build_program`` (what ``cumetalc -o``
does) and ``opencl_overhead.c`` with the system C compiler against ``libOpenCL``, runs both and prints
a table of microseconds per operation (median of ``--repeats`` runs):

* ``launch_sync``: an empty kernel launch + ``cudaDeviceSynchronize`` (``clEnqueueNDRangeKernel`` + ``clFinish``);
* ``memcpy_h2d`` / ``memcpy_d2h``: a synchronous 4 KiB copy (blocking ``clEnqueueWrite/ReadBuffer``);
* ``launch_enqueue``: the launch call alone (the kernels run afterwards, one synchronisation at the end);
* ``trivial_call``: ``cudaGetLastError`` (``clGetPlatformIDs``): the bare cost of crossing the ABI.

Setup for the anchor (Debian): ``apt-get install pocl-opencl-icd ocl-icd-opencl-dev``. CuMetal runs on
``CUMETAL_BACKEND`` (default ``cpu``). Usage: ``python benchmarks/capi_overhead.py [--iters N] [--repeats R]``.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent / "capi_overhead"
ROWS = [("launch_sync", "empty kernel launch + synchronize"), ("launch_enqueue", "empty kernel launch, enqueue only"), ("memcpy_h2d", "4 KiB copy host→device"),
        ("memcpy_d2h", "4 KiB copy device→host"), ("trivial_call", "trivial call (cudaGetLastError / clGetPlatformIDs)")]


def _parse(out: str) -> dict[str, float]:
    return {k: float(v) for k, v in (line.split() for line in out.splitlines() if len(line.split()) == 2)}


def _median_runs(cmd: list[str], env: dict[str, str], repeats: int) -> dict[str, float]:
    runs = []
    for _ in range(repeats):
        proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
        if proc.returncode != 0:
            raise SystemExit(f"{cmd[0]} failed:\n{proc.stdout}{proc.stderr}")
        runs.append(_parse(proc.stdout))
    return {k: statistics.median(r[k] for r in runs) for k in runs[0]}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args()
    from cumetal.capi.build import build_program

    env = dict(os.environ)
    env.setdefault("CUMETAL_BACKEND", "cpu")
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "cumetal_overhead"
        build_program([HERE / "cumetal_overhead.cu"], exe)
        results["CuMetal (libcumetal, " + env["CUMETAL_BACKEND"] + ")"] = _median_runs(
            [str(exe), str(args.iters)], env, args.repeats)
        cc = shutil.which("cc") or shutil.which("gcc")
        ocl = Path(tmp) / "opencl_overhead"
        built = cc and subprocess.run([cc, "-O2", "-o", str(ocl), str(HERE / "opencl_overhead.c"), "-lOpenCL"],
                                      capture_output=True, check=False).returncode == 0
        if built:
            results["PoCL (OpenCL C API, CPU)"] = _median_runs([str(ocl), str(args.iters)], env, args.repeats)
        else:
            print("(PoCL anchor not built: apt-get install pocl-opencl-icd ocl-icd-opencl-dev)", file=sys.stderr)
    names = list(results)
    print("| operation (µs per call, median of runs) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for key, label in ROWS:
        print(f"| {label} | " + " | ".join(f"{results[n][key]:.1f}" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
