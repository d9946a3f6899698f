"""cuBLASLt's FP8 matmul (scale pointers, AMAX_D, FP8 outputs), its alpha-vector pointer mode, the
COL32 order, cublasLtMatrixTransform and CUDA_C_8I GEMMs against NVIDIA's libraries on an H100
(tests/libs/golden/cublaslt_fp8.npz, made by scripts/make_cublaslt_fp8_goldens.py from the same
seeded inputs) and against exact float64 numpy. Every status NVIDIA returned — accepted and refused
combinations — is CuMetal's too."""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib

import numpy as np
import pytest
from tests.libs.device_array import Dev

from cumetal import runtime as rt
from cumetal.libs.cublas import capi, fp8, lt_capi

ROOT = pathlib.Path(__file__).resolve().parents[2]
GOLDEN = np.load(ROOT / "tests" / "libs" / "golden" / "cublaslt_fp8.npz")
_spec = importlib.util.spec_from_file_location("make_fp8", ROOT / "scripts" / "make_cublaslt_fp8_goldens.py")
gen = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen)  # type: ignore[union-attr]
M, N, K = gen.M, gen.N, gen.K
X = gen.inputs()
F32, F16, BF16, I8, E4M3, E5M2 = gen.F32, gen.F16, gen.BF16, gen.I8, gen.E4M3, gen.E5M2
NP = {F32: np.float32, F16: np.float16, BF16: np.uint16, E4M3: np.uint8, E5M2: np.uint8, I8: np.int8,
      10: np.int32}


def _new(fn, *args: int) -> int:  # noqa: ANN001
    out = ctypes.c_void_p()
    assert fn(ctypes.addressof(out), *args) == 0
    return out.value


def _layout(t: int, rows: int, cols: int, ld: int, **attrs: ctypes._SimpleCData) -> int:
    lay = _new(lt_capi.layout_create, t, rows, cols, ld)
    for attr, value in attrs.items():
        assert lt_capi.obj_set(1, lay, {"order": 1, "batch": 5, "stride": 6}[attr], ctypes.addressof(value),
                               ctypes.sizeof(value)) == 0
    return lay


def _dset(desc: int, attr: int, value: ctypes._SimpleCData) -> None:
    assert lt_capi.obj_set(0, desc, attr, ctypes.addressof(value), ctypes.sizeof(value)) == 0


HANDLE = _new(lt_capi.create)


def _decode(d: np.ndarray, code: int) -> np.ndarray:
    if code == BF16:
        return (d.astype(np.uint32) << 16).view(np.float32).astype(np.float64)
    if code in (E4M3, E5M2):
        return fp8.values(code)[d]
    return d.astype(np.float64)


