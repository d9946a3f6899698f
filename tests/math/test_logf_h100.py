"""logf is the H100's (issue #15): the black-box model (ir/semantics/logf.py, the library's
logf_h100.h) against NVIDIA's results recorded on an H100 (tests/math/golden/logf_h100.npz, made by
scripts/make_logf_fit.py sample from scripts/make_logf_recordings.py's recordings): 5,018 recorded
inputs (random bit patterns, specials, [0.5, 2), 2^-33, subnormals) bit for bit, and every input of
all 2^32 where the model still differs (checked on the H100: 3,729, each by one ulp)."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.ir.semantics.logf import logf_bits

GOLDEN = np.load(pathlib.Path(__file__).parent / "golden" / "logf_h100.npz")


def _ordered(bits: np.ndarray) -> np.ndarray:
    mag = (bits & 0x7FFFFFFF).astype(np.int64)
    return np.where(bits >> 31 != 0, -mag, mag)


def test_model_equals_the_h100_on_the_recorded_inputs() -> None:
    x, y = GOLDEN["x"], GOLDEN["y"]
    np.testing.assert_array_equal(logf_bits(x), y)


def test_the_only_differences_on_all_inputs_are_one_ulp() -> None:
    mx, my = GOLDEN["miss_x"], GOLDEN["miss_y"]
    assert len(mx) == int(GOLDEN["miss_count"][0]) == 3729
    got = logf_bits(mx)
    assert np.all(got != my)
    assert np.all(np.abs(_ordered(got) - _ordered(my)) == 1)


def test_special_values() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, -1.0, np.nan, 1.0, 2.0 ** -149], np.float32)
    got = logf_bits(x.view(np.uint32))
    want = [0xFF800000, 0xFF800000, 0x7F800000, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0, 0xC2CE8ED0]
    assert got.tolist() == want


def _ok(result):  # noqa: ANN001, ANN201
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, err
    return values[0] if len(values) == 1 else tuple(values)


@pytest.mark.parametrize("ftz", [False, True])
def test_library_logf_is_the_model(ftz: bool) -> None:
    """CUDA C++ logf (libdevice's __nv_logf) on the cpu device gives the model's bits (-ftz=true:
    subnormal arguments are zero)."""
    x = np.concatenate([GOLDEN["x"], GOLDEN["miss_x"]])
    src = 'extern "C" __global__ void k(const float *x, float *y, int n) {\n' \
          '  int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) y[i] = logf(x[i]); }\n'
    ptx = compile_to_ptx(src, "logf_h100.cu", CudaOptions(ftz=ftz)).ptx
    _ok(cu.cuInit(0))
    ctx = _ok(cu.cuCtxCreate(None, 0, _ok(cu.cuDeviceGet(0))))
    try:
        fn = _ok(cu.cuModuleGetFunction(_ok(cu.cuModuleLoadData(ptx.encode())), b"k"))
        n = len(x)
        dx, dy = _ok(cu.cuMemAlloc(x.nbytes)), _ok(cu.cuMemAlloc(x.nbytes))
        _ok(cu.cuMemcpyHtoD(dx, x.ctypes.data, x.nbytes))
        _ok(cu.cuLaunchKernel(fn, (n + 255) // 256, 1, 1, 256, 1, 1, 0, 0,
                              ((dx, dy, n), (None, None, ctypes.c_int)), 0))
        _ok(cu.cuCtxSynchronize())
        y = np.zeros(n, np.uint32)
        _ok(cu.cuMemcpyDtoH(y.ctypes.data, dy, y.nbytes))
    finally:
        cu.cuCtxDestroy(ctx)
    xin = x.copy()
    if ftz:
        sub = (x & 0x7F800000) == 0
        xin[sub] &= 0x80000000
    np.testing.assert_array_equal(y, logf_bits(xin))
