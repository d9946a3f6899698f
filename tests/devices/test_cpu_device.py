"""The CPU device behind the device protocol, and the driver's launch path around an engine.

The launch-path tests swap the driver's device's launcher (``CpuDevice._launcher``: the numpy
engine's ``launch``, or the compiled backend's when ``CUMETAL_CPU_ENGINE=jit``) for a recording
stand-in so that what the driver hands to the engine (packed parameters, symbols, configuration,
watchdog) and what it does with the outcome (printf, fault codes, fault reporting) are checked
independently of the engine, whichever engine the device has.
"""

from __future__ import annotations

import ctypes
import struct
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.devices.backends import BackendError, open_device
from cumetal.devices.cpu_device import CpuDevice, watchdog_seconds
from cumetal.ir import GlobalVar, Module

R = cu.CUresult
PTX = (Path(__file__).parents[1] / "driver" / "data" / "kernels.ptx").read_text()


def check(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, cu.last_error_message()
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


def test_open_device():
    assert isinstance(open_device("cpu"), CpuDevice)
    from cumetal.devices.air_sim_device import AirSimDevice

    assert isinstance(open_device("air-sim"), AirSimDevice)
    with pytest.raises(BackendError, match="unknown CUMETAL_BACKEND='vulkan'"):
        open_device("vulkan")


def test_load_module_places_globals_and_patches_relocations():
    dev = CpuDevice()
    m = Module("m.ptx")
    m.globals["table"] = GlobalVar("table", "global", 16, 8, init=struct.pack("<qq", 1, 2))
    m.globals["ptrs"] = GlobalVar("ptrs", "const", 24, 8, init=bytes(24),
                                  relocs=[(0, "table", 0), (8, "table", 8), (16, "cnt", 4)])
    m.globals["cnt"] = GlobalVar("cnt", "global", 4, 4)
    img = dev.load_module(m)
    table, cnt, ptrs = img.symbols["table"][0], img.symbols["cnt"][0], img.symbols["ptrs"][0]
    assert dev.memory.read(table, 16) == struct.pack("<qq", 1, 2)
    assert dev.memory.read(ptrs, 24) == struct.pack("<QQQ", table, table + 8, cnt + 4)
    assert dev.memory.read(cnt, 4) == bytes(4)
    used = dev.memory.used
    dev.unload_module(img)
    assert dev.memory.used == used - 44
    bad = Module("bad.ptx")
    bad.globals["p"] = GlobalVar("p", "global", 8, 8, relocs=[(0, "nowhere", 0)])
    with pytest.raises(ValueError, match="unknown symbol 'nowhere'"):
        dev.load_module(bad)
    assert dev.memory.used == used - 44  # nothing leaked by the failed load


def test_memset_patterns():
    dev = CpuDevice()
    s = dev.create_stream()
    a = dev.allocate(64)
    dev.enqueue_memset(s, a, b"\x01\x02", 5)
    dev.enqueue_memset(s, a + 16, b"\xaa\xbb\xcc\xdd", 3)
    got = dev.memory.read(a, 32)
    assert got == b"\x01\x02" * 5 + bytes(6) + b"\xaa\xbb\xcc\xdd" * 3 + bytes(4)


def test_watchdog_setting(monkeypatch):
    monkeypatch.delenv("CUMETAL_WATCHDOG_SECONDS", raising=False)
    assert watchdog_seconds() == 60.0
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "0.5")
    assert watchdog_seconds() == 0.5
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "off")
    assert watchdog_seconds() is None
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "soon")
    assert watchdog_seconds() == 60.0


class Recorder:
    def __init__(self, fault=None, printf=(), error=None):
        self.calls = []
        self.fault = fault
        self.printf = list(printf)
        self.error = error

    def __call__(self, kernel, module, memory, grid, block, dynamic_shared, params, symbols, *, watchdog_s):
        self.calls.append(SimpleNamespace(kernel=kernel, module=module, memory=memory, grid=grid, block=block,
                                          shared=dynamic_shared, params=params, symbols=symbols, watchdog=watchdog_s))
        if self.error:
            raise self.error
        return SimpleNamespace(fault=self.fault, printf=self.printf)


def driver_device():
    """The device the driver opened at cuInit (one per process)."""
    from cumetal.driver.state import STATE

    return STATE.device


def use_engine(monkeypatch, recorder: Recorder) -> None:
    """Make ``recorder`` the engine of the driver's device (an instance attribute: undone by monkeypatch)."""
    monkeypatch.setattr(driver_device(), "_launcher", lambda: recorder, raising=False)


@pytest.fixture
def kernels():
    assert cu.cuInit(0)[0] == 0
    ctx = check(cu.cuCtxCreate(None, 0, 0))
    mod = check(cu.cuModuleLoadData(PTX))
    yield mod
    check(cu.cuCtxDestroy(ctx))


