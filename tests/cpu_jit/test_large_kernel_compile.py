"""A kernel of more IR instructions than the old CUMETAL_JIT_MAX_INSTS default (8000) runs compiled on
cpu-jit with the default limit, through the cheap path for large kernels (backends/air/sim/compile.py
LARGE_LINES: no vectorized copies, the body not inlined into the thread loop, capped register-allocator
region growth), and its results equal numpy's (exact: unsigned arithmetic that wraps). A generated
straight-line body of clamped loads: the shape of NVIDIA's convolutionTexture rows kernel."""

from __future__ import annotations

import numpy as np
import pytest
from kernel_params import pack_params as _params  # (same folder)
from test_cpu_jit import Mem  # (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

TAPS = [(j * 37 % 61 - 30, (j * 2654435761) & 0xFFFFFFFF) for j in range(2600)]  # (offset, xor key)


def _source() -> str:
    body = "".join(f"  {{ int x = min(max(i + {d}, 0), w - 1); s = s * 33u + (a[x] ^ {k}u); }}\n" for d, k in TAPS)
    return ('extern "C" __global__ void big(const unsigned *a, unsigned *out, int w) {\n'
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  unsigned s = i;\n" + body + "  if (i < w) out[i] = s;\n}\n")


@pytest.fixture(scope="module")
def module():
    return compile_ptx(compile_to_ptx(_source(), "large_kernel.cu", CudaOptions()).ptx, "large_kernel.cu")


def test_a_kernel_over_the_old_size_limit_compiles_cheaply_and_runs_compiled(module, monkeypatch):
    from cumetal.devices.cpu_jit_device import CpuJitDevice, kernel_size, max_insts

    monkeypatch.delenv("CUMETAL_JIT_MAX_INSTS", raising=False)
    size = kernel_size(module.kernels["big"], module)
    assert 8000 < size <= max_insts(), size
    compiled = []
    real = sim_compile._build
    monkeypatch.setattr(sim_compile, "_build", lambda *a, **k: compiled.append(real(*a, **k)) or compiled[-1])
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", type(sim_compile._cache)())
    monkeypatch.setattr(sim_compile, "_disk_get", lambda key: None)
    monkeypatch.setattr(sim_compile, "_disk_put", lambda key, ck: None)
    w = 1000
    a = np.random.default_rng(11).integers(0, 1 << 32, w, dtype=np.uint32)
    dev = CpuJitDevice()
    m = Mem()
    pa, pout = m.put(a), m.put(np.zeros(w, np.uint32))
    res = dev._launcher()(module.kernels["big"], module, m.mem, (4, 1, 1), (256, 1, 1), 0,
                          _params(("Q", pa), ("Q", pout), ("i", w)), {})
    assert res.fault is None, res.fault
    assert (dev.fallbacks, dev.launches) == (0, 1)  # compiled, not the numpy engine
    (ck,) = compiled
    assert ck.large and ck.direct and not ck.vector, ck
    i = np.arange(w)
    want = i.astype(np.uint32)
    for d, k in TAPS:
        want = want * np.uint32(33) + (a[np.clip(i + d, 0, w - 1)] ^ np.uint32(k))
    got = np.frombuffer(m.mem.read(pout, 4 * w), np.uint32)
    assert np.array_equal(got, want)


def test_kernels_with_a_barrier_keep_the_lower_limit(monkeypatch):
    """The work-item transform's regions grow with a kernel's barriers (a 9.2k-instruction kernel
    with 400 of them took 115 s to compile): such kernels keep 8000; CUMETAL_JIT_MAX_INSTS is one
    limit for every kernel."""
    from test_cpu_jit import SOURCE

    from cumetal.devices.cpu_jit_device import has_barrier, max_insts

    mod = compile_ptx(compile_to_ptx(SOURCE, "cpu_jit_kernels.cu", CudaOptions()).ptx, "cpu_jit_kernels.cu")
    assert has_barrier(mod.kernels["reduce"], mod) and not has_barrier(mod.kernels["vecadd"], mod)
    monkeypatch.delenv("CUMETAL_JIT_MAX_INSTS", raising=False)
    assert (max_insts(False), max_insts(True)) == (40000, 8000)
    monkeypatch.setenv("CUMETAL_JIT_MAX_INSTS", "123")
    assert (max_insts(False), max_insts(True)) == (123, 123)