def run_fp8_case(name: str) -> tuple[int, np.ndarray, float]:
    at, bt, ct, dt, ta, extra = gen.FP8_CASES[name]
    desc = _new(lt_capi.desc_create, 68, F32)
    _dset(desc, gen.D_TRANSA, ctypes.c_int32(ta))
    if at in (F32, BF16):
        a_host = X["A_f32"] if ta == 0 else X["A_f32"].T
        a_host = gen.f32_to_bf16(a_host) if at == BF16 else a_host
        b_host = gen.f32_to_bf16(X["B_f32"]) if bt == BF16 else X["B_f32"]
    else:
        a_host = X["A_e4m3" if at == E4M3 else "A_e5m2"]
        a_host = a_host if ta == 1 else np.ascontiguousarray(a_host.T)
        b_host = X["B_e4m3" if bt == E4M3 else "B_e5m2"]
    dA, dB = Dev(a_host), Dev(b_host)
    c_host = X["C_f32"] if ct == F32 else (gen.f32_to_bf16(X["C_f32"]) if ct == BF16 else X["C_f32"].astype(np.float16))
    dC = Dev(c_host)
    dD = Dev(np.full((M, N), 0x7F if dt in (E4M3, E5M2) else 0, NP[dt]))
    la = _layout(at, *a_host.shape, a_host.shape[0])
    lb, lc, ld_ = _layout(bt, K, N, K), _layout(ct, M, N, M), _layout(dt, M, N, M)
    keep = []
    for i, s in enumerate(extra.get("scales", ())):
        if s:
            keep.append(Dev(np.array([s], np.float32)))
            _dset(desc, (gen.D_A_SCALE, gen.D_B_SCALE, gen.D_C_SCALE, gen.D_D_SCALE)[i], ctypes.c_uint64(keep[-1].ptr))
    for i, on in enumerate(extra.get("outer", ())):
        if on:
            keep.append(Dev(X["scale_a_vec" if i == 0 else "scale_b_vec"]))
            _dset(desc, (gen.D_A_SCALE, gen.D_B_SCALE)[i], ctypes.c_uint64(keep[-1].ptr))
            _dset(desc, (gen.D_A_SCALE_MODE, gen.D_B_SCALE_MODE)[i], ctypes.c_int32(gen.OUTER_VEC_32F))
    amax = Dev(np.full(1, -1.0, np.float32))
    if extra.get("amax"):
        _dset(desc, gen.D_AMAX_D, ctypes.c_uint64(amax.ptr))
    if "epilogue" in extra:
        _dset(desc, gen.D_EPILOGUE, ctypes.c_int32(extra["epilogue"]))
        if "bias_type" in extra:
            keep.append(Dev(gen.f32_to_bf16(X["bias_f32"]) if extra["bias_type"] == BF16 else X["bias_f32"]))
            _dset(desc, gen.D_BIAS, ctypes.c_uint64(keep[-1].ptr))
            _dset(desc, gen.D_BIAS_TYPE, ctypes.c_int32(extra["bias_type"]))
    alpha, beta = ctypes.c_float(extra.get("alpha", 1.0)), ctypes.c_float(extra.get("beta", 0.0))
    st = lt_capi.matmul(HANDLE, desc, ctypes.addressof(alpha), dA.ptr, la, dB.ptr, lb, ctypes.addressof(beta), dC.ptr,
                        lc, dD.ptr, ld_, 0)
    rt.cudaDeviceSynchronize()
    return st, dD.get(), float(amax.get()[0])


def exact(name: str) -> np.ndarray:
    """alpha·scaleA·scaleB·op(A)op(B) + beta·scaleC·C in float64 (before the D scale)."""
    at, bt, ct, _dt, _ta, extra = gen.FP8_CASES[name]
    a = fp8.values(at)[X["A_e4m3" if at == E4M3 else "A_e5m2"]]
    b = fp8.values(bt)[X["B_e4m3" if bt == E4M3 else "B_e5m2"]]
    sa, sb, sc, _sd = (v or 1.0 for v in extra.get("scales", (0, 0, 0, 0)))
    c = _decode(gen.f32_to_bf16(X["C_f32"]), BF16) if ct == BF16 else X["C_f32"].astype(
        np.float16 if ct == F16 else np.float32).astype(np.float64)
    if extra.get("outer") == (1, 1):  # OUTER_VEC_32F: a[i] · b[j]
        sa = X["scale_a_vec"].astype(np.float64)[:, None]
        sb = X["scale_b_vec"].astype(np.float64)[None, :]
    return extra.get("alpha", 1.0) * sa * sb * (a.T @ b) + extra.get("beta", 0.0) * sc * c


@pytest.mark.parametrize("name", list(gen.FP8_CASES))
def test_fp8_and_scale_pointers_as_nvidia(name: str) -> None:
    st, d, amax = run_fp8_case(name)
    assert st == int(GOLDEN[f"{name}/status"][0]), (st, GOLDEN[f"{name}/status"])
    if st:
        return
    at, _bt, _ct, dt, _ta, extra = gen.FP8_CASES[name]
    ours, theirs = _decode(d, dt), _decode(GOLDEN[f"{name}/D"], dt)
    if dt in (E4M3, E5M2):
        # NVIDIA's FP8 tensor cores accumulate with fewer bits than float32: values within a rounding of
        # an FP8 tie may take the neighbouring code; everything else is the same byte
        same = d == GOLDEN[f"{name}/D"]
        assert same.mean() >= 0.99, same.mean()
        step = np.abs(d.astype(np.int16) - GOLDEN[f"{name}/D"].astype(np.int16))
        assert step.max() <= 1
        sd = extra["scales"][3] or 1.0
        assert np.array_equal(d, fp8.encode(exact(name) * sd, dt))  # round to nearest even, saturating
        assert abs(amax - float(GOLDEN[f"{name}/amax"][0])) <= 1e-4 * abs(amax)
        assert amax == pytest.approx(np.abs(exact(name)).max(), rel=1e-6)
        return
    scale = np.abs(theirs).max()
    tol = {F32: 2e-4, F16: 2e-3, BF16: 8e-3}[dt]
    assert np.abs(ours - theirs).max() <= tol * scale, np.abs(ours - theirs).max() / scale
    if "epilogue" not in extra:
        ref = exact(name)
        if dt == F32 and "outer" not in extra:  # exact products and sums, rounded once
            assert np.array_equal(d, ref.astype(np.float32))
        else:
            assert np.abs(ours - ref).max() <= tol * scale


