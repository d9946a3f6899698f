"""Run-time compiler speed: cumetal.nvrtc and cumetal.nvvm, each beside an anchor.

    python benchmarks/runtime_compilers.py [-n 7]    # Markdown table (docs/python-compilers.md)

Rows (median of N runs, wall clock):
* NVRTC, cold: nvrtcCreateProgram + nvrtcCompileProgram with the compile cache off; anchor: the
  front end's compile_to_ptx on the same source and options, cache off (the clang run it wraps).
* NVRTC, cache hit: the same compile repeated.
* NVVM: nvvmCompileProgram on an NVVM IR module (parse, checks, libdevice link, worker round trip);
  anchor: the worker's own job (O3 + NVPTX emit of the already linked module) run in-process.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SAXPY = b"""
extern "C" __global__ void saxpy(float a, const float *x, const float *y, float *out, size_t n) {
  size_t tid = blockIdx.x * blockDim.x + threadIdx.x;
  if (tid < n) out[tid] = a * x[tid] + sinf(y[tid]);
}
"""
NVVM_INPUTS = {
    "saxpy, typed pointers": ROOT / "tests/nvvm/data/saxpy_typed.ll",
    "sinf/expf/exp via libdevice": ROOT / "tests/nvvm/data/math_libdevice.ll",
    "numba-cuda saxpy + math.sin": ROOT / "tests/nvvm/data/numba/saxpy_sin.ll",
}


def median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def nvrtc_compile(src: bytes) -> None:
    from cumetal import nvrtc

    err, prog = nvrtc.nvrtcCreateProgram(src, b"saxpy.cu", 0, None, None)
    err, = nvrtc.nvrtcCompileProgram(prog, 1, [b"--gpu-architecture=sm_80"])
    assert err == 0
    nvrtc.nvrtcDestroyProgram(prog)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=7)
    n = ap.parse_args().n
    from cumetal import nvvm
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.nvrtc.options import parse_nvrtc_options
    from cumetal.nvvmir import worker

    rows = []
    os.environ["CUMETAL_CUDACXX_CACHE"] = "0"
    cuda_opts = parse_nvrtc_options([b"--gpu-architecture=sm_80"]).cuda
    rows.append(("NVRTC saxpy, cold", median_ms(lambda: nvrtc_compile(SAXPY), n),
                 median_ms(lambda: compile_to_ptx(SAXPY.decode(), "saxpy.cu", cuda_opts), n)))
    os.environ["CUMETAL_CUDACXX_CACHE"] = "1"
    nvrtc_compile(SAXPY)
    rows.append(("NVRTC saxpy, cache hit", median_ms(lambda: nvrtc_compile(SAXPY), n), None))

    requests = []
    real_run = worker._WORKER.run
    worker._WORKER.run = lambda req: (requests.append(req), real_run(req))[1]
    for label, path in NVVM_INPUTS.items():
        data = path.read_bytes()

        def compile_once(data: bytes = data, name: str = path.name) -> None:
            prog = nvvm.create_program()
            nvvm.add_module_to_program(prog, data, len(data), name)
            nvvm.compile_program(prog, 1, ["-arch=compute_80"])
            nvvm.destroy_program(prog)

        compile_once()  # starts the worker, warms libdevice
        req = requests[-1]
        rows.append((f"NVVM {label}", median_ms(compile_once, n), median_ms(lambda r=req: worker._codegen_here(r), n)))
    worker._WORKER.run = real_run

    print("| compile | CuMetal (ms) | anchor (ms) |\n|---|---:|---:|")
    for label, ours, anchor in rows:
        print(f"| {label} | {ours:.1f} | {'' if anchor is None else f'{anchor:.1f}'} |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
