"""cuBLASLt's training epilogues (cumetal.libs.cublas.lt through the C ABI's Python half) against
NVIDIA's libcublasLt on an H100 (tests/libs/golden/cublaslt_epilogues.npz, made by
scripts/make_llmc_cublaslt_goldens.py from the same seeded inputs): the ReLU bit-mask layout of
RELU_AUX_BIAS, the GELU input of GELU_AUX_BIAS, DRELU_BGRAD, DGELU_BGRAD and BGRADA (D and the
bias gradient); DRELU, DGELU and BGRADB, which the H100 refused for this problem's settings, against
float64 numpy."""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib

import numpy as np
import pytest
from tests.libs.device_array import Dev

from cumetal import runtime as rt
from cumetal.libs.cublas import lt_capi

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = np.load(ROOT / "tests" / "libs" / "golden" / "cublaslt_epilogues.npz")
_spec = importlib.util.spec_from_file_location("make_goldens", ROOT / "scripts" / "make_llmc_cublaslt_goldens.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)  # type: ignore[union-attr]
M, N, K, AUX_LD = gen.M, gen.N, gen.K, gen.AUX_LD
X = gen.inputs()


def _handle() -> int:
    out = ctypes.c_void_p()
    assert lt_capi.desc_create(ctypes.addressof(out), 68, 0) == 0  # COMPUTE_32F, R_32F
    return out.value


def _layout(rows: int, cols: int, ld: int) -> int:
    out = ctypes.c_void_p()
    assert lt_capi.layout_create(ctypes.addressof(out), 0, rows, cols, ld) == 0
    return out.value


def run(epi: int, aux: np.ndarray, aux_ld: int, bias: np.ndarray, ta: int = 0) -> tuple[int, Dev, Dev, Dev]:
    h = ctypes.c_void_p()
    assert lt_capi.create(ctypes.addressof(h)) == 0
    desc = _handle()
    A = X["A"] if ta == 0 else np.ascontiguousarray(X["A"].T)
    dA, dB = Dev(A), Dev(X["B"])
    dD, dAux, dBias = Dev(np.full((M, N), np.nan, np.float32)), Dev(aux), Dev(bias)
    for attr, value in ((gen.D_EPILOGUE, ctypes.c_int32(epi)), (gen.D_BIAS, ctypes.c_uint64(dBias.ptr)),
                        (gen.D_AUX, ctypes.c_uint64(dAux.ptr)), (gen.D_AUX_LD, ctypes.c_int64(aux_ld)),
                        (gen.D_TRANSA, ctypes.c_int32(ta))):
        assert lt_capi.obj_set(0, desc, attr, ctypes.addressof(value), ctypes.sizeof(value)) == 0
    la = _layout(*A.shape, A.shape[0])
    lb, ld = _layout(K, N, K), _layout(M, N, M)
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    st = lt_capi.matmul(h.value, desc, ctypes.addressof(alpha), dA.ptr, la, dB.ptr, lb, ctypes.addressof(beta),
                        dD.ptr, ld, dD.ptr, ld, 0)
    rt.cudaDeviceSynchronize()
    return st, dD, dAux, dBias


P = X["A"].astype(np.float64) @ X["B"].astype(np.float64)
PB = P + X["bias"].astype(np.float64)[:, None]


def test_relu_aux_bias_writes_nvidias_bit_mask() -> None:
    st, d, aux, _ = run(134, np.zeros(AUX_LD * N // 8, np.uint8), AUX_LD, X["bias"])
    assert st == 0 and GOLDEN["RELU_AUX_BIAS/status"][0] == 0
    np.testing.assert_allclose(d.get(), GOLDEN["RELU_AUX_BIAS/D"], rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(aux.get(), GOLDEN["RELU_AUX_BIAS/aux"])
    bits = np.unpackbits(aux.get(), bitorder="little").reshape(N, AUX_LD).T[:M]
    np.testing.assert_array_equal(bits, PB > 0)
    # a mask's leading dimension is in bits and must be a multiple of 128, as cuBLASLt requires
    assert run(134, np.zeros(AUX_LD * N // 8, np.uint8), AUX_LD + 8, X["bias"])[0] == 7


def test_gelu_aux_bias_stores_the_gelu_input() -> None:
    st, d, aux, _ = run(164, np.zeros((AUX_LD, N), np.float32), AUX_LD, X["bias"])
    assert st == 0
    np.testing.assert_allclose(d.get(), GOLDEN["GELU_AUX_BIAS/D"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(aux.get(), GOLDEN["GELU_AUX_BIAS/aux"].reshape(N, AUX_LD).T, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("epi,name", [(152, "DRELU_BGRAD"), (136, None)])
def test_relu_gradient(epi: int, name: str | None) -> None:
    mask = GOLDEN["RELU_AUX_BIAS/aux"]  # a non-trivial mask from NVIDIA's forward pass
    st, d, _, bias = run(epi, mask, AUX_LD, np.full(M, -7.0, np.float32))
    assert st == 0
    keep = np.unpackbits(mask, bitorder="little").reshape(N, AUX_LD).T[:M].astype(bool)
    np.testing.assert_allclose(d.get(), P * keep, rtol=1e-5, atol=1e-5)
    if name:  # NVIDIA's run had an all-zero mask: its D and bias gradient are 0, ours too on that input
        st0, d0, _, b0 = run(epi, GOLDEN[f"{name}/aux"], AUX_LD, np.full(M, -7.0, np.float32))
        np.testing.assert_array_equal(d0.get(), GOLDEN[f"{name}/D"])
        np.testing.assert_array_equal(b0.get(), GOLDEN[f"{name}/bias"][:M])
        np.testing.assert_allclose(bias.get(), (P * keep).sum(axis=1), rtol=1e-5, atol=1e-4)


@pytest.mark.parametrize("epi", [208, 192])
def test_gelu_gradient(epi: int) -> None:
    st, d, _, bias = run(epi, X["gelu_in"], M, np.full(M, -7.0, np.float32))
    assert st == 0
    np.testing.assert_allclose(d.get(), GOLDEN["DGELU_BGRAD/D"], rtol=1e-4, atol=2e-4)
    if epi == 208:
        np.testing.assert_allclose(bias.get(), GOLDEN["DGELU_BGRAD/bias"][:M], rtol=1e-4, atol=5e-4)


def test_bias_gradients_of_the_inputs() -> None:
    st, d, _, bias = run(256, np.zeros(1, np.float32), M, np.full(max(M, N), -7.0, np.float32))
    assert st == 0
    np.testing.assert_allclose(d.get(), GOLDEN["BGRADA/D"], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(bias.get()[:M], GOLDEN["BGRADA/bias"][:M], rtol=1e-5, atol=1e-5)
    st, d, _, bias = run(256, np.zeros(1, np.float32), M, np.full(max(M, N), -7.0, np.float32), ta=1)  # op(A) = A^T
    np.testing.assert_allclose(bias.get()[:M], X["A"].astype(np.float64).sum(axis=1), rtol=1e-5, atol=1e-5)
    st, d, _, bias = run(512, np.zeros(1, np.float32), M, np.full(max(M, N), -7.0, np.float32))
    assert st == 0
    np.testing.assert_allclose(bias.get()[:N], X["B"].astype(np.float64).sum(axis=0), rtol=1e-5, atol=1e-5)
    np.testing.assert_array_equal(bias.get()[N:], -7.0)  # one value per column of D, nothing more


@pytest.mark.parametrize("aux_type", [None, 0])
def test_gelu_aux_data_type(aux_type: int | None) -> None:
    """EPILOGUE_AUX_DATA_TYPE: a bf16 matmul keeps the GELU input in bf16 by default (D's type) or in
    float32 when the attribute says CUDA_R_32F; D is GELU of it, rounded once to bf16."""
    from cumetal.libs.cublas import gemmex  # noqa: PLC0415

    h = ctypes.c_void_p()
    assert lt_capi.create(ctypes.addressof(h)) == 0
    desc = _handle()
    a16, b16 = gemmex.f32_to_bf16(X["A"]), gemmex.f32_to_bf16(X["B"])
    a, b = gemmex.bf16_to_f32(a16).astype(np.float64), gemmex.bf16_to_f32(b16).astype(np.float64)
    dA, dB, dD = Dev(a16), Dev(b16), Dev(np.zeros((M, N), np.uint16))
    dAux = Dev(np.zeros((M, N), np.float32 if aux_type == 0 else np.uint16))
    settings = [(gen.D_EPILOGUE, ctypes.c_int32(160)), (gen.D_AUX, ctypes.c_uint64(dAux.ptr)),
                (gen.D_AUX_LD, ctypes.c_int64(M))]
    if aux_type is not None:
        settings.append((22, ctypes.c_int32(aux_type)))
    for attr, value in settings:
        assert lt_capi.obj_set(0, desc, attr, ctypes.addressof(value), ctypes.sizeof(value)) == 0
    layouts = []
    for rows, cols in ((M, K), (K, N), (M, N)):
        out = ctypes.c_void_p()
        assert lt_capi.layout_create(ctypes.addressof(out), 14, rows, cols, rows) == 0
        layouts.append(out.value)
    alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
    assert lt_capi.matmul(h.value, desc, ctypes.addressof(alpha), dA.ptr, layouts[0], dB.ptr, layouts[1],
                          ctypes.addressof(beta), dD.ptr, layouts[2], dD.ptr, layouts[2], 0) == 0
    pre = a @ b
    aux = dAux.get()
    aux = aux.astype(np.float64) if aux_type == 0 else gemmex.bf16_to_f32(aux).astype(np.float64)
    np.testing.assert_allclose(aux, pre, rtol=1e-5 if aux_type == 0 else 8e-3, atol=1e-5)
    if aux_type == 0:
        assert not np.array_equal(aux, gemmex.bf16_to_f32(gemmex.f32_to_bf16(aux.astype(np.float32))))
    gelu = 0.5 * pre * (1 + np.tanh(0.7978845608028654 * (pre + 0.044715 * pre ** 3)))
    np.testing.assert_allclose(gemmex.bf16_to_f32(dD.get()), gelu, rtol=8e-3, atol=1e-2)
