"""C-side call overhead of libcumetal vs PoCL's OpenCL C API (a benchmark, not a test).

Builds ``benchmarks/capi_overhead/cumetal_overhead.cu`` with ``build_program`` (what ``cumetalc -o``
does) and ``opencl_overhead.c`` with the system C compiler against ``libOpenCL``, runs both and prints
a table of microseconds per operation (median of ``--repeats`` runs):

* ``launch_sync``: an empty kernel launch + ``cudaDeviceSynchronize`` (``clEnqueueNDRangeKernel`` + ``clFinish``);
* ``memcpy_h2d`` / ``memcpy_d2h``: a synchronous 4 KiB copy (blocking ``clEnqueueWrite/ReadBuffer``);
* ``launch_enqueue``: the launch call alone (the kernels run afterwards, one synchronisation at the end);
* ``launch_batch``: those launches and the one synchronisation, per launch;
* ``trivial_call``: ``cudaGetLastError`` (``clGetPlatformIDs``): the bare cost of crossing the ABI;
* ``..._cpu``: the process's CPU time (all threads) per launch: on a loaded machine the wall time
  grows with it (PoCL's threads spin while they wait, so its CPU time is its wall time).

The programs run alternately, ``--rounds`` times each (medians), so that all see the same machine
load; the load average is printed with the table. CuMetal runs twice: as by default, where a repeated
launch from C is enqueued without entering Python (docs/c-abi.md, "Native launches"), and with
``CUMETAL_NATIVE_LAUNCH=0`` (every launch through Python). The warm-up launches compile the kernel
(or find it in the JIT cache); on the tiered ``cpu`` backend an empty cache leaves the small kernel on
the numpy engine for a while, and launches of a kernel not compiled yet go through Python.

Setup for the anchor (Debian): ``apt-get install pocl-opencl-icd ocl-icd-opencl-dev``. CuMetal runs on
``CUMETAL_BACKEND`` (default ``cpu``). Usage: ``python benchmarks/capi_overhead.py [--iters N] [--rounds R]``.
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
ROWS = [("launch_sync", "empty kernel launch + synchronize"), ("launch_sync_cpu", "... its CPU time (all threads)"),
        ("launch_enqueue", "empty kernel launch, enqueue only"),
        ("launch_batch", "launches + one synchronize, per launch"), ("launch_batch_cpu", "... its CPU time (all threads)"),
        ("memcpy_h2d", "4 KiB copy host→device"), ("memcpy_d2h", "4 KiB copy device→host"),
        ("trivial_call", "trivial call (cudaGetLastError / clGetPlatformIDs)")]


def _parse(out: str) -> dict[str, float]:
    return {k: float(v) for k, v in (line.split() for line in out.splitlines() if len(line.split()) == 2)}


def _run(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=600, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{cmd[0]} failed:\n{proc.stdout}{proc.stderr}")
    return _parse(proc.stdout)


def _loadavg() -> str:
    try:
        with open("/proc/loadavg") as fh:
            return " ".join(fh.read().split()[:3])
    except OSError:
        return f"{os.getloadavg()[0]:.2f}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--iters", type=int, default=200)
    ap.add_argument("--rounds", "--repeats", type=int, default=3, help="runs of each program (alternating)")
    args = ap.parse_args()
    from cumetal.capi.build import build_program

    env = dict(os.environ)
    env.setdefault("CUMETAL_BACKEND", "cpu")
    runs: dict[str, list[dict[str, float]]] = {}
    load_start = _loadavg()
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "cumetal_overhead"
        build_program([HERE / "cumetal_overhead.cu"], exe)
        backend = env["CUMETAL_BACKEND"]
        # the native launch path (capi/csrc/cm_native_launch.c) on, as by default, and off
        programs = {f"CuMetal (libcumetal, {backend})": ([str(exe), str(args.iters)], env),
                    "CuMetal, CUMETAL_NATIVE_LAUNCH=0": ([str(exe), str(args.iters)],
                                                         dict(env, CUMETAL_NATIVE_LAUNCH="0"))}
        cc = shutil.which("cc") or shutil.which("gcc")
        ocl = Path(tmp) / "opencl_overhead"
        built = cc and subprocess.run([cc, "-O2", "-o", str(ocl), str(HERE / "opencl_overhead.c"), "-lOpenCL"],
                                      capture_output=True, check=False).returncode == 0
        if built:
            programs["PoCL (OpenCL C API, CPU)"] = ([str(ocl), str(args.iters)], env)
        else:
            print("(PoCL anchor not built: apt-get install pocl-opencl-icd ocl-icd-opencl-dev)", file=sys.stderr)
        for _ in range(args.rounds):
            for name, (cmd, program_env) in programs.items():
                runs.setdefault(name, []).append(_run(cmd, program_env))
    results = {name: {k: statistics.median(r.get(k, float("nan")) for r in rs) for k in rs[0]} for name, rs in runs.items()}
    names = list(results)
    print(f"/proc/loadavg {load_start} at the start, {_loadavg()} at the end; {args.iters} iterations, "
          f"median of {args.rounds} alternating runs")
    print("| operation (µs per call) | " + " | ".join(names) + " |")
    print("|---|" + "---:|" * len(names))
    for key, label in ROWS:
        print(f"| {label} | " + " | ".join(f"{results[n].get(key, float('nan')):.1f}" for n in names) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