ALPHA_CONFIGS = {"f32": (F32, F32, 68, F32, 0), "i8_i32": (I8, 10, 72, F32, 1), "i8_i8": (I8, I8, 72, F32, 1)}


@pytest.mark.parametrize("key", [f"{c}_{m}{b}" for c in ALPHA_CONFIGS for m in
                                 ("host", "device_vector", "alpha_vec_beta_zero", "alpha_vec_beta_host")
                                 for b in ("", "_batched")])
def test_pointer_modes_as_nvidia(key: str) -> None:
    cname = next(c for c in ALPHA_CONFIGS if key.startswith(c + "_"))
    abt, cdt, compute, scale, ta = ALPHA_CONFIGS[cname]
    mode_name = key[len(cname) + 1:].removesuffix("_batched")
    mode = {"host": 0, "device_vector": 2, "alpha_vec_beta_zero": 3, "alpha_vec_beta_host": 4}[mode_name]
    batched = key.endswith("_batched")
    if abt == F32:
        dA, dB = Dev(X["A_f32"]), Dev(X["B_f32"])
    else:
        dA, dB = Dev(X["A_i8"]), Dev(X["B_i8"])
    c_np = {F32: X["C_f32"], 10: X["C_i8"].astype(np.int32), I8: X["C_i8"]}[cdt]
    dC = Dev(c_np)
    desc = _new(lt_capi.desc_create, compute, scale)
    _dset(desc, gen.D_POINTER_MODE, ctypes.c_int32(mode))
    _dset(desc, gen.D_TRANSA, ctypes.c_int32(ta))
    nb = 2 if batched else 1
    extra = {"batch": ctypes.c_int32(2)} if batched else {}
    la = _layout(abt, K, M, K, **extra) if ta else _layout(abt, M, K, M, **extra)
    lb, lc = _layout(abt, K, N, K, **extra), _layout(cdt, M, N, M, **extra)
    ld_ = _layout(cdt, M, N, M, **extra, **({"stride": ctypes.c_int64(M * N)} if batched else {}))
    if batched:
        _dset(desc, gen.D_ALPHA_VEC_STRIDE, ctypes.c_int64(M))
    dD = Dev(np.zeros((M, nb * N), c_np.dtype))
    valpha, vbeta = Dev(X["alpha_vec"]), Dev(X["beta_vec"])
    host_alpha, host_beta = ctypes.c_float(0.75), ctypes.c_float(0.5)
    alpha_p = ctypes.addressof(host_alpha) if mode == 0 else valpha.ptr
    beta_p = vbeta.ptr if mode == 2 else ctypes.addressof(host_beta)
    st = lt_capi.matmul(HANDLE, desc, alpha_p, dA.ptr, la, dB.ptr, lb, beta_p, dC.ptr, lc, dD.ptr, ld_, 0)
    assert st == int(GOLDEN[f"{key}/status"][0])
    if st:
        return
    ours = dD.get().reshape(M, nb, N).transpose(1, 0, 2)
    theirs = GOLDEN[f"{key}/D"]
    if abt == I8:  # integer products exact, alpha·P + beta·C rounded to nearest even and saturated: identical
        assert np.array_equal(ours, theirs)
        a, b = X["A_i8"].astype(np.float64), X["B_i8"].astype(np.float64)
        for i in range(nb):
            alpha = X["alpha_vec"][i * M:(i + 1) * M, None].astype(np.float64) if mode == 4 else 0.75
            ref = np.clip(np.rint(alpha * (a.T @ b) + 0.5 * X["C_i8"]), -128, 127)
            assert np.array_equal(ours[i], ref)
    else:
        assert np.abs(ours - theirs).max() < 1e-5 * np.abs(theirs).max()


