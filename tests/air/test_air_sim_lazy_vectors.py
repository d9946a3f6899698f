"""The air-sim compiles a kernel's vectorized copies (sim/vectorize.py) only for launches of at
least ``CUMETAL_JIT_VECTOR_THREADS`` threads (they are most of a small kernel's compile time): a
small launch gets the checked loops alone, a large one the vectorized copies, both exact."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, runtime_lib
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void vadd(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
"""


def _run(module, grid: int, block: int, n: int):
    rng = np.random.default_rng(grid)
    a, b = rng.standard_normal(n, dtype=np.float32), rng.standard_normal(n, dtype=np.float32)
    mem = DeviceMemory(1 << 28)
    ptrs = [mem.alloc(4 * n) for _ in range(3)]
    mem.write(ptrs[0], a.tobytes())
    mem.write(ptrs[1], b.tobytes())
    params = struct.pack("<QQQi", *ptrs, n)
    out = launch_air(module.kernels["vadd"], module, mem, (grid, 1, 1), (block, 1, 1), 0, params, {})
    assert out.fault is None, out.fault
    got = np.frombuffer(mem.read(ptrs[2], 4 * n), np.float32)
    assert np.array_equal(got, a + b)  # float32 + float32: one rounding, as numpy's


@pytest.mark.parametrize("limit", ["", "5000"])
def test_small_launches_skip_the_vectorized_copies(monkeypatch, tmp_path, limit):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))  # compiled here, not found in a cache
    monkeypatch.setenv("CUMETAL_JIT_VECTOR_THREADS", limit)
    ptx = compile_to_ptx(SOURCE, f"lazy_{limit or 'default'}.cu", CudaOptions()).ptx
    module = compile_ptx(ptx, "lazy.cu")
    kernel = module.kernels["vadd"]
    threshold = int(limit or 16384)
    before = runtime_lib.blocks_vector()
    _run(module, 4, 256, 1000)  # 1024 threads: below either threshold
    small = sim_compile.compile_kernel(kernel, module, vectors=False)
    assert not small.vector and runtime_lib.blocks_vector() == before
    grid = -(-threshold // 256)
    _run(module, grid, 256, grid * 256 - 3)  # at the threshold: compiled with the vectorized loop
    big = sim_compile.compile_kernel(kernel, module, vectors=False)  # the process's copy with them
    assert big is not small and big.vector
    assert runtime_lib.blocks_vector() > before
    _run(module, 4, 256, 1000)  # small again: the kernel keeps its vectorized copy
    assert sim_compile.compile_kernel(kernel, module, vectors=True) is big
