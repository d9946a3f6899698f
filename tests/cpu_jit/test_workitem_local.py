"""Private (local) memory in work-item kernels with warp exchanges (docs/cpu-backend.md, "Cooperative
grids and the warp-heavy samples"): a region registers the thread's local-memory bounds
(``sim_local``) only when its run may check a private access, and the private accesses of later
regions still find their bounds: the numpy engine's bits on 1 and 2 workers."""

from __future__ import annotations

import re
import struct

import numpy as np
import pytest

from cumetal.backends.air.sim import launch_air
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.backends.cpu.memory import DeviceMemory
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = r"""
extern "C" __global__ void lk(int *out, const int *idx) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int a[16];
  for (int k = 0; k < 16; ++k) a[k] = k * (int)threadIdx.x + idx[(t + k) & 63];
  int v = a[idx[t & 63] & 15];                    // a dynamic index: local memory
  v += __shfl_down_sync(0xffffffffu, v, 1);
  a[(v >> 3) & 15] += v;                          // local memory after an exchange
  v = __shfl_xor_sync(0xffffffffu, v, 3);
  v += a[(idx[(t * 7) & 63] + v) & 15];
  for (int o = 16; o > 0; o /= 2) v += __shfl_xor_sync(0xffffffffu, v, o);  // no local memory
  int w = __shfl_sync(0xffffffffu, v, 5);
  w += __shfl_down_sync(0xffffffffu, w, 2);
  out[t] = v ^ w;
}
"""


@pytest.fixture(scope="module")
def module():
    ptx = compile_to_ptx(SOURCE, "wi_local.cu", CudaOptions()).ptx
    return compile_ptx(ptx, "wi_local.cu")


def _run(launch, module, idx: np.ndarray, blocks: int, **kw) -> np.ndarray:
    mem = DeviceMemory(1 << 20)
    out, pidx = mem.alloc(4 * 64 * blocks), mem.alloc(idx.nbytes)
    mem.write(pidx, idx.tobytes())
    res = launch(module.kernels["lk"], module, mem, (blocks, 1, 1), (64, 1, 1), 0, struct.pack("<QQ", out, pidx), {},
                 watchdog_s=60.0, **kw)
    assert res.fault is None, res.fault
    return np.frombuffer(mem.read(out, 4 * 64 * blocks), np.int32).copy()


def test_local_memory_after_exchanges_gives_the_numpy_engines_bits(module):
    idx = np.random.default_rng(7).integers(0, 1 << 12, 64, dtype=np.int32)
    want = _run(numpy_launch, module, idx, 5)
    for workers in (1, 2):
        assert np.array_equal(_run(launch_air, module, idx, 5, workers=workers), want), workers


def test_only_regions_that_check_local_memory_register_it(module, monkeypatch, tmp_path):
    from cumetal.backends.air.sim import compile as sim_compile

    monkeypatch.setenv("CUMETAL_JIT_DUMP", str(tmp_path))
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(sim_compile, "_cache", {})
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    ck = sim_compile.compile_kernel(module.kernels["lk"], module)
    assert ck.wi is not None  # a work-item kernel (its shuffles are exchanges)
    text = next(tmp_path.glob("lk*.in.ll")).read_text()
    regions = re.findall(r"(?ms)^define internal i32 @__sim_r(?:\d+|m)\(.*?^}", text)
    assert regions
    # resume points (region functions, or the merged body's resume blocks) and their registrations
    resumes = sum(len(re.findall(r"(?m)^__wi_p\d+:", r)) if "@__sim_rm(" in r.splitlines()[0] else 1
                  for r in regions)
    calls = sum(r.count("call void @sim_local(") for r in regions)
    assert 1 <= calls < resumes, (calls, resumes)  # the shuffles after the last local access: none
