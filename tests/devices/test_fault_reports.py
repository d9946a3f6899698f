"""Fault reports of the compiled engines (cpu-jit, air-sim, msl-sim) name the PTX instruction,
block and thread, as the CPU engine's do.

Compiled code knows the kernel, the fault and the address; the device reruns the faulting launch
on the CPU engine for the rest of the report (devices/fault_report.py), and uses it only when it is
the same fault at the same address. The truth
checked here is the kernels' own: which thread of which block touches which address, by which
instruction on which line of the PTX below.
"""

from __future__ import annotations

import ctypes
import re

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.driver.state import STATE

R = cu.CUresult

PTX = r""".version 8.0
.target sm_80
.address_size 64

.visible .entry one_thread_past_end(.param .u64 p, .param .u32 n)
{
    .reg .pred %q<2>; .reg .b32 %r<8>; .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [p];
    ld.param.u32 %r1, [n];
    mov.u32 %r2, %ctaid.x;
    mov.u32 %r3, %tid.x;
    setp.ne.u32 %q1, %r2, 37;
    @%q1 bra DONE;
    setp.ne.u32 %q1, %r3, 5;
    @%q1 bra DONE;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.u32 [%rd3], %r3;
DONE:
    ret;
}

.visible .entry misaligned_load(.param .u64 p)
{
    .reg .b32 %r<2>; .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    add.s64 %rd2, %rd1, 2;
    ld.global.u32 %r1, [%rd2];
    st.global.u32 [%rd1], %r1;
    ret;
}

.visible .entry moving_target(.param .u64 flag)
{
    .reg .b32 %r<3>; .reg .b64 %rd<5>;
    ld.param.u64 %rd1, [flag];
    ld.global.u32 %r1, [%rd1];
    add.u32 %r2, %r1, 1;
    st.global.u32 [%rd1], %r2;
    mul.wide.u32 %rd2, %r2, 4096;
    st.global.u32 [%rd2], %r2;
    ret;
}
"""

BACKENDS = ("cpu", "cpu-jit", "air-sim", "msl-sim")


def line_of(text: str) -> int:
    """The PTX line (1-based) holding ``text``, which occurs once."""
    lines = [i for i, line in enumerate(PTX.splitlines(), 1) if text in line]
    assert len(lines) == 1, text
    return lines[0]


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture(params=BACKENDS)
def device(request, monkeypatch):
    """A fresh driver on the given device kind, with the module loaded."""
    monkeypatch.setenv("CUMETAL_BACKEND", request.param)
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    for name, value in (("initialized", False), ("device", None), ("primary", None), ("primary_refs", 0)):
        monkeypatch.setattr(STATE, name, value)
    ok(cu.cuInit(0))
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    yield request.param, ok(cu.cuModuleLoadData(PTX.encode()))
    ok(cu.cuCtxDestroy(ctx))


def _fault(module, kernel: str, grid: int, block: int, args, types, want) -> str:
    fn = ok(cu.cuModuleGetFunction(module, kernel.encode()))
    err = cu.cuLaunchKernel(fn, grid, 1, 1, block, 1, 1, 0, 0, (args, types), 0)[0]
    assert err == want, f"{R(err).name}: {cu.last_error_message()}"
    message = cu.last_error_message()
    assert cu.cuCtxSynchronize()[0] == want  # reported once more, then the context goes on
    return message


def test_illegal_address_names_block_thread_and_instruction(device):
    backend, module = device
    n = 16
    d = ok(cu.cuMemAlloc(n * 4))
    # only thread 5 of block 37 (of 64 blocks of 64 threads) stores, one word past the end
    msg = _fault(module, "one_thread_past_end", 64, 64, (d, n), (None, ctypes.c_uint32),
                 R.CUDA_ERROR_ILLEGAL_ADDRESS)
    assert f"0x{int(d) + 4 * n:x}" in msg, msg
    assert "block (37,0,0) thread (5,0,0)" in msg, msg
    assert re.search(rf":{line_of('st.global.u32 [%rd3]')}:\d+, instruction 'st\.global\.u32'", msg), msg
    assert msg.endswith(" (msl-sim)") == (backend == "msl-sim"), msg
    ok(cu.cuMemFree(d))


def test_misaligned_address_names_the_load(device):
    _, module = device
    d = ok(cu.cuMemAlloc(16))
    msg = _fault(module, "misaligned_load", 1, 1, (d,), (None,), R.CUDA_ERROR_MISALIGNED_ADDRESS)
    assert f"0x{int(d) + 2:x}" in msg, msg
    assert re.search(rf":{line_of('ld.global.u32 %r1, [%rd2]')}:\d+, instruction 'ld\.global\.u32'", msg), msg
    ok(cu.cuMemFree(d))


def test_a_rerun_that_faults_elsewhere_leaves_the_engines_report(device):
    """The store's address depends on memory the faulting launch changed: a rerun faults at another
    address, so its report (another fault) must not replace the one the launch found."""
    backend, module = device
    flag = ok(cu.cuMemAlloc(4))
    ok(cu.cuMemsetD32(flag, 0, 1))
    msg = _fault(module, "moving_target", 1, 1, (flag,), (None,), R.CUDA_ERROR_ILLEGAL_ADDRESS)
    assert "0x1000" in msg and "0x2000" not in msg, msg  # the launch's fault: flag 0 -> address 1 * 4096
    host = np.zeros(1, np.uint32)
    ok(cu.cuMemcpyDtoH(host.ctypes.data, flag, 4))
    if host[0] == 1:  # the CPU engine ran the launch (the tiered default's first launches): its report
        assert backend == "cpu" and "instruction 'st.global.u32'" in msg, msg
    else:  # compiled code faulted, its rerun (flag 1) at 0x2000: the compiled engine's report stands
        assert host[0] == 2, host
        assert "instruction" not in msg and "moving_target" in msg, msg
    ok(cu.cuMemFree(flag))
