"""The H100's double sincospi, exp and log as cuRAND's double normals take them (issue #15): the models of
cumetal.libs.curand.h100_f64 against NVIDIA's results recorded on an H100
(tests/libs/golden/curand_double_probe.npz, a sample of scripts/make_curand_double_probe.py's
recordings written by scripts/make_curand_double_fit.py golden), and libdevice's __nv_sincospi /
__nv_exp / __nv_log (kernels on the CPU backend) against the same model, bit for bit."""

from __future__ import annotations

import ctypes
import pathlib

import numpy as np
import pytest

from cumetal.libs.curand import h100_f64 as M

HERE = pathlib.Path(__file__).parent
REC = np.load(HERE / "golden" / "curand_double_probe.npz")
ROOT = HERE.parents[1]


def _identical(a: np.ndarray, b: np.ndarray) -> int:
    return int((a.view(np.uint64) == b.view(np.uint64)).sum())


def test_sincospi_model_matches_recorded_h100() -> None:
    """16,384 recorded inputs: the model's sin and cos are NVIDIA's bits on all but a few (a
    correctly rounded sinpi agrees with only ~80 % of the sines)."""
    v = REC["sincospi_v"]
    s, c = M.sincospi(v)
    assert _identical(s, REC["sincospi_s"]) >= 16360
    assert _identical(c, REC["sincospi_c"]) >= 16360
    # the rest are one ulp off
    for got, ref in ((s, REC["sincospi_s"]), (c, REC["sincospi_c"])):
        assert np.abs(got.view(np.int64) - ref.view(np.int64)).max() <= 1


def test_exp_model_matches_recorded_h100() -> None:
    x, y = REC["exp_x"], REC["exp_y"]
    got = M.exp(x)
    assert _identical(got, y) >= 8170  # of 8192; a correctly rounded exp: ~94 %
    assert np.abs(got.view(np.int64) - y.view(np.int64)).max() <= 1


def test_log_model_matches_recorded_h100() -> None:
    x, y = REC["log_x"], REC["log_y"]
    got = M.log(x)
    assert _identical(got, y) >= 8190  # of 8192 (1,572,820 of all 1,572,864 recorded); numpy's: ~99.7 %
    assert np.abs(got.view(np.int64) - y.view(np.int64)).max() <= 1


def test_box_muller_pairs_match_recorded_h100() -> None:
    """curand_normal2_double's pairs (4096 XORWOW threads recorded on the H100) from the recorded
    u, v through the models, and curand_log_normal_double = exp(fma(0.75, z, 0.5))."""
    sn, cs = M.sincospi(REC["bm_v"])
    s = np.sqrt(-2.0 * M.log(REC["bm_u"]))
    both = (sn * s == REC["bm_nx"]) & (cs * s == REC["bm_ny"])
    assert both.sum() >= 4070
    ln = M.exp(M.fma(np.full(4096, 0.75), REC["bm_nx"], np.full(4096, 0.5)))
    assert _identical(ln, REC["bm_ln"]) >= 4085


def test_libdevice_header_is_current() -> None:
    header = ROOT / "src" / "cumetal" / "libdevice" / "src" / "f64_h100.h"
    assert header.read_text() == M.c_header(), "regenerate: python -m cumetal.libs.curand.h100_f64 --header"


KERNEL = r"""
extern "C" __global__ void probe(const double *v, const double *x, const double *u, double *out, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;
    double s, c;
    sincospi(v[i], &s, &c);
    out[5 * i] = s;
    out[5 * i + 1] = c;
    out[5 * i + 2] = exp(x[i]);
    out[5 * i + 3] = sinpi(v[i]) == s && cospi(v[i]) == c ? 1.0 : 0.0;
    out[5 * i + 4] = log(u[i]);
}
"""


@pytest.mark.timeout(300)
def test_libdevice_equals_model() -> None:
    """Kernels get the same bits as the host model (CPU backend): sincospi/sinpi/cospi, exp and log."""
    from cumetal import driver as cu
    from cumetal.cudacxx.compile import compile_to_ptx
    from cumetal.cudacxx.options import CudaOptions

    def ok(result):  # noqa: ANN001, ANN202
        err, *values = result
        assert err == cu.CUresult.CUDA_SUCCESS, err
        return values[0] if len(values) == 1 else tuple(values)

    n = 2048
    v = np.concatenate([REC["sincospi_v"][:n - 8], [0.0, -0.0, 0.5, 1.0, -1.5, 2.0 ** 53, 3.0, -0.25]])
    x = np.concatenate([REC["exp_x"][:n - 6], [0.0, 708.0, -708.0, 709.5, -745.0, 1e-300]])
    u = np.concatenate([REC["log_x"][:n - 8], [1.0, 2.0, 0.5, 5e-324, 1e-310, 1.7e308, float.fromhex("0x1.6a09e667f3bcdp-1"), float.fromhex("0x1.6a09e667f3bccp-1")]])
    ptx = compile_to_ptx(KERNEL, "probe.cu", CudaOptions()).ptx
    ok(cu.cuInit(0))
    ctx = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    mod = ok(cu.cuModuleLoadData(ptx.encode()))
    out = np.zeros(5 * n)
    bufs = [ok(cu.cuMemAlloc(a.nbytes)) for a in (v, x, u, out)]
    for b, a in zip(bufs, (v, x, u), strict=False):
        ok(cu.cuMemcpyHtoD(b, a, a.nbytes))
    fn = ok(cu.cuModuleGetFunction(mod, b"probe"))
    err, = cu.cuLaunchKernel(fn, n // 128, 1, 1, 128, 1, 1, 0, 0,
                             ((*bufs, n), (None, None, None, None, ctypes.c_int)), 0)
    assert err == cu.CUresult.CUDA_SUCCESS
    ok(cu.cuCtxSynchronize())
    ok(cu.cuMemcpyDtoH(out, bufs[3], out.nbytes))
    for b in bufs:
        cu.cuMemFree(b)
    cu.cuModuleUnload(mod)
    cu.cuCtxDestroy(ctx)
    out = out.reshape(n, 5)
    s, c = M.sincospi(v)
    np.testing.assert_array_equal(out[:, 0].view(np.uint64), s.view(np.uint64))
    np.testing.assert_array_equal(out[:, 1].view(np.uint64), c.view(np.uint64))
    np.testing.assert_array_equal(out[:, 2].view(np.uint64), M.exp(x).view(np.uint64))
    assert out[:, 3].all()  # sinpi and cospi are sincospi's halves, as on the H100
    np.testing.assert_array_equal(out[:, 4].view(np.uint64), M.log(u).view(np.uint64))