def test_col32_transform_as_nvidia() -> None:
    t = X["T_i8"]
    src, dst = Dev(t), Dev(np.full(2 * 32 * 5, 0x55, np.uint8))
    tdesc = _new(lt_capi.transform_desc_create, F32)
    l_src, l_dst = _layout(I8, 5, 40, 5), _layout(I8, 5, 40, 32 * 5, order=ctypes.c_int32(2))
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    st = lt_capi.transform(HANDLE, tdesc, ctypes.addressof(one), src.ptr, l_src, ctypes.addressof(zero), 0, 0,
                           dst.ptr, l_dst, 0)
    assert st == 0 == int(GOLDEN["col32/status"][0])
    out = dst.get()
    assert np.array_equal(out, GOLDEN["col32/out"])  # tiles of 32 columns, row-major inside, padding zeroed
    assert out.view(np.int8)[160 + 3 * 32 + 7] == t[3, 39]
    # back to column-major through the same transform, and a COL32 matmul operand reads the same values
    back = Dev(np.zeros((5, 40), np.int8))
    st = lt_capi.transform(HANDLE, tdesc, ctypes.addressof(one), dst.ptr, l_dst, ctypes.addressof(zero), 0, 0,
                           back.ptr, l_src, 0)
    assert st == 0 and np.array_equal(back.get(), t)


def test_float_transform_with_transposes_as_nvidia() -> None:
    tdesc = _new(lt_capi.transform_desc_create, F32)
    for attr in (2, 3):  # TRANSA = TRANSB = T
        v = ctypes.c_int32(1)
        assert lt_capi.obj_set(3, tdesc, attr, ctypes.addressof(v), 4) == 0
    a, b, out = Dev(X["T_a"]), Dev(X["T_b"]), Dev(np.full(54, np.nan, np.float32))
    l_a, l_b, l_c = _layout(F32, 6, 9, 6), _layout(F32, 6, 9, 6), _layout(F32, 9, 6, 6, order=ctypes.c_int32(1))
    al, be = ctypes.c_float(2.0), ctypes.c_float(-0.5)
    st = lt_capi.transform(HANDLE, tdesc, ctypes.addressof(al), a.ptr, l_a, ctypes.addressof(be), b.ptr, l_b, out.ptr,
                           l_c, 0)
    assert st == int(GOLDEN["transform_f32/status"][0]) == 0
    ref = (2.0 * X["T_a"].T.astype(np.float64) - 0.5 * X["T_b"].T).astype(np.float32)  # row-major 9 x 6
    np.testing.assert_allclose(out.get().reshape(9, 6), ref, rtol=0, atol=1e-6)
    np.testing.assert_allclose(out.get(), GOLDEN["transform_f32/out"], rtol=0, atol=1e-6)
    # mismatched shapes are INVALID_VALUE, as NVIDIA's library answered the first recording's mistake
    assert lt_capi.transform(HANDLE, tdesc, ctypes.addressof(al), a.ptr, l_a, ctypes.addressof(be), b.ptr,
                             _layout(F32, 9, 6, 9), out.ptr, l_c, 0) == 7


