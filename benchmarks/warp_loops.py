"""Warp shuffles inside loops on the compiled CPU backend (a benchmark, not a test).

A jacobiCudaGraphs-shaped kernel (66 blocks of 256 threads; per block 8 rows, each a strided dot
product then a ``__shfl_down_sync`` tree of 5 double shuffles per warp, lane 0 adding into shared
memory) runs through ``cumetal.driver`` on ``cpu-jit`` with one worker (``CUMETAL_CPU_THREADS=1``):

* ``exchanges``: the default, work-item mode with the shuffles as exchanges between regions
  (backends/air/sim/workitem.py ``_exchanges``);
* ``fibers``: ``CUMETAL_JIT_WORKITEMS=0``, the path such kernels took before (a stack per thread,
  switched at each warp operation);
* ``no shuffles`` (the anchor): the same kernel without the shuffle loop (lane partial sums added
  into shared memory by every lane instead), on the default path.

The cost of one warp shuffle is (with shuffles − anchor) / (warp shuffles per launch).

    python benchmarks/warp_loops.py [--rounds 3] [--out table.md]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cpu_backend import Driver, _loadavg  # noqa: E402  (this folder's helpers)

N, RPC, THREADS = 512, 8, 256
BLOCKS = N // RPC + 2
REPEAT = 5
SOURCE = r"""
#define N 512
#define RPC 8
extern "C" __global__ void jac(const float *A, const double *b, double *x, double *xn, double *sum) {
  __shared__ double xs[N];
  __shared__ double bs[RPC + 1];
  for (int i = threadIdx.x; i < N; i += blockDim.x) xs[i] = x[i];
  if (threadIdx.x < RPC) { int i = threadIdx.x + blockIdx.x * RPC; if (i < N) bs[i % (RPC + 1)] = b[i]; }
  __syncthreads();
  for (int k = 0, i = blockIdx.x * RPC; k < RPC && i < N; k++, i++) {
    double s = 0.0;
    for (int j = threadIdx.x; j < N; j += blockDim.x) s += A[i * N + j] * xs[j];
#ifdef SHUFFLES
    for (int o = 16; o > 0; o /= 2) s += __shfl_down_sync(0xffffffffu, s, o);
    if ((threadIdx.x & 31) == 0) atomicAdd(&bs[i % (RPC + 1)], -s);
#else
    atomicAdd(&bs[i % (RPC + 1)], -s);
#endif
  }
  __syncthreads();
  if (threadIdx.x < RPC) {
    int i = threadIdx.x + blockIdx.x * RPC;
    if (i < N) { double dx = bs[i % (RPC + 1)] / A[i * N + i]; xn[i] = xs[i] + dx; atomicAdd(sum, fabs(dx)); }
  }
}
"""
CONFIGS = {"exchanges": ({}, True), "fibers": ({"CUMETAL_JIT_WORKITEMS": "0"}, True), "anchor": ({}, False)}


def _ptx(shuffles: bool) -> str:
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.options import CudaOptions

    src = ("#define SHUFFLES\n" if shuffles else "") + SOURCE
    return compile_to_ptx(src, "warp_loops.cu", CudaOptions()).ptx


def child(shuffles: bool) -> dict:
    d = Driver()
    f = d.kernel(_ptx(shuffles), "jac")
    a = np.ones((N, N), np.float32)
    np.fill_diagonal(a, N + 1)
    b, x = np.full(N, 2.0 * N), np.zeros(N)
    pa, pb, px, pxn, ps = d.put(a), d.put(b), d.put(x), d.put(np.zeros(N)), d.put(np.zeros(1))
    args = ((pa, pb, px, pxn, ps), (None,) * 5)
    d.launch(f, (BLOCKS, 1, 1), (THREADS, 1, 1), *args)  # the JIT compile
    times, cpu = [], []
    for _ in range(REPEAT):
        t0, c0 = time.perf_counter(), time.process_time()
        d.launch(f, (BLOCKS, 1, 1), (THREADS, 1, 1), *args)
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    xn = d.get(pxn, np.zeros(N))
    return {"ms": 1e3 * statistics.median(times), "cpu_ms": 1e3 * statistics.median(cpu), "xn0": float(xn[0])}


def run_child(name: str) -> dict:
    extra, shuffles = CONFIGS[name]
    # one worker: the CPU time of a launch is then the work itself (with two, a worker that waits
    # for the other's last threadgroups adds its own share of noise on a shared machine)
    env = dict(os.environ, CUMETAL_BACKEND="cpu-jit", CUMETAL_QUIET="1", CUMETAL_CPU_THREADS="1", **extra)
    cmd = [sys.executable, __file__, "--child"] + (["--shuffles"] if shuffles else [])
    proc = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=1800, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"{name} child failed:\n{proc.stdout}{proc.stderr}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--shuffles", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.shuffles)))
        return 0
    start, started = _loadavg(), time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    runs = [{name: run_child(name) for name in CONFIGS} for _ in range(args.rounds)]
    med = {name: statistics.median(r[name]["ms"] for r in runs) for name in CONFIGS}
    cpu = {name: statistics.median(r[name]["cpu_ms"] for r in runs) for name in CONFIGS}
    shuffles = (N // RPC) * (THREADS // 32) * RPC * 5  # warp-wide double shuffles per launch (2 blocks have no row)
    lines = [f"Run {started}, /proc/loadavg {start} at the start, {_loadavg()} at the end; cpu-jit on one worker, median of "
             f"{REPEAT} launches, median of {args.rounds} rounds", "",
             "| jacobi-shaped kernel, 66×256 threads | per launch | per warp shuffle | CPU time per launch "
             "(all threads) | CPU time per warp shuffle |", "|---|---:|---:|---:|---:|"]
    for name, label in (("exchanges", "with shuffles, exchanges (default)"),
                        ("fibers", "with shuffles, fibers (`CUMETAL_JIT_WORKITEMS=0`)"),
                        ("anchor", "without shuffles (anchor)")):
        per = "-" if name == "anchor" else f"{1e3 * (med[name] - med['anchor']) / shuffles:.2f} µs"
        per_cpu = "-" if name == "anchor" else f"{1e3 * (cpu[name] - cpu['anchor']) / shuffles:.2f} µs"
        lines.append(f"| {label} | {med[name]:.1f} ms | {per} | {cpu[name]:.1f} ms | {per_cpu} |")
    report = "\n".join(lines)
    print(report)
    if args.out:
        Path(args.out).write_text(report + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
