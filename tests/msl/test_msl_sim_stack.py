"""msl-sim's fiber stacks: a kernel that overflows its thread's stack stops with a clear fault.

Each thread of a threadgroup is a fiber with its own stack (``CUMETAL_MSL_SIM_STACK_KB``, default
128 KiB, beyond the kernel's local memory) above a no-access guard; the emitted C++ is compiled with
``-fstack-clash-protection`` so a large frame touches the guard first. Before the guard, an overflow
wrote into whatever memory lay below the stack (seen: ``free(): invalid pointer`` aborting pytest).

The kernel keeps ``N`` loaded values live at once (each is used only after all were loaded, last
first), so g++ spills them to the stack: a frame of about ``4 * N`` bytes, over 4 KiB for N = 1500.
"""

from __future__ import annotations

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.driver.state import STATE

R = cu.CUresult
N = 1500
THREADS = 32


def _ptx(n: int) -> str:
    lines = [".version 8.0", ".target sm_80", ".address_size 64",
             ".visible .entry many_live(.param .u64 src, .param .u64 dst)", "{",
             f".reg .f32 %f<{n + 2}>;", ".reg .b32 %r<2>;", ".reg .b64 %rd<5>;",
             "ld.param.u64 %rd1, [src];", "ld.param.u64 %rd2, [dst];"]
    lines += [f"ld.volatile.global.f32 %f{i}, [%rd1+{4 * i}];" for i in range(n)]
    lines.append(f"mov.f32 %f{n}, 0f00000000;")
    lines += [f"fma.rn.f32 %f{n}, %f{n}, 0f3F000000, %f{i};" for i in reversed(range(n))]
    lines += ["mov.u32 %r1, %tid.x;", "mul.wide.u32 %rd3, %r1, 4;", "add.s64 %rd4, %rd2, %rd3;",
              f"st.global.f32 [%rd4], %f{n};", "ret;", "}"]
    return "\n".join(lines)


def _expected(src: np.ndarray) -> np.float32:
    acc = np.float32(0)
    for x in src[::-1]:  # acc * 0.5 is exact in f32 here, so the fma rounds once: the f32 sum
        acc = np.float32(acc * np.float32(0.5) + x)
    return acc


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture
def msl_sim(monkeypatch):
    monkeypatch.setenv("CUMETAL_BACKEND", "msl-sim")
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    for name, value in (("initialized", False), ("device", None), ("primary", None), ("primary_refs", 0)):
        monkeypatch.setattr(STATE, name, value)
    ok(cu.cuInit(0))
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(_ptx(N).encode())), b"many_live"))
    src = (np.arange(N, dtype=np.float32) % 97) * np.float32(0.25)
    d_src, d_dst = ok(cu.cuMemAlloc(src.nbytes)), ok(cu.cuMemAlloc(THREADS * 4))
    ok(cu.cuMemcpyHtoD(d_src, src, src.nbytes))
    yield fn, src, d_src, d_dst
    ok(cu.cuCtxDestroy(ctx))


def _launch(fn, d_src, d_dst):
    return cu.cuLaunchKernel(fn, 1, 1, 1, THREADS, 1, 1, 0, 0, ((d_src, d_dst), (None, None)), 0)[0]


def test_an_overflowing_kernel_faults_and_the_process_goes_on(msl_sim, monkeypatch):
    fn, src, d_src, d_dst = msl_sim
    monkeypatch.setenv("CUMETAL_MSL_SIM_STACK_KB", "4")
    assert _launch(fn, d_src, d_dst) == R.CUDA_ERROR_LAUNCH_FAILED
    msg = cu.last_error_message()
    assert "overflowed msl-sim's fiber stack (4 KiB" in msg and "many_live" in msg, msg
    assert cu.cuCtxSynchronize()[0] == R.CUDA_ERROR_LAUNCH_FAILED  # reported once more
    # the default stack holds the frame: the same launch runs, and is right
    monkeypatch.delenv("CUMETAL_MSL_SIM_STACK_KB")
    ok(cu.cuMemsetD32(d_dst, 0, THREADS))
    assert _launch(fn, d_src, d_dst) == R.CUDA_SUCCESS, cu.last_error_message()
    out = np.zeros(THREADS, np.float32)
    ok(cu.cuMemcpyDtoH(out, d_dst, out.nbytes))
    np.testing.assert_array_equal(out, np.full(THREADS, _expected(src), np.float32))


def test_a_bad_stack_size_is_said_and_the_default_used(msl_sim, monkeypatch, capfd):
    fn, src, d_src, d_dst = msl_sim
    monkeypatch.setenv("CUMETAL_MSL_SIM_STACK_KB", "lots")
    assert _launch(fn, d_src, d_dst) == R.CUDA_SUCCESS, cu.last_error_message()
    assert "CUMETAL_MSL_SIM_STACK_KB='lots' is not a size of at least 4 (KiB); using 128" in capfd.readouterr().err
    out = np.zeros(THREADS, np.float32)
    ok(cu.cuMemcpyDtoH(out, d_dst, out.nbytes))
    assert (out == _expected(src)).all()