def test_launch_hands_the_engine_packed_params_and_symbols(kernels, monkeypatch):
    rec = Recorder()
    use_engine(monkeypatch, rec)
    monkeypatch.setenv("CUMETAL_WATCHDOG_SECONDS", "2.5")
    f = check(cu.cuModuleGetFunction(kernels, "vector_add"))
    a, b, c = (check(cu.cuMemAlloc(64)) for _ in range(3))
    s = check(cu.cuStreamCreate(0))
    check(cu.cuLaunchKernel(f, 2, 3, 1, 8, 4, 2, 128, s, ((a, b, c, 16), (None, None, None, ctypes.c_int)), None))
    (call,) = rec.calls
    assert call.kernel.name == "vector_add" and call.grid == (2, 3, 1) and call.block == (8, 4, 2)
    assert call.shared == 128 and call.watchdog == 2.5
    assert call.params == struct.pack("<QQQi", int(a), int(b), int(c), 16)
    assert call.symbols["coeffs"] == int(check(cu.cuModuleGetGlobal(kernels, "coeffs"))[0])
    assert set(call.symbols) == {"coeffs", "counter", "$str"}
    # the engine sees the same memory the driver allocates from: a device pointer resolves there
    assert call.memory.find(int(a))[0].size == 64


def test_printf_reaches_stdout(kernels, monkeypatch, capsys):
    use_engine(monkeypatch, Recorder(printf=["hello 0\n", "hello 1\n"]))
    f = check(cu.cuModuleGetFunction(kernels, "hello"))
    check(cu.cuLaunchKernel(f, 1, 1, 1, 2, 1, 1, 0, 0, ((5,), (ctypes.c_int,)), None))
    assert capsys.readouterr().out == "hello 0\nhello 1\n"


@pytest.mark.parametrize("code,result", [
    ("illegal_address", R.CUDA_ERROR_ILLEGAL_ADDRESS), ("misaligned_address", R.CUDA_ERROR_MISALIGNED_ADDRESS),
    ("illegal_instruction", R.CUDA_ERROR_ILLEGAL_INSTRUCTION), ("trap", R.CUDA_ERROR_LAUNCH_FAILED),
    ("timeout", R.CUDA_ERROR_LAUNCH_TIMEOUT), ("launch_failure", R.CUDA_ERROR_LAUNCH_FAILED)])
def test_faults_are_reported_once_then_the_context_works(kernels, monkeypatch, capsys, code, result):
    msg = "st.global.u32 [%rd4] at 0x7f0000001000 (thread (0,0,0) block (0,0,0))"
    use_engine(monkeypatch, Recorder(fault=SimpleNamespace(code=code, message=msg)))
    f = check(cu.cuModuleGetFunction(kernels, "write_past_end"))
    d = check(cu.cuMemAlloc(64))
    keep = check(cu.cuMemAlloc(16))
    check(cu.cuMemsetD8(keep, 9, 16))
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((d, 16), (None, ctypes.c_int)), None) == (result,)
    err = capsys.readouterr().err
    assert "write_past_end" in err and code in err and "0x7f0000001000" in err
    assert cu.cuCtxSynchronize() == (result,)  # reported again by the next synchronization ...
    assert cu.cuCtxSynchronize() == (R.CUDA_SUCCESS,)  # ... once: the context is not poisoned
    out = np.zeros(16, np.uint8)
    check(cu.cuMemcpyDtoH(out, keep, 16))
    assert (out == 9).all()


def test_fault_on_a_stream_is_reported_by_that_streams_sync(kernels, monkeypatch):
    rec = Recorder(fault=SimpleNamespace(code="illegal_address", message="ld.global at 0x10"))
    use_engine(monkeypatch, rec)
    f = check(cu.cuModuleGetFunction(kernels, "write_past_end"))
    d = check(cu.cuMemAlloc(64))
    s1, s2 = check(cu.cuStreamCreate(0)), check(cu.cuStreamCreate(0))
    ev = check(cu.cuEventCreate(0))
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, ((d, 16), (None, ctypes.c_int)), None)[0] == 700
    assert cu.cuStreamSynchronize(s2) == (R.CUDA_SUCCESS,)
    check(cu.cuEventRecord(ev, s1))
    assert cu.cuEventSynchronize(ev) == (R.CUDA_ERROR_ILLEGAL_ADDRESS,)
    assert cu.cuStreamSynchronize(s1) == (R.CUDA_SUCCESS,)
    rec.fault = None
    check(cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, s1, ((d, 16), (None, ctypes.c_int)), None))


def test_engine_crash_becomes_launch_failed(kernels, monkeypatch, capsys):
    use_engine(monkeypatch, Recorder(error=RuntimeError("boom")))
    f = check(cu.cuModuleGetFunction(kernels, "hello"))
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((1,), (ctypes.c_int,)), None) == (R.CUDA_ERROR_LAUNCH_FAILED,)
    err = capsys.readouterr().err
    assert f"internal error in the {driver_device().engine_name}" in err and "boom" in err and "Traceback" not in err
    assert cu.cuCtxSynchronize() == (R.CUDA_ERROR_LAUNCH_FAILED,)
    assert cu.cuCtxSynchronize() == (R.CUDA_SUCCESS,)


def test_synchronous_copy_reports_a_pending_fault_once(kernels, monkeypatch):
    use_engine(monkeypatch, Recorder(fault=SimpleNamespace(code="misaligned_address", message="x")))
    f = check(cu.cuModuleGetFunction(kernels, "write_past_end"))
    d = check(cu.cuMemAlloc(64))
    assert cu.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, 0, ((d, 16), (None, ctypes.c_int)), None)[0] == 716
    out = np.zeros(16, np.uint8)
    assert cu.cuMemcpyDtoH(out, d, 16) == (R.CUDA_ERROR_MISALIGNED_ADDRESS,)  # the copy itself was done
    assert cu.cuCtxSynchronize() == (R.CUDA_SUCCESS,)
    assert cu.cuMemcpyDtoH(out, d, 16) == (R.CUDA_SUCCESS,)
