"""Where CuMetal's float normals differ from NVIDIA's (docs/libraries.md, "Where the float normals'
bits go"): tests/libs/golden/src/curand_normal_probe.cu built by CuMetal and run on the cpu device,
against the same program's records from an H100 (scripts/make_curand_normal_probe.py): the draws,
u and the fma'd angle v bit for bit; sqrtf of -2 logf(u) exact; the MUFU sine and cosine (__sinf,
__cosf, __sincosf) and logf (the black-box model of ir/semantics/logf.py) bit for bit, so the pairs
are NVIDIA's."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np
import pytest

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

HERE = pathlib.Path(__file__).parent
GOLDEN = np.load(HERE / "golden" / "curand_normal_probe.npz")["parts"]
N = 512  # of the 4096 recorded states (subsequence = thread): curand_init's jump costs the cpu engine


def ok(result):  # noqa: ANN001, ANN201
    err, *values = result
    assert err == cu.CUresult.CUDA_SUCCESS, err
    return values[0] if len(values) == 1 else tuple(values)


@pytest.fixture(scope="module")
def parts() -> np.ndarray:
    src = (HERE / "golden" / "src" / "curand_normal_probe.cu").read_text()
    ptx = compile_to_ptx(src, "curand_normal_probe.cu", CudaOptions()).ptx
    ok(cu.cuInit(0))
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(ptx.encode())), b"parts"))
    out = np.zeros(N, GOLDEN.dtype)
    d = ok(cu.cuMemAlloc(out.nbytes))
    ok(cu.cuLaunchKernel(fn, (N + 127) // 128, 1, 1, 128, 1, 1, 0, 0, ((d, N), (None, ctypes.c_int)), 0))
    ok(cu.cuCtxSynchronize())
    ok(cu.cuMemcpyDtoH(out.ctypes.data, d, out.nbytes))
    cu.cuCtxDestroy(ctx)
    return out


def test_draws_uniform_and_angle_bit_for_bit(parts: np.ndarray) -> None:
    ref = GOLDEN[:N]
    for k in ("x", "y", "u", "v"):
        np.testing.assert_array_equal(parts[k], ref[k], err_msg=k)
    np.testing.assert_array_equal(parts["s"], np.sqrt(np.float32(-2) * parts["logu"]))


def test_only_logf_and_the_mufu_differ(parts: np.ndarray) -> None:
    ref = GOLDEN[:N]
    same_log = parts["logu"] == ref["logu"]
    # NVIDIA's pair is s * (its __sincosf), s from its logf: with the H100's sine/cosine, CuMetal's s
    # gives NVIDIA's pair wherever the two logf agree
    for k, trig in (("nx", "sincos_s"), ("ny", "sincos_c")):
        model = (parts["s"] * ref[trig]).astype(np.float32)
        assert np.all(model[same_log] == ref[k][same_log]), k
    # the MUFU sine and cosine are NVIDIA's bit for bit (ir/semantics/mufu.py), and so is logf on
    # these draws (ir/semantics/logf.py; before the model: logf 93.4 %, pairs 97.0 / 97.1 %)
    for k in ("sin_v", "cos_v", "sincos_s", "sincos_c", "logu", "s", "nx", "ny"):
        np.testing.assert_array_equal(parts[k], ref[k], err_msg=k)
