"""``CUMETAL_BACKEND=cpu-jit``: the compiled CPU backend.

Kernels run as native code: the shared LLVM lowering of the kernel IR (the AIR module the Metal
path ships, with the air.* intrinsics implemented by a C runtime instead of an Apple GPU),
JIT-compiled by LLVM (cached in memory and on disk) and run on every core: threadgroups are
spread over ``CUMETAL_CPU_THREADS`` worker threads (default: the cores this process may use) with
the GIL released. Memory, modules, streams and events are the CPU device's; asynchronous streams
run launches on their worker thread while Python goes on.

A kernel the compiled path refuses (an operation with no lowering yet), a kernel of more than
``CUMETAL_JIT_MAX_INSTS`` IR instructions (default 8000: compile time) and a cluster or
cooperative launch (blocks that must run together) run on the numpy engine instead,
with the same semantics; ``fallbacks`` counts such launches and ``CUMETAL_DEBUG=1`` names the
refused kernels on stderr. An illegal or misaligned address found by the compiled code is reported
as the numpy engine reports it (kernel, block, thread, PTX instruction, address): the launch is
rerun there to name the instruction. See docs/cpu-backend.md.
"""

from __future__ import annotations

import dataclasses
import os
import sys

from cumetal.devices.cpu_device import CpuDevice

DEFAULT_MAX_INSTS = 8000  # LLVM's O3 + code generation time grows faster than linearly past this


def max_insts() -> int:
    """``CUMETAL_JIT_MAX_INSTS``: kernels with more IR instructions (over every function they may
    call) run on the numpy engine instead of being compiled; 0 = no limit. Default 8000: on this
    project's 2-core machine a kernel of 11,650 instructions (a wgmma n64 sweep case) took 25-60 s
    to compile and one of 22,146 more than 10 minutes, while the numpy engine runs them at once."""
    raw = os.environ.get("CUMETAL_JIT_MAX_INSTS", "").strip()
    if raw:
        try:
            n = int(raw)
            if n >= 0:
                return n
        except ValueError:
            pass
        print(f"cumetal: CUMETAL_JIT_MAX_INSTS={raw!r} is not a count; using {DEFAULT_MAX_INSTS}",
              file=sys.stderr, flush=True)
    return DEFAULT_MAX_INSTS


_sizes: dict[tuple[int, int], tuple] = {}


def kernel_size(kernel, module) -> int:
    """IR instructions of ``kernel`` and every function it may call (cached per kernel object)."""
    key = (id(kernel), id(module))
    hit = _sizes.get(key)
    if hit is not None and hit[0] is kernel and hit[1] is module:
        return hit[2]
    from cumetal.ir.analysis import reachable_functions

    n = sum(len(b.insts) for f in reachable_functions(kernel, module) for b in f.blocks)
    if len(_sizes) > 4096:
        _sizes.clear()
    _sizes[key] = (kernel, module, n)
    return n


def worker_count() -> int:
    """``CUMETAL_CPU_THREADS`` (a positive integer), else the cores this process may run on."""
    raw = os.environ.get("CUMETAL_CPU_THREADS", "").strip()
    if raw:
        try:
            n = int(raw)
            if n >= 1:
                return n
        except ValueError:
            pass
        print(f"cumetal: CUMETAL_CPU_THREADS={raw!r} is not a positive integer; using all cores",
              file=sys.stderr, flush=True)
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class CpuJitDevice(CpuDevice):
    engine_name = "compiled CPU backend (cpu-jit)"

    def __init__(self) -> None:
        super().__init__()
        self.info = dataclasses.replace(self.info, name=self.info.name.replace("CPU", "CPU-JIT"))
        self.workers = worker_count()
        self.launches = 0  # kernels run as compiled code
        self.fallbacks = 0  # kernels the compiled path refused, run by the numpy engine

    def _launcher(self):
        from cumetal.backends.air.sim import compile_or_refusal, launch_air
        from cumetal.backends.air.sim.heap import with_device_heap
        from cumetal.backends.cpu import launch as numpy_launch

        def launch(kernel, module, *args, **kwargs):
            if kwargs.get("cluster") or kwargs.get("cooperative") or getattr(kernel, "cluster_dims", None) is not None:
                # clusters and cooperative grids need their blocks co-scheduled: the numpy engine's
                self.fallbacks += 1
                return numpy_launch(kernel, module, *args, **kwargs)
            kwargs.pop("cluster", None)
            kwargs.pop("cooperative", None)
            limit = max_insts()
            size = kernel_size(kernel, module)
            if limit and size > limit:
                compiled = (f"{size} IR instructions exceed CUMETAL_JIT_MAX_INSTS={limit} (compile time; "
                            f"0 = no limit)")
            else:
                compiled = compile_or_refusal(kernel, module)  # cached per kernel object after the first
            if isinstance(compiled, str):
                self.fallbacks += 1
                if os.environ.get("CUMETAL_DEBUG"):
                    print(f"cumetal: cpu-jit runs kernel {kernel.name} on the numpy engine: {compiled}",
                          file=sys.stderr, flush=True)
                return numpy_launch(kernel, module, *args, **kwargs)
            self.launches += 1
            out = launch_air(kernel, module, *args, workers=self.workers, compiled=compiled, **kwargs)
            if out.fault is not None and out.fault.code in ("illegal_address", "misaligned_address"):
                # the compiled code knows the address, not the PTX instruction, block and thread:
                # the numpy engine reruns the launch for the report (memory after a faulted launch
                # is undefined, as on CUDA); its report is used when it finds the same fault
                ref = numpy_launch(kernel, module, *args, **kwargs)
                if ref.fault is not None and ref.fault.code == out.fault.code:
                    return type(out)(ref.fault, out.printf)
            return out

        # device-side malloc/free: the Apple targets' allocator (backends/apple/heap.ptx) is linked in
        # before either engine runs the kernel, so compiled and numpy launches share one heap
        return with_device_heap(launch)

    def supports_grouped_launch(self) -> bool:
        """Cluster and cooperative launches run on the numpy engine (see ``_launcher``)."""
        return True
