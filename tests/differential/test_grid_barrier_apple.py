"""grid_group::sync() on the Apple targets (passes/legalize/rules/grid_barrier.py): a grid of one
threadgroup passes the barrier (what a cooperative launch can hold there: driver/launch_groups.py),
a plain launch of several blocks traps at the barrier with illegal_instruction and never runs past
it, as the cpu engine (the reference) and CUDA do; air-sim and msl-sim agree with the cpu engine."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.backends.msl.sim.device_launch import launch as msl_launch
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

CUDA = r"""
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// before the barrier each thread writes its slot; after it, each reads its mirror's slot
extern "C" __global__ void grid_mirror(int *out) {
    unsigned n = gridDim.x * blockDim.x, t = blockIdx.x * blockDim.x + threadIdx.x;
    out[t] = 100 + (int)t;
    cg::this_grid().sync();
    out[n + t] = out[n - 1 - t] + 1000;
}
"""


@pytest.fixture(scope="module")
def module():
    return compile_ptx(compile_to_ptx(CUDA, "grid.cu", CudaOptions()).ptx, "grid.cu")


def _run(launcher, module, blocks: int, threads: int, **kw):
    mem = DeviceMemory(1 << 22)
    n = 2 * blocks * threads
    out = mem.alloc(4 * n)
    mem.write(out, bytes(4 * n))
    res = launcher(module.kernels["grid_mirror"], module, mem, (blocks, 1, 1), (threads, 1, 1), 0,
                   struct.pack("<Q", out), {}, watchdog_s=30.0, **kw)
    return res, np.frombuffer(mem.read(out, 4 * n), np.int32).copy()


@pytest.mark.parametrize("launcher", [launch_air, msl_launch], ids=["air-sim", "msl-sim"])
def test_one_threadgroup_passes_the_grid_barrier(module, launcher):
    res, got = _run(launcher, module, 1, 64)
    ref_res, ref = _run(numpy_launch, module, 1, 64, cooperative=True)
    assert res.fault is None and ref_res.fault is None, (res.fault, ref_res.fault)
    assert got[64:].tolist() == [100 + 63 - t + 1000 for t in range(64)]  # every write before the barrier seen
    assert np.array_equal(got, ref)


@pytest.mark.parametrize("launcher", [launch_air, msl_launch], ids=["air-sim", "msl-sim"])
def test_several_blocks_outside_a_cooperative_launch_trap_at_the_barrier(module, launcher):
    res, got = _run(launcher, module, 2, 32)
    ref_res, ref = _run(numpy_launch, module, 2, 32)
    assert ref_res.fault is not None and ref_res.fault.code == "illegal_instruction"
    assert res.fault is not None and res.fault.code == "illegal_instruction", res.fault
    assert not got[64:].any() and not ref[64:].any()  # nothing after the barrier ran
    # which other threads ran up to the barrier before the trap ended the launch is unspecified (the
    # cpu engine runs them all to it, msl-sim stops at the first trap); the first thread did
    assert ref[:64].tolist() == [100 + t for t in range(64)] and got[0] == 100
    assert all(v in (0, 100 + t) for t, v in enumerate(got[:64].tolist()))
