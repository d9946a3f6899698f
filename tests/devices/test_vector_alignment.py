"""A .v2/.v4/.b128 access is one access of its whole size: at an address aligned for its elements but
not for the whole (ld.global.v4.f32 at 8 mod 16), NVIDIA's load/store unit gives
CUDA_ERROR_MISALIGNED_ADDRESS (PTX ISA, "Vectors": vector accesses are aligned to their total size).
Every CPU engine and both Apple simulators check that now; before, only each element's own alignment
was checked on the numpy engine and msl-sim and the access went through. (Not in tests/functional:
Metal itself has no alignment fault to report.)"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import numpy as np
import pytest

from cumetal import driver as cu

HEAD = """.version 8.3
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 off)
{
  .reg .b64 %rd<10>; .reg .f32 %f<5>; .reg .b128 %q<2>;
  .shared .align 16 .b8 sm[64];
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [off];
  mov.u64 %rd3, sm;
  add.u64 %rd4, %rd1, %rd2;
  add.u64 %rd5, %rd3, %rd2;
  mov.f32 %f1, 0f3F800000; mov.f32 %f2, 0f40000000; mov.f32 %f3, 0f40400000; mov.f32 %f4, 0f40800000;
"""
BODIES = {
    # (access, its size): stores the values 1..4 (or their bits) at p + off (global) or sm + off (shared)
    ("st.global.v4.f32", 16): "st.global.v4.f32 [%rd4], {%f1, %f2, %f3, %f4};",
    ("st.global.v2.f32", 8): "st.global.v2.f32 [%rd4], {%f1, %f2};",
    ("ld.global.v4.f32", 16): "ld.global.v4.f32 {%f1, %f2, %f3, %f4}, [%rd4]; st.global.f32 [%rd1], %f2;",
    ("ld.global.b128", 16): "ld.global.b128 %q1, [%rd4]; st.global.b128 [%rd1], %q1;",
    ("st.shared.v4.f32", 16): "st.shared.v4.f32 [%rd5], {%f1, %f2, %f3, %f4}; ld.shared.f32 %f1, [%rd5+4];"
                              " st.global.f32 [%rd1], %f1;",
    ("ld.shared.v2.f32", 8): "st.shared.f32 [%rd5+4], %f3; ld.shared.v2.f32 {%f1, %f2}, [%rd5];"
                             " st.global.f32 [%rd1], %f2;",
}


def _ok(r):
    assert r[0] == cu.CUresult.CUDA_SUCCESS, r
    return r[1] if len(r) == 2 else r[1:]


@pytest.fixture
def ctx():
    _ok(cu.cuInit(0))
    c = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
    yield c
    cu.cuCtxDestroy(c)


def _launch(access: str, body: str, off: int):
    mod = _ok(cu.cuModuleLoadData((HEAD + "  " + body + "\n  ret;\n}\n").encode()))
    fn = _ok(cu.cuModuleGetFunction(mod, b"k"))
    buf = _ok(cu.cuMemAlloc(64))
    _ok((cu.cuMemsetD8(buf, 0, 64)[0], None))
    err, = cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((buf, off), (None, np.uint64)), 0)
    sync, = cu.cuCtxSynchronize()
    message = cu.last_error_message()  # before the next calls replace it
    out = np.zeros(16, np.float32)
    cu.cuMemcpyDtoH(out, buf, 64)
    cu.cuMemFree(buf)
    cu.cuModuleUnload(mod)
    return err, sync, out, message


@pytest.mark.parametrize(("access", "size"), list(BODIES))
def test_vector_access_must_be_aligned_to_its_whole_size(ctx, access, size, monkeypatch) -> None:
    monkeypatch.setenv("CUMETAL_QUIET", "1")
    body = BODIES[(access, size)]
    err, sync, _, message = _launch(access, body, size // 2)  # aligned for every element, not for the access
    assert cu.CUresult.CUDA_ERROR_MISALIGNED_ADDRESS in (err, sync), (access, err, sync)
    assert "misaligned" in message and "kernel k" in message, message
    err, sync, out, _ = _launch(access, body, size)  # aligned: runs
    assert (err, sync) == (cu.CUresult.CUDA_SUCCESS, cu.CUresult.CUDA_SUCCESS), access
    if access.startswith("st.global"):
        assert out[size // 4: size // 4 + size // 4].tolist() == [1.0, 2.0, 3.0, 4.0][: size // 4]
    elif access == "ld.shared.v2.f32":
        assert out[0] == 3.0
    elif access == "st.shared.v4.f32":
        assert out[0] == 2.0


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("g++") is None, reason="the simulators need gcc/g++")
@pytest.mark.parametrize("backend", ["cpu-jit", "air-sim", "msl-sim"])
def test_the_same_on_the_compiled_backend_and_the_simulators(backend: str) -> None:
    """The tests above in a process of their own on each other engine (the backend is chosen at cuInit)."""
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__, "-k",
                           "whole_size"], capture_output=True, text=True, timeout=900, check=False,
                          env=dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1"))
    assert proc.returncode == 0 and f"{len(BODIES)} passed" in proc.stdout, proc.stdout[-3000:] + proc.stderr[-2000:]
