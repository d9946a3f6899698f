"""Vectorized work-item regions (backends/air/sim/wivector.py, on by default, ``CUMETAL_JIT_WIVECTOR=0`` off):
the barrier kernels of test_workitem.py and the benchmark's reduce and tiled matmul give the numpy
engine's bits on 1 and 2 workers with the regions' probes and vectorized copies, whose path is
really taken; faults after a barrier keep their exact address; the opt-out leaves them off."""

from __future__ import annotations

import ctypes

import numpy as np
import pytest
import test_workitem as wi  # the work-item tests' kernels, cases and helpers (same folder)

from cumetal.backends.air.sim import compile as sim_compile
from cumetal.backends.air.sim import launch_air, wivector
from cumetal.backends.cpu import launch as numpy_launch
from cumetal.passes import compile_ptx

module = wi.module  # the fixture


@pytest.fixture(autouse=True)
def _wivector(monkeypatch):
    monkeypatch.delenv("CUMETAL_JIT_WIVECTOR", raising=False)  # the default: on
    monkeypatch.setattr(sim_compile, "_by_function", type(sim_compile._by_function)())
    monkeypatch.setattr(sim_compile, "_cache", {})


def _fast_calls(ck) -> int:
    return sum(ctypes.c_int64.from_address(eng.get_global_value_address(wivector.FAST_COUNT)).value
               for eng, _, _ in ck.workers(len(ck.engines) or 1))


@pytest.mark.parametrize("index", range(6), ids=["loop", "scan", "early_exit_warp_tail", "dynamic_3d", "transpose_2d",
                                             "syncthreads_count"])
def test_barrier_kernels_match_the_numpy_engine(module, index):
    name, grid, block, inputs, outputs, params, dyn = wi._cases(np.random.default_rng(11))[index]
    ck = sim_compile.compile_kernel(module.kernels[name], module)
    assert ck.wi and not ck.coro, name
    want = wi._run(numpy_launch, module, name, grid, block, inputs, outputs, params, dyn)
    for workers in (1, 2):
        got = wi._run(launch_air, module, name, grid, block, inputs, outputs, params, dyn, workers=workers)
        for g, w in zip(got, want, strict=True):
            assert np.array_equal(g.view(np.uint8), w.view(np.uint8)), (name, workers)


def test_benchmark_kernels_take_the_vectorized_regions():
    rng = np.random.default_rng(8)
    red = compile_ptx((wi.CORPUS / "reduce_shared.ptx").read_text(), "reduce_shared.ptx")
    (rname,) = [k for k in red.kernels if "reduceILj256" in k]
    mm = compile_ptx((wi.CORPUS / "tiled_matmul.ptx").read_text(), "tiled_matmul.ptx")
    (mname,) = [k for k in mm.kernels if "matmul_tiled" in k]
    cks = []
    for mod, name in ((red, rname), (mm, mname)):
        ck = sim_compile.compile_kernel(mod.kernels[name], mod)
        assert ck.wi and ck.wiv, name
        cks.append(ck)
    n = 24 * 512 + 300  # the last threadgroups' loads partly out of range
    x = rng.random(n, dtype=np.float32)
    args = (rname, (25, 1, 1), (256, 1, 1), [x], [np.zeros(25, np.float32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("I", n)))
    before = _fast_calls(cks[0])
    assert np.array_equal(wi._run(launch_air, red, *args, workers=1)[0], wi._run(numpy_launch, red, *args)[0])
    assert _fast_calls(cks[0]) - before >= 24  # regions of the later threadgroups ran vectorized
    s = 40  # not a multiple of the tile: the bounds tests inside the tile loop
    a, b = rng.random((s, s), dtype=np.float32), rng.random((s, s), dtype=np.float32)
    args = (mname, (3, 3, 1), (16, 16, 1), [a, b], [np.ones((s, s), np.float32)],
            lambda p: wi._params(("Q", p[0]), ("Q", p[1]), ("Q", p[2]), ("i", s), ("i", s), ("i", s), ("f", 1.5),
                                 ("f", 0.5)))
    before = _fast_calls(cks[1])
    for workers in (1, 2):
        got, want = wi._run(launch_air, mm, *args, workers=workers)[0], wi._run(numpy_launch, mm, *args)[0]
        assert np.array_equal(got.view(np.uint32), want.view(np.uint32))
    assert _fast_calls(cks[1]) > before
    np.testing.assert_allclose(got, 1.5 * (a @ b) + 0.5, rtol=1e-5)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_fault_after_a_barrier_names_the_address(module, workers):
    m = wi.Mem()
    out = m.put(np.zeros(4 * 64, np.int32))
    res = launch_air(module.kernels["oob_after_barrier"], module, m.mem, (4, 1, 1), (64, 1, 1), 0,
                     wi._params(("Q", out), ("i", 9)), {}, workers=workers)
    assert res.fault is not None and res.fault.code == "illegal_address"
    assert f"0x{out + 4 * (2 * 64 + 9 + (1 << 24)):x}" in res.fault.message
    if workers == 1:  # the threadgroups before the faulting one complete
        got = m.get(out, np.zeros(2 * 64, np.int32))
        assert np.array_equal(got, np.tile(np.arange(63, -1, -1, dtype=np.int32), 2))


def test_on_by_default_and_off_with_the_opt_out(module, monkeypatch):
    monkeypatch.delenv("CUMETAL_JIT_WIVECTOR", raising=False)
    ck = sim_compile.compile_kernel(module.kernels["scan"], module)
    assert ck.wi and ck.wiv
    monkeypatch.setenv("CUMETAL_JIT_WIVECTOR", "0")
    off = sim_compile.compile_kernel(module.kernels["scan"], module)
    assert off.wi and not off.wiv
