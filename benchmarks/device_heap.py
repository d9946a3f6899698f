"""Device heap speed per engine (not a test): tests/device_heap/kernels/heap_kernels.cu's
``per_thread`` kernel (each thread mallocs n ints, writes and reads them, frees them) over a grid,
on the cpu engine's own heap and on the engines that run the Apple targets' allocator
(backends/apple/heap.ptx): cpu-jit, air-sim, msl-sim. Anchor: the same kernel body without the heap
is not available, so the cpu engine's heap is the reference column.

    python benchmarks/device_heap.py [--threads 4096] [--ints 24] [--repeat 3]
"""

from __future__ import annotations

import argparse
import pathlib
import struct
import time

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCE = ROOT / "tests/device_heap/kernels/heap_kernels.cu"


def _device(engine: str):
    from cumetal.devices.air_sim_device import AirSimDevice
    from cumetal.devices.cpu_device import CpuDevice
    from cumetal.devices.cpu_jit_device import CpuJitDevice
    from cumetal.devices.msl_sim_device import MslSimDevice

    return {"cpu": CpuDevice, "cpu-jit": CpuJitDevice, "air-sim": AirSimDevice, "msl-sim": MslSimDevice}[engine]()


def measure(engine: str, ptx: str, threads: int, ints: int, repeat: int) -> tuple[float, float]:
    """(first launch incl. compile and heap creation, best of ``repeat`` later launches), seconds."""
    from cumetal.passes import compile_ptx

    dev = _device(engine)
    image = dev.load_module(compile_ptx(ptx, SOURCE.name))
    stream = dev.create_stream()
    out = dev.allocate(4 * threads)
    block = 256
    grid = (threads + block - 1) // block
    params = struct.pack("<Qi", out, ints)

    def once() -> float:
        t0 = time.perf_counter()
        assert dev.enqueue_launch(stream, image, "per_thread", (grid, 1, 1), (block, 1, 1), 0, params) is None
        assert not dev.synchronize(stream)
        return time.perf_counter() - t0

    first = once()
    return first, min(once() for _ in range(repeat))


def main() -> None:
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.options import CudaOptions

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--threads", type=int, default=4096)
    ap.add_argument("--ints", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--engines", default="cpu,cpu-jit,air-sim,msl-sim")
    args = ap.parse_args()
    ptx = compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx
    print(f"per_thread: {args.threads} threads, malloc/free of {4 * args.ints} bytes each")
    print(f"{'engine':10} {'first launch':>14} {'later launch':>14} {'malloc+free/s':>14}")
    for engine in args.engines.split(","):
        first, best = measure(engine, ptx, args.threads, args.ints, args.repeat)
        print(f"{engine:10} {first * 1e3:11.1f} ms {best * 1e3:11.1f} ms {args.threads / best:14,.0f}")


if __name__ == "__main__":
    main()
