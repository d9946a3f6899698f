"""The cpu-jit device's fast path for a compiled kernel's repeated launches (CpuJitDevice._run,
``sim.prepared_launch``; docs/cpu-backend.md, "Launch overhead"): the launch record prepared for a
kernel and shape runs with each launch's parameters, sees allocations made and freed after it,
reports faults as the general path does, and is not used where the general path decides something
per launch (a replaced launcher, printf, another shape)."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices.cpu_jit_device import CpuJitDevice
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void axpi(const float *x, float *y, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fmul_rn(a, x[i]) + (float)i;  // (no contraction: numpy rounds twice)
}
extern "C" __global__ void hello(int *out) {
  printf("hi %d\n", threadIdx.x);
  out[threadIdx.x] = threadIdx.x;
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "launch_plan.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "launch_plan.cu")


def _params(x: int, y: int, a: float, n: int) -> bytes:
    return struct.pack("<QQfi", x, y, a, n)


class Rig:
    def __init__(self, module) -> None:
        self.dev = CpuJitDevice(tiered=False)
        self.image = self.dev.load_module(module)
        self.stream = self.dev.create_stream()
        self.planned = 0
        run_planned = self.dev._run_planned

        def counting(*a, **k):
            self.planned += 1
            return run_planned(*a, **k)

        self.dev._run_planned = counting

    def put(self, a: np.ndarray) -> int:
        p = self.dev.allocate(a.nbytes)
        self.dev.memory.write(p, a.tobytes())
        return p

    def get(self, p: int, n: int) -> np.ndarray:
        return np.frombuffer(self.dev.memory.read(p, 4 * n), np.float32).copy()

    def axpi(self, x: int, y: int, a: float, n: int, grid=(4, 1, 1), block=(64, 1, 1)):
        return self.dev.enqueue_launch(self.stream, self.image, "axpi", grid, block, 0, _params(x, y, a, n))


def _want(x: np.ndarray, a: float, n: int) -> np.ndarray:
    return (np.float32(a) * x[:n] + np.arange(n, dtype=np.float32)).astype(np.float32)


def test_repeated_launches_take_the_plan_with_each_launchs_parameters(module):
    r = Rig(module)
    rng = np.random.default_rng(1)
    xs = [rng.standard_normal(256).astype(np.float32) for _ in range(3)]
    px = [r.put(x) for x in xs]
    py = [r.put(np.zeros(256, np.float32)) for _ in range(3)]
    for k in range(9):  # pointers, scale and n change per launch; grid and block do not
        i, a, n = k % 3, 0.5 * k - 1.0, 256 - 17 * k
        before = r.get(py[i], 256)
        assert r.axpi(px[i], py[i], a, n) is None
        got = r.get(py[i], 256)
        assert np.array_equal(got[:n], _want(xs[i], a, n)), k
        assert np.array_equal(got[n:], before[n:]), k  # (i < n): nothing past n written
    assert r.planned == 8  # every launch after the first
    assert r.dev.launches == 9 and r.dev.fallbacks == 0
    assert r.axpi(px[0], py[0], 2.0, 100, grid=(2, 1, 1)) is None  # another shape: the general path first
    assert r.planned == 8
    assert np.array_equal(r.get(py[0], 100), _want(xs[0], 2.0, 100))


def test_the_plan_sees_allocations_made_and_freed_after_it(module):
    r = Rig(module)
    x = np.arange(256, dtype=np.float32)
    px, py = r.put(x), r.put(np.zeros(256, np.float32))
    assert r.axpi(px, py, 1.0, 256) is None and r.axpi(px, py, 1.0, 256) is None and r.planned == 1
    pz = r.dev.allocate(4 * 256)  # the allocation table changed since the plan was made
    assert r.axpi(px, pz, 3.0, 256) is None and r.planned == 2
    assert np.array_equal(r.get(pz, 256), _want(x, 3.0, 256))
    r.dev.free(pz)
    fault = r.axpi(px, pz, 3.0, 256)  # a freed allocation: an illegal address, reported as before
    assert r.planned == 3
    assert fault is not None and fault.code == "illegal_address"
    general = Rig(module)  # the same launch on a device whose first launch it is (the general path)
    gx, gy = general.put(x), general.put(np.zeros(256, np.float32))
    gz = general.dev.allocate(4 * 256)
    general.dev.free(gz)
    ref = general.axpi(gx, gz, 3.0, 256)
    assert general.planned == 0 and ref is not None and ref.code == fault.code
    # the numpy engine's report (the launch is rerun there): kernel, block, thread and the address
    # the same report but for the address and where it lies against the other heap's allocations
    def _shape(message: str, addr: int) -> str:
        return re.sub(r": \d+ bytes (past the end|before the start) of the \d+-byte allocation at 0x[0-9a-f]+", "",
                      message.replace(hex(addr), "ADDR"))

    assert _shape(fault.message, pz) == _shape(ref.message, gz)
    assert re.search(r"bytes (past the end|before the start) of the", fault.message)
    assert hex(pz) in fault.message and "axpi" in fault.message
    assert r.axpi(px, py, -1.0, 256) is None  # and the plan goes on after the fault
    assert np.array_equal(r.get(py, 256), _want(x, -1.0, 256)) and gy


def test_a_replaced_launcher_is_used_instead_of_the_plan(module):
    r = Rig(module)
    x = np.ones(256, np.float32)
    px, py = r.put(x), r.put(np.zeros(256, np.float32))
    assert r.axpi(px, py, 1.0, 256) is None and r.axpi(px, py, 1.0, 256) is None and r.planned == 1
    seen = []
    real = CpuJitDevice._launcher(r.dev)

    def recording(*a, **k):
        seen.append(a[0].name)
        return real(*a, **k)

    r.dev._launcher = lambda: recording  # an instance attribute, as tests of the device plumbing do
    assert r.axpi(px, py, 5.0, 256) is None
    assert seen == ["axpi"] and r.planned == 1
    assert np.array_equal(r.get(py, 256), _want(x, 5.0, 256))


def test_a_kernel_with_printf_keeps_the_general_path(module, capfd):
    r = Rig(module)
    out = r.dev.allocate(4 * 32)
    for _ in range(3):
        assert r.dev.enqueue_launch(r.stream, r.image, "hello", (1, 1, 1), (32, 1, 1), 0, struct.pack("<Q", out)) is None
    assert r.planned == 0 and not r.dev._plans
    printed = capfd.readouterr().out
    assert printed.count("hi 31\n") == 3
    assert np.frombuffer(r.dev.memory.read(out, 4 * 32), np.int32).tolist() == list(range(32))


def test_an_asynchronous_stream_runs_planned_launches_in_order(module):
    r = Rig(module)
    r.stream = r.dev.create_stream(asynchronous=True)
    x = np.arange(256, dtype=np.float32)
    px, py = r.put(x), r.put(np.zeros(256, np.float32))
    for k in range(6):  # each launch reads what the one before wrote: order matters
        src = px if k == 0 else py
        assert r.axpi(src, py, 2.0, 256) is None
    assert r.dev.synchronize(r.stream) == []
    want = x
    for _ in range(6):
        want = _want(want, 2.0, 256)
    assert np.array_equal(r.get(py, 256), want)
    assert r.planned == 5 and r.dev.launches == 6