@pytest.mark.parametrize("name", ["cgemmex_c8i", "gemmex_c8i"])
def test_c8i_gemm_as_nvidia(name: str) -> None:
    h = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(h)) == 0
    a = np.ascontiguousarray(X["C8I_a"].transpose(1, 0, 2)).view(np.int16)[..., 0].T  # column-major pairs
    b = np.ascontiguousarray(X["C8I_b"].transpose(1, 0, 2)).view(np.int16)[..., 0].T
    dA, dB, dC = Dev(a), Dev(b), Dev(np.zeros((M, N), np.complex64))
    al, be = (ctypes.c_float * 2)(1.0, 0.0), (ctypes.c_float * 2)(0.0, 0.0)
    args = [h.value, 0, 0, M, N, K, ctypes.addressof(al), dA.ptr, 7, M, dB.ptr, 7, K, ctypes.addressof(be), dC.ptr,
            4, M]
    st = capi.cgemm_ex(*args) if name == "cgemmex_c8i" else capi.gemm_ex(*args, 68, -1)
    assert st == int(GOLDEN[f"{name}/status"][0]) == 0
    golden = GOLDEN[f"{name}/C"]
    ref = (X["C8I_a"][..., 0] + 1j * X["C8I_a"][..., 1]) @ (X["C8I_b"][..., 0] + 1j * X["C8I_b"][..., 1])
    assert np.array_equal(dC.get(), golden[..., 0] + 1j * golden[..., 1])
    assert np.array_equal(dC.get(), ref)
    # C_8I needs A and B both C_8I, C C_32F, COMPUTE_32F: anything else is NOT_SUPPORTED
    bad = list(args)
    bad[11] = 4
    assert (capi.cgemm_ex(*bad) if name == "cgemmex_c8i" else capi.gemm_ex(*bad, 68, -1)) == 15
    if name == "gemmex_c8i":
        assert capi.gemm_ex(*args, 70, -1) == 15  # COMPUTE_64F


def test_heuristics_cache_capacity_default_is_nvidias() -> None:
    cap = ctypes.c_size_t()
    assert lt_capi.heuristics_cache(1, ctypes.addressof(cap)) == 0
    assert [0, cap.value] == list(GOLDEN["heuristics_cache"])


