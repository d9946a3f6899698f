"""Functional tests (spec §10.3): printf, error reporting, scalar and struct arguments, calls."""

from __future__ import annotations

import ctypes
import os

import numpy as np
from functional_harness import F32, I32, I64, U64

from cumetal import driver as cu


class Params(ctypes.Structure):
    _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_float), ("c", ctypes.c_double), ("tag", ctypes.c_char),
                ("s", ctypes.c_short * 3)]


def test_printf_formats(gpu, capfd):
    gpu.run(gpu.kernel("misc", "hello"), (2,), (4,), [(7, I32), (2.5, F32)])
    lines = capfd.readouterr().out.splitlines()
    expect = [f"block {b} thread {t}: x=7 y=2.500 hex=ff str=ok c=Z" for b in range(2) for t in range(2)]
    assert sorted(lines) == sorted(expect)


def test_struct_and_scalar_arguments(gpu):
    p = Params(-12, 3.25, -1e300, b"q", (ctypes.c_short * 3)(1, -2, 300))
    d_out = gpu.zeros(7, np.float64)
    gpu.run(gpu.kernel("misc", "struct_arg"), (1,), (1,),
            [(p, Params), (ord("x"), ctypes.c_char), (2**63 + 5, U64), (d_out, None)])
    got = gpu.from_device(d_out, 7, np.float64)
    assert got.tolist() == [-12.0, 3.25, -1e300, float(ord("q")), 299.0, float(ord("x")), float(2**63 + 5)]


def test_out_of_bounds_is_an_error_and_the_context_survives(gpu, capfd, monkeypatch):
    monkeypatch.delenv("CUMETAL_QUIET", raising=False)  # it silences the device's fault report
    d = gpu.zeros(16, np.int32)
    err = gpu.launch(gpu.kernel("misc", "out_of_bounds"), (1,), (1,), [(d, None), (1 << 40, I64)])
    sync_err, = cu.cuCtxSynchronize()
    assert cu.CUresult.CUDA_ERROR_ILLEGAL_ADDRESS in (err, sync_err)
    assert "out_of_bounds" in capfd.readouterr().err
    # the allocation is intact and new work still runs
    x = np.arange(16, dtype=np.float32)
    d_x = gpu.to_device(x)
    gpu.run(gpu.kernel("arithmetic", "saxpy"), (1,), (16,), [(2.0, F32), (d_x, None), (d_x, None), (16, I32)])
    assert np.array_equal(gpu.from_device(d_x, 16, np.float32), 3 * x)
    assert np.array_equal(gpu.from_device(d, 16, np.int32), np.zeros(16, np.int32))


def test_trap_is_reported(gpu):
    fn = gpu.kernel("misc", "assert_false")
    err = gpu.launch(fn, (1,), (32,), [(42, I32)])
    sync_err, = cu.cuCtxSynchronize()
    assert {err, sync_err} & {cu.CUresult.CUDA_ERROR_LAUNCH_FAILED, cu.CUresult.CUDA_ERROR_ILLEGAL_INSTRUCTION,
                              cu.CUresult.CUDA_ERROR_ASSERT}
    gpu.run(fn, (1,), (32,), [(1, I32)])  # no trap: fine


def test_runaway_kernel_hits_the_watchdog(gpu, monkeypatch):
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "1")
    flag = gpu.zeros(1, np.int32)
    err = gpu.launch(gpu.kernel("misc", "spin_forever"), (1,), (32,), [(flag, None)])
    sync_err, = cu.cuCtxSynchronize()
    assert cu.CUresult.CUDA_ERROR_LAUNCH_TIMEOUT in (err, sync_err)


def test_recursion_and_function_pointers(gpu):
    n = 200
    x = np.random.default_rng(5).integers(0, 1000, n).astype(np.int32)
    d_x, d_out = gpu.to_device(x), gpu.zeros(n, np.int32)
    gpu.run(gpu.kernel("misc", "calls"), (1,), (256,), [(d_x, None), (d_out, None), (n, I32)])

    def fib(k: int) -> int:
        return k if k < 2 else fib(k - 1) + fib(k - 2)

    expect = [fib(int(v) & 15) + (2 if i % 2 == 0 else 3) * int(v) for i, v in enumerate(x)]
    assert gpu.from_device(d_out, n, np.int32).tolist() == expect


def test_the_selected_backend_runs_these_tests(gpu):
    """The device reports the backend chosen by CUMETAL_BACKEND (so a suite run for air-sim or
    msl-sim really exercised that backend)."""
    backend = os.environ.get("CUMETAL_BACKEND", "cpu")
    err, name = cu.cuDeviceGetName(64, gpu.dev)
    name = name.split(b"\0")[0].decode()
    expected = {"cpu": "CPU", "cpu-jit": "CPU-JIT", "air-sim": "air-sim", "msl-sim": "msl-sim", "metal": "Apple"}[backend]
    assert expected in name, name
