"""Tiering of the compiled CPU backend (``CUMETAL_JIT_TIER``): small launches run on the numpy
engine until their launches have cost as much as a compile, which then runs on a background
thread; large launches (loops counted as 16 trips) and cached kernels go native at once; results
never depend on the engine. Also the JIT disk cache's size cap (``CUMETAL_JIT_CACHE_MB``)."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import textwrap
import time

import numpy as np
import pytest

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.devices import cpu_jit_device as tier
from cumetal.devices.cpu_jit_device import CpuJitDevice
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void axpb(float *x, float a, float b) {  // loop-free
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  x[i] = x[i] * a + b;
}
extern "C" __global__ void powers(unsigned *x, int n) {  // a loop: its run time has no static bound
  unsigned i = blockIdx.x * blockDim.x + threadIdx.x, v = i + 1u;
  for (int k = 0; k < n; ++k) v = v * 2654435761u + (unsigned)k;
  x[i] = v;
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "tier_kernels.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "tier_kernels.cu")


@pytest.fixture
def fresh_cache(monkeypatch, tmp_path):
    """An empty JIT cache: nothing compiled in memory or on disk."""
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    return tmp_path


def _axpb(launcher, module, x: np.ndarray, a: float, b: float, grid=(4, 1, 1), block=(64, 1, 1)):
    mem = DeviceMemory(1 << 26)
    p = mem.alloc(x.nbytes)
    mem.write(p, x.tobytes())
    out = launcher(module.kernels["axpb"], module, mem, grid, block, 0, struct.pack("<Qff", p, a, b), {},
                   watchdog_s=30.0)
    assert out.fault is None, out.fault
    return np.frombuffer(mem.read(p, x.nbytes), np.float32).copy()


def _powers(launcher, module, n: int):
    mem = DeviceMemory(1 << 20)
    p = mem.alloc(4 * 128)
    out = launcher(module.kernels["powers"], module, mem, (2, 1, 1), (64, 1, 1), 0, struct.pack("<Qi", p, n), {},
                   watchdog_s=30.0)
    assert out.fault is None, out.fault
    return np.frombuffer(mem.read(p, 4 * 128), np.uint32).copy()


def test_kernel_shape_finds_loops_and_recursion(module):
    size, loops = tier.kernel_shape(module.kernels["axpb"], module)
    assert 3 < size < 60 and not loops
    assert tier.kernel_shape(module.kernels["powers"], module)[1]
    assert tier._has_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}})
    assert not tier._has_cycle({"a": {"b", "c"}, "b": {"c"}, "c": set()})


def test_small_launches_run_on_numpy_until_a_background_compile_is_ready(module, fresh_cache, monkeypatch):
    # a compile "costs" 1 us and a launch is predicted to cost nothing: the first launch runs on the
    # numpy engine, pays for the compile, which then runs on the background thread
    monkeypatch.setattr(tier, "COMPILE_BASE_S", 1e-6)
    monkeypatch.setattr(tier, "COMPILE_PER_INST_S", 0.0)
    for name in ("NUMPY_LAUNCH_S", "NUMPY_STEP_S", "NUMPY_LANE_STEP_S"):
        monkeypatch.setattr(tier, name, 0.0)
    dev = CpuJitDevice(tiered=True)
    launch = dev._launcher()
    x = np.random.default_rng(2).standard_normal(256).astype(np.float32)
    want = _axpb(numpy_launch, module, x, 1.5, -0.25)
    deadline = time.monotonic() + 120
    while dev.launches == 0 and time.monotonic() < deadline:
        assert np.array_equal(_axpb(launch, module, x, 1.5, -0.25).view(np.uint32), want.view(np.uint32))
        time.sleep(0.01)
    assert dev.interpreted >= 1 and dev.background_compiles == 1 and dev.launches == 1
    assert np.array_equal(_axpb(launch, module, x, 1.5, -0.25).view(np.uint32), want.view(np.uint32))
    assert dev.launches == 2 and dev.fallbacks == 0


def test_loops_large_launches_and_cached_kernels_go_native_at_once(module, fresh_cache, monkeypatch):
    want = _powers(numpy_launch, module, 1000)
    monkeypatch.setattr(tier, "LOOP_TRIPS", 1 << 20)  # loops predicted long: compiled before the first launch
    dev = CpuJitDevice(tiered=True)
    assert np.array_equal(_powers(dev._launcher(), module, 1000), want)
    assert (dev.launches, dev.interpreted) == (1, 0)
    monkeypatch.setattr(tier, "LOOP_TRIPS", 16)

    small = np.arange(256, dtype=np.float32)
    dev = CpuJitDevice(tiered=True)
    want = _axpb(numpy_launch, module, small, 2.0, 1.0)
    assert np.array_equal(_axpb(dev._launcher(), module, small, 2.0, 1.0), want)
    assert (dev.launches, dev.interpreted) == (0, 1)  # small and loop-free: the numpy engine

    size = tier.kernel_size(module.kernels["axpb"], module)
    assert tier.predicted_numpy_s(size, (1 << 16, 1, 1), (256, 1, 1)) > tier.predicted_compile_s(size)
    big = np.random.default_rng(3).standard_normal(1 << 19).astype(np.float32)
    want = _axpb(numpy_launch, module, big, 0.5, 3.0, grid=(1 << 11, 1, 1), block=(256, 1, 1))
    monkeypatch.setattr(tier, "NUMPY_LANE_STEP_S", 1.0)  # any launch is "large"
    got = _axpb(dev._launcher(), module, big, 0.5, 3.0, grid=(1 << 11, 1, 1), block=(256, 1, 1))
    assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert (dev.launches, dev.interpreted) == (1, 1)
    monkeypatch.undo()

    # compiled by an earlier process (the disk cache): native from the first, small launch
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(fresh_cache))
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    dev = CpuJitDevice(tiered=True)
    assert np.array_equal(_axpb(dev._launcher(), module, small, 2.0, 1.0), _axpb(numpy_launch, module, small, 2.0, 1.0))
    assert (dev.launches, dev.interpreted) == (1, 0)


def test_a_small_launch_of_a_loop_kernel_starts_on_numpy(module, fresh_cache):
    """Loops count LOOP_TRIPS trips in the prediction: a small launch still runs on the numpy engine."""
    want = _powers(numpy_launch, module, 100)
    dev = CpuJitDevice(tiered=True)
    assert np.array_equal(_powers(dev._launcher(), module, 100), want)
    assert (dev.launches, dev.interpreted) == (0, 1)


def test_the_tier_setting(monkeypatch):
    from cumetal.devices import backends

    monkeypatch.setenv("CUMETAL_CPU_ENGINE", "jit")
    monkeypatch.delenv("CUMETAL_JIT_TIER", raising=False)
    assert backends.open_device("cpu").tiered and not backends.open_device("cpu-jit").tiered
    monkeypatch.setenv("CUMETAL_JIT_TIER", "off")
    assert not backends.open_device("cpu").tiered
    monkeypatch.setenv("CUMETAL_JIT_TIER", "on")
    assert backends.open_device("cpu-jit").tiered
    monkeypatch.setenv("CUMETAL_JIT_TIER", "sometimes")
    assert tier.tiering(True) and not tier.tiering(False)


def test_the_disk_cache_is_pruned_least_recently_used_first(tmp_path, monkeypatch):
    now = time.time()
    for k in range(10):  # kernel k last used k hours ago; 1000 + 100 bytes each
        (tmp_path / f"key{k}.o").write_bytes(bytes(1000))
        (tmp_path / f"key{k}.json").write_bytes(bytes(100))
        os.utime(tmp_path / f"key{k}.o", (now - 3600 * k, now - 3600 * k))
    (tmp_path / "orphan.json").write_bytes(bytes(100))  # an object without metadata or vice versa: first
    assert tier.prune_jit_cache(tmp_path, limit=20000) == (0, 0)  # under the cap: nothing
    assert tier.prune_jit_cache(tmp_path, limit=5000) == (0, 0)  # scanned a moment ago (the stamp)
    freed, files = tier.prune_jit_cache(tmp_path, limit=5000, force=True)  # down to 80%: 4000 bytes
    left = sorted(p.name for p in tmp_path.glob("key*.o"))
    assert left == ["key0.o", "key1.o", "key2.o"] and not (tmp_path / "orphan.json").exists()
    assert (freed, files) == (100 + 7 * 1100, 1 + 14)
    monkeypatch.setenv("CUMETAL_JIT_CACHE_MB", "0")
    assert tier.cache_limit_bytes() == 0 and tier.prune_jit_cache(tmp_path, force=True) == (0, 0)
    monkeypatch.setenv("CUMETAL_JIT_CACHE_MB", "1.5")
    assert tier.cache_limit_bytes() == 3 << 19


def test_exit_during_a_background_compile_is_clean(tmp_path):
    """The process exits while the background thread compiles: the compile is waited for (LLVM is
    not torn down under it) and the exit status is 0."""
    script = textwrap.dedent(f"""
        import struct, sys
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_tier import SOURCE
        from cumetal.cudacxx.compile import compile_to_ptx
        from cumetal.cudacxx.options import CudaOptions
        from cumetal.devices import cpu_jit_device as tier
        from cumetal.passes import compile_ptx
        m = compile_ptx(compile_to_ptx(SOURCE, "t.cu", CudaOptions()).ptx, "t.cu")
        fut = tier._compiler.submit(lambda: tier._compile_job(m.kernels["powers"], m))
        print("submitted", flush=True)
    """)
    env = dict(os.environ, CUMETAL_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0 and "submitted" in proc.stdout, proc.stderr


PRINTF_SOURCE = r"""
#include <cstdio>
extern "C" __global__ void two_prints() { printf("a%d\n", threadIdx.x); printf("b%d\n", threadIdx.x); }
"""


def test_printf_output_agrees_where_cuda_defines_it():
    """Both engines print the same lines, each thread's in program order. The interleaving of
    threads differs (CUDA leaves it unspecified): the numpy engine prints a warp's lanes together
    (a0 a1 a2 b0 b1 b2, as a GPU's warp does), compiled code each thread to its end (a0 b0 a1 b1 ...)."""
    from cumetal.backends.air.sim import launch_air
    from cumetal.devices.cpu_device import CpuDevice

    m = compile_ptx(compile_to_ptx(PRINTF_SOURCE, "printf2.cu", CudaOptions()).ptx, "printf2.cu")
    k = m.kernels["two_prints"]
    dev = CpuDevice()
    image = dev.load_module(m)  # the format strings' addresses
    got = {}
    for name, launcher in (("numpy", numpy_launch), ("jit", launch_air)):
        out = launcher(k, m, dev.memory, (1, 1, 1), (3, 1, 1), 0, b"", image.symbol_addresses(), watchdog_s=30.0)
        assert out.fault is None, out.fault
        got[name] = "".join(out.printf)
    assert got["numpy"] == "a0\na1\na2\nb0\nb1\nb2\n"
    assert sorted(got["jit"].splitlines()) == sorted(got["numpy"].splitlines())
    for text in got.values():
        lines = text.splitlines()
        assert all(lines.index(f"a{t}") < lines.index(f"b{t}") for t in range(3))