def test_row_and_col32_orders_in_a_matmul() -> None:
    """A row-major A, a COL32 D (and C): D = A B as numpy computes it, the COL32 padding zero-filled."""
    m, n, k = 5, 40, 7
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((m, k)).astype(np.float32), rng.standard_normal((k, n)).astype(np.float32)
    dA, dB = Dev(np.ascontiguousarray(a).ravel()), Dev(b)
    dD = Dev(np.full(2 * 32 * m, np.nan, np.float32))
    desc = _new(lt_capi.desc_create, 68, F32)
    la = _layout(F32, m, k, k, order=ctypes.c_int32(1))
    lb, lcd = _layout(F32, k, n, k), _layout(F32, m, n, 32 * m, order=ctypes.c_int32(2))
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    assert lt_capi.matmul(HANDLE, desc, ctypes.addressof(one), dA.ptr, la, dB.ptr, lb, ctypes.addressof(zero), dD.ptr,
                          lcd, dD.ptr, lcd, 0) == 0
    out = dD.get()
    ref = a.astype(np.float64) @ b
    got = np.array([[out[(c // 32) * 32 * m + 32 * r + c % 32] for c in range(n)] for r in range(m)])
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-5)
    assert np.all(out[32 * m:].reshape(m, 32)[:, n - 32:] == 0)
    # COL4_4R2_8C is refused, as the other orders CuMetal does not implement
    l_other = _layout(F32, m, n, 32 * m, order=ctypes.c_int32(3))
    assert lt_capi.matmul(HANDLE, desc, ctypes.addressof(one), dA.ptr, la, dB.ptr, lb, ctypes.addressof(zero), dD.ptr,
                          l_other, dD.ptr, l_other, 0) == 15


@pytest.mark.parametrize("hermitian", [0, 1])
@pytest.mark.parametrize("uplo,trans", [(0, 0), (1, 1)])
def test_c8i_syrk_herk_against_numpy(hermitian: int, uplo: int, trans: int) -> None:
    """cublasCsyrkEx / CherkEx with a CUDA_C_8I A (cuBLAS's documented types): the uplo triangle of
    alpha op(A) op(A)^T (or ^H, real alpha/beta and a real diagonal) + beta C, the other one untouched."""
    h = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(h)) == 0
    n, k = 5, 3
    op = (2 if hermitian else 1) if trans else 0
    rng = np.random.default_rng(11)
    pairs = rng.integers(-9, 9, (n, k, 2) if op == 0 else (k, n, 2)).astype(np.int8)
    a = np.ascontiguousarray(pairs.transpose(1, 0, 2)).view(np.int16)[..., 0].T
    x = pairs[..., 0] + 1j * pairs[..., 1]
    c0 = (rng.standard_normal((n, n)) + 1j * rng.standard_normal((n, n))).astype(np.complex64)
    dA, dC = Dev(a), Dev(c0)
    if hermitian:
        al, be = ctypes.c_float(0.5), ctypes.c_float(2.0)
        opx = x if op == 0 else x.conj().T
        full = 0.5 * opx @ opx.conj().T + 2.0 * c0.astype(np.complex128)
        np.fill_diagonal(full, full.diagonal().real)
    else:
        al, be = (ctypes.c_float * 2)(0.5, -1.0), (ctypes.c_float * 2)(2.0, 0.0)
        opx = x if op == 0 else x.T
        full = (0.5 - 1j) * opx @ opx.T + 2.0 * c0.astype(np.complex128)
    st = capi.csyrk_ex(h.value, uplo, op, n, k, ctypes.addressof(al), dA.ptr, 7, a.shape[0], ctypes.addressof(be),
                       dC.ptr, 4, n, hermitian)
    assert st == 0
    got = dC.get()
    tri = np.tril(np.ones((n, n), bool)) if uplo == 0 else np.triu(np.ones((n, n), bool))
    np.testing.assert_allclose(got[tri], full[tri], rtol=1e-6, atol=1e-5)
    assert np.array_equal(got[~tri], c0[~tri])
    wrong = 1 if hermitian else 2  # herk takes N/C, syrk N/T
    assert capi.csyrk_ex(h.value, uplo, wrong, n, k, ctypes.addressof(al), dA.ptr, 7, n, ctypes.addressof(be),
                         dC.ptr, 4, n, hermitian) == 7


def test_pointer_array_batches() -> None:
    """CUBLASLT_BATCH_MODE_POINTER_ARRAY: A and D given as device arrays of per-batch pointers (read at
    the call), B strided and C shared (batch count 1): each D_i = A_i B_i + C, as numpy computes."""
    m, n, k, nb = 4, 3, 5, 3
    rng = np.random.default_rng(9)
    As = [rng.standard_normal((m, k)).astype(np.float32) for _ in range(nb)]
    Bs = rng.standard_normal((nb, n, k)).astype(np.float32)  # column-major k x n each, stride k*n
    c = rng.standard_normal((m, n)).astype(np.float32)
    dAs = [Dev(a) for a in As]
    dDs = [Dev(np.full((m, n), np.nan, np.float32)) for _ in range(nb)]
    pa, pd = Dev(np.array([d.ptr for d in dAs], np.uint64)), Dev(np.array([d.ptr for d in dDs], np.uint64))
    dB, dC = Dev(Bs.ravel()), Dev(c)
    mode = ctypes.c_int32(1)

    def layout(rows: int, cols: int, batch: int, stride: int = 0, pointers: bool = False) -> int:
        lay = _layout(F32, rows, cols, rows, batch=ctypes.c_int32(batch), stride=ctypes.c_int64(stride))
        if pointers:
            assert lt_capi.obj_set(1, lay, 8, ctypes.addressof(mode), 4) == 0
        return lay

    la, lb = layout(m, k, nb, pointers=True), layout(k, n, nb, k * n)
    lc, ld = layout(m, n, 1), layout(m, n, nb, pointers=True)
    desc = _new(lt_capi.desc_create, 68, F32)
    one = ctypes.c_float(1.0)
    assert lt_capi.matmul(HANDLE, desc, ctypes.addressof(one), pa.ptr, la, dB.ptr, lb, ctypes.addressof(one), dC.ptr,
                          lc, pd.ptr, ld, 0) == 0
    for i in range(nb):
        ref = As[i].astype(np.float64) @ Bs[i].T.astype(np.float64) + c
        np.testing.assert_allclose(dDs[i].get(), ref, rtol=1e-5, atol=1e-5)
    bad = Dev(np.array([dDs[0].ptr, 0, dDs[2].ptr], np.uint64))  # a NULL entry: INVALID_VALUE, nothing written
    before = [d.get() for d in dDs]
    assert lt_capi.matmul(HANDLE, desc, ctypes.addressof(one), pa.ptr, la, dB.ptr, lb, ctypes.addressof(one), dC.ptr,
                          lc, bad.ptr, ld, 0) == 7
    assert all(np.array_equal(d.get(), b, equal_nan=True) for d, b in zip(dDs, before, strict=True))
