"""Record cuBLASLt's FP8 matmul, scale/amax pointers, alpha-vector pointer modes, the COL32 order,
cublasLtMatrixTransform, the cuBLAS/cuBLASLt logger callbacks and CUDA_C_8I GEMMs on NVIDIA hardware
(tests/libs/golden/cublaslt_fp8.npz).

Runs on a machine with an NVIDIA GPU, CUDA 13 and cupy (one ``run`` on the project's H100, seconds):

    python scripts/make_cublaslt_fp8_goldens.py OUTDIR

Calls NVIDIA's libcublasLt / libcublas through ctypes on small seeded problems (``inputs()``, which
the test regenerates) and keeps, per case, the status and the output bytes: FP8 (E4M3, E5M2) A and B
with f32/bf16/f16/E4M3/E5M2 outputs, scale pointers, AMAX_D, a bias epilogue; scale/amax pointers on a
float32 matmul; the three alpha-vector pointer modes; a COL → COL32 transform of an int8 matrix; a
float transform with transposes; the first logger messages of each library; cublasCgemmEx and
cublasGemmEx with CUDA_C_8I A and B.
"""

from __future__ import annotations

import ctypes
import sys

import numpy as np

M, N, K = 32, 16, 32
E4M3, E5M2, F32, F16, BF16, I8, C8I, C32F = 28, 29, 0, 2, 14, 3, 7, 4
D_SCALE_TYPE, D_POINTER_MODE, D_TRANSA, D_TRANSB, D_EPILOGUE, D_BIAS = 1, 2, 3, 4, 7, 8
D_ALPHA_VEC_STRIDE, D_A_SCALE, D_B_SCALE, D_C_SCALE, D_D_SCALE, D_AMAX_D, D_BIAS_TYPE = 14, 17, 18, 19, 20, 21, 26
D_A_SCALE_MODE, D_B_SCALE_MODE, OUTER_VEC_32F = 31, 32, 3
L_ORDER, L_BATCH, L_STRIDE = 1, 5, 6


def fp8_values(code: int) -> np.ndarray:
    """The 256 values of an FP8 byte (E4M3: bias 7, no infinities, 0x7f/0xff NaN; E5M2: IEEE-like, bias 15)."""
    b = np.arange(256)
    sign = np.where(b & 0x80, -1.0, 1.0)
    if code == E4M3:
        e, m = (b >> 3) & 0xF, b & 7
        v = np.where(e == 0, m / 8 * 2.0 ** -6, (1 + m / 8) * 2.0 ** (e - 7))
        v = np.where((e == 15) & (m == 7), np.nan, v)
    else:
        e, m = (b >> 2) & 0x1F, b & 3
        v = np.where(e == 0, m / 4 * 2.0 ** -14, (1 + m / 4) * 2.0 ** (e - 15))
        v = np.where(e == 31, np.where(m == 0, np.inf, np.nan), v)
    return sign * v


def inputs() -> dict[str, np.ndarray]:
    """Seeded operands: FP8 bytes with 1/8 <= |value| <= 4 (products and sums exact in float32)."""
    rng = np.random.default_rng(20261125)
    out: dict[str, np.ndarray] = {}
    for name, code in (("e4m3", E4M3), ("e5m2", E5M2)):
        vals = fp8_values(code)
        ok = np.flatnonzero((np.abs(vals) >= 0.125) & (np.abs(vals) <= 4))
        out[f"A_{name}"] = rng.choice(ok, (K, M)).astype(np.uint8)    # stored k x m: op(A) = A^T (TN)
        out[f"B_{name}"] = rng.choice(ok, (K, N)).astype(np.uint8)
    out["C_f32"] = rng.standard_normal((M, N)).astype(np.float32)
    out["bias_f32"] = rng.standard_normal(M).astype(np.float32)
    out["A_f32"] = rng.standard_normal((M, K)).astype(np.float32)
    out["B_f32"] = rng.standard_normal((K, N)).astype(np.float32)
    out["alpha_vec"] = rng.standard_normal(2 * M).astype(np.float32)
    out["beta_vec"] = rng.standard_normal(M).astype(np.float32)
    out["T_i8"] = rng.integers(-128, 128, (5, 40)).astype(np.int8)
    out["T_a"] = rng.standard_normal((6, 9)).astype(np.float32)
    out["T_b"] = rng.standard_normal((6, 9)).astype(np.float32)
    out["C8I_a"] = rng.integers(-20, 20, (M, K, 2)).astype(np.int8)    # column-major complex: (re, im) pairs
    out["C8I_b"] = rng.integers(-20, 20, (K, N, 2)).astype(np.int8)
    out["A_i8"] = rng.integers(-8, 8, (K, M)).astype(np.int8)          # stored k x m (TN, as IMMA wants)
    out["B_i8"] = rng.integers(-8, 8, (K, N)).astype(np.int8)
    out["C_i8"] = rng.integers(-100, 100, (M, N)).astype(np.int8)
    out["scale_a_vec"] = rng.uniform(0.25, 2, M).astype(np.float32)    # OUTER_VEC_32F: one per row of D
    out["scale_b_vec"] = rng.uniform(0.25, 2, N).astype(np.float32)    # … and one per column
    return out


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    u = np.ascontiguousarray(x, np.float32).view(np.uint32)
    return ((u + 0x7FFF + ((u >> 16) & 1)) >> 16).astype(np.uint16)


# FP8 cases: name -> (atype, btype, ctype, dtype, transa, extra settings)
FP8_CASES = {
    "e4m3_f32": (E4M3, E4M3, F32, F32, 1, {}),
    "e4m3_f32_scaled": (E4M3, E4M3, F32, F32, 1, {"scales": (0.5, 4.0, 0, 0), "alpha": 1.5, "beta": 0.25}),
    "e4m3_f32_amax": (E4M3, E4M3, F32, F32, 1, {"amax": 1}),
    "e4m3_f32_cscale": (E4M3, E4M3, F32, F32, 1, {"scales": (0, 0, 2.0, 0), "beta": 1.0}),
    "e4m3_f32_dscale": (E4M3, E4M3, F32, F32, 1, {"scales": (0, 0, 0, 2.0)}),
    "e4m3_bf16": (E4M3, E4M3, BF16, BF16, 1, {"scales": (0.5, 2.0, 0, 0), "beta": 1.0}),
    "e4m3_bf16_cscale": (E4M3, E4M3, BF16, BF16, 1, {"scales": (0, 0, 2.0, 0), "beta": 1.0}),
    "e4m3_bf16_dscale": (E4M3, E4M3, BF16, BF16, 1, {"scales": (0, 0, 0, 2.0)}),
    "e4m3_to_e4m3_scaled": (E4M3, E4M3, BF16, E4M3, 1, {"scales": (0.5, 2.0, 4.0, 0.25), "alpha": 2.0,
                                                        "beta": 1.0, "amax": 1}),
    "e4m3_f16": (E4M3, E4M3, F16, F16, 1, {"scales": (0.25, 1.0, 0, 0), "beta": 0.5}),
    "e5m2xe4m3_bf16": (E5M2, E4M3, BF16, BF16, 1, {}),
    "e4m3xe5m2_f32": (E4M3, E5M2, F32, F32, 1, {}),
    "e5m2xe5m2_bf16": (E5M2, E5M2, BF16, BF16, 1, {}),
    "e4m3_to_e4m3": (E4M3, E4M3, BF16, E4M3, 1, {"scales": (0, 0, 0, 8.0), "amax": 1}),
    "e4m3_to_e4m3_f16c": (E4M3, E4M3, F16, E4M3, 1, {"scales": (0, 0, 0, 0.5), "amax": 1}),
    "e4m3_to_e5m2": (E4M3, E4M3, BF16, E5M2, 1, {"scales": (0, 0, 0, 64.0), "amax": 1}),
    "e5m2_to_e5m2": (E5M2, E4M3, BF16, E5M2, 1, {"scales": (0, 0, 0, 0.5), "amax": 1}),
    "e4m3_c_f32_d_bf16": (E4M3, E4M3, F32, BF16, 1, {}),
    "e4m3_bias_bf16": (E4M3, E4M3, BF16, BF16, 1, {"epilogue": 4, "bias_type": BF16}),
    "e4m3_relu_bias_f32": (E4M3, E4M3, F32, F32, 1, {"epilogue": 6, "bias_type": BF16}),
    "e4m3_gelu_bf16": (E4M3, E4M3, BF16, BF16, 1, {"epilogue": 32}),
    "e4m3_NN": (E4M3, E4M3, F32, F32, 0, {}),
    "e4m3_outer_bf16": (E4M3, E4M3, BF16, BF16, 1, {"outer": (1, 1)}),
    "e4m3_outer_f32": (E4M3, E4M3, F32, F32, 1, {"outer": (1, 1), "alpha": 0.5}),
    "e5m2xe4m3_outer_bf16_bias": (E5M2, E4M3, BF16, BF16, 1, {"outer": (1, 1), "epilogue": 4, "bias_type": BF16}),
    "e4m3_outer_a_only": (E4M3, E4M3, BF16, BF16, 1, {"outer": (1, 0), "scales": (0, 2.0, 0, 0)}),
    "e4m3_outer_to_e4m3": (E4M3, E4M3, BF16, E4M3, 1, {"outer": (1, 1), "scales": (0, 0, 0, 0.5), "amax": 1}),
    "f32_ascale": (F32, F32, F32, F32, 0, {"scales": (2.0, 0, 0, 0)}),
    "f32_amax": (F32, F32, F32, F32, 0, {"amax": 1}),
    "bf16_dscale": (BF16, BF16, BF16, BF16, 0, {"scales": (0, 0, 0, 2.0)}),
}


def main() -> int:  # noqa: C901, PLR0915 - one recording script, case by case
    import glob
    import pathlib

    import cupy as cp  # noqa: PLC0415

    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out_dir.mkdir(parents=True, exist_ok=True)

    def load(name: str) -> ctypes.CDLL:
        for pat in (f"{cp.cuda.get_cuda_path()}/lib64/{name}.so*", f"/usr/local/cuda/lib64/{name}.so*",
                    f"{sys.prefix}/lib/python3*/site-packages/nvidia/*/lib/{name}.so*"):
            for p in sorted(glob.glob(pat)):
                try:
                    return ctypes.CDLL(p)
                except OSError:
                    continue
        return ctypes.CDLL(f"{name}.so")

    lt = load("libcublasLt")
    blas = load("libcublas")
    res: dict[str, np.ndarray] = {}
    lt_log: list[str] = []
    LTCB = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_char_p)
    lt_cb = LTCB(lambda lvl, fn, msg: lt_log.append(f"{lvl}|{(fn or b'').decode()}|{(msg or b'').decode()}"))
    print("lt logger", lt.cublasLtLoggerSetCallback(lt_cb), lt.cublasLtLoggerSetLevel(5), flush=True)
    h = ctypes.c_void_p()
    assert lt.cublasLtCreate(ctypes.byref(h)) == 0
    x = inputs()
    ws = cp.zeros(32 << 20, dtype=cp.uint8)
    st_np = {F32: np.float32, F16: np.float16, BF16: np.uint16, E4M3: np.uint8, E5M2: np.uint8, I8: np.int8}

    def layout(t: int, rows: int, cols: int, ld: int) -> ctypes.c_void_p:
        lay = ctypes.c_void_p()
        assert lt.cublasLtMatrixLayoutCreate(ctypes.byref(lay), t, ctypes.c_uint64(rows), ctypes.c_uint64(cols),
                                             ctypes.c_int64(ld)) == 0
        return lay

    def dset(desc: ctypes.c_void_p, attr: int, value: ctypes._SimpleCData, name: str) -> int:
        st = lt.cublasLtMatmulDescSetAttribute(desc, attr, ctypes.byref(value), ctypes.sizeof(value))
        if st:
            print(f"{name}: attribute {attr}: status {st}", flush=True)
        return st

    def matmul(desc, alpha_p, dA, la, dB, lb, beta_p, dC, lc, dD, ld_) -> int:  # noqa: ANN001
        st = lt.cublasLtMatmul(h, desc, alpha_p, ctypes.c_void_p(dA.data.ptr), la, ctypes.c_void_p(dB.data.ptr), lb,
                               beta_p, ctypes.c_void_p(dC.data.ptr), lc, ctypes.c_void_p(dD.data.ptr), ld_, None,
                               ctypes.c_void_p(ws.data.ptr), ctypes.c_size_t(ws.nbytes), None)
        cp.cuda.runtime.deviceSynchronize()
        return st

    for name, (at, bt, ct, dt, ta, extra) in FP8_CASES.items():
        desc = ctypes.c_void_p()
        assert lt.cublasLtMatmulDescCreate(ctypes.byref(desc), 68, F32) == 0
        dset(desc, D_TRANSA, ctypes.c_int32(ta), name)
        if at == F32 or at == BF16:
            a_host = x["A_f32"] if ta == 0 else x["A_f32"].T
            a_host = f32_to_bf16(a_host) if at == BF16 else a_host
            b_host = f32_to_bf16(x["B_f32"]) if bt == BF16 else x["B_f32"]
        else:
            a_host = x["A_e4m3" if at == E4M3 else "A_e5m2"]
            a_host = a_host if ta == 1 else np.ascontiguousarray(a_host.T)
            b_host = x["B_e4m3" if bt == E4M3 else "B_e5m2"]
        dA, dB = cp.asarray(np.asfortranarray(a_host)), cp.asarray(np.asfortranarray(b_host))
        c_host = x["C_f32"] if ct == F32 else (f32_to_bf16(x["C_f32"]) if ct == BF16 else x["C_f32"].astype(np.float16))
        dC = cp.asarray(np.asfortranarray(c_host))
        dD = cp.asarray(np.asfortranarray(np.full((M, N), 0x7F if dt in (E4M3, E5M2) else 0, st_np[dt])))
        la = layout(at, *a_host.shape, a_host.shape[0])
        lb, lc, ld_ = layout(bt, K, N, K), layout(ct, M, N, M), layout(dt, M, N, M)
        keep = []
        for i, s in enumerate(extra.get("scales", ())):
            if s:
                buf = cp.asarray(np.array([s], np.float32))
                keep.append(buf)
                dset(desc, (D_A_SCALE, D_B_SCALE, D_C_SCALE, D_D_SCALE)[i], ctypes.c_uint64(buf.data.ptr), name)
        for i, on in enumerate(extra.get("outer", ())):
            if on:
                buf = cp.asarray(x["scale_a_vec" if i == 0 else "scale_b_vec"])
                keep.append(buf)
                dset(desc, (D_A_SCALE, D_B_SCALE)[i], ctypes.c_uint64(buf.data.ptr), name)
                dset(desc, (D_A_SCALE_MODE, D_B_SCALE_MODE)[i], ctypes.c_int32(OUTER_VEC_32F), name)
        amax = cp.full(1, -1.0, cp.float32)
        if extra.get("amax"):
            dset(desc, D_AMAX_D, ctypes.c_uint64(amax.data.ptr), name)
        if "epilogue" in extra:
            dset(desc, D_EPILOGUE, ctypes.c_int32(extra["epilogue"]), name)
            if "bias_type" in extra:
                bias = cp.asarray(f32_to_bf16(x["bias_f32"]) if extra["bias_type"] == BF16 else x["bias_f32"])
                keep.append(bias)
                dset(desc, D_BIAS, ctypes.c_uint64(bias.data.ptr), name)
                dset(desc, D_BIAS_TYPE, ctypes.c_int32(extra["bias_type"]), name)
        alpha, beta = ctypes.c_float(extra.get("alpha", 1.0)), ctypes.c_float(extra.get("beta", 0.0))
        st = matmul(desc, ctypes.byref(alpha), dA, la, dB, lb, ctypes.byref(beta), dC, lc, dD, ld_)
        res[f"{name}/status"] = np.array([st])
        res[f"{name}/D"] = dD.get().T.copy().T  # column-major M x N as (M, N)
        res[f"{name}/amax"] = amax.get()
        print(name, "status", st, "amax", float(amax.get()[0]), flush=True)
        lt.cublasLtMatmulDescDestroy(desc)

    # alpha-vector pointer modes: float32 (op(A) = A) and IMMA int8 (TN) problems, batch of 2 for the stride
    valpha, vbeta = cp.asarray(x["alpha_vec"]), cp.asarray(x["beta_vec"])
    configs = {"f32": (F32, F32, 68, F32, 0), "i8_i32": (I8, 10, 72, F32, 1), "i8_i8": (I8, I8, 72, F32, 1)}
    for cname, (abt, cdt, compute, scale, ta) in configs.items():
        if abt == F32:
            dA, dB = cp.asarray(np.asfortranarray(x["A_f32"])), cp.asarray(np.asfortranarray(x["B_f32"]))
        else:
            dA, dB = cp.asarray(np.asfortranarray(x["A_i8"])), cp.asarray(np.asfortranarray(x["B_i8"]))
        c_np = {F32: x["C_f32"], 10: x["C_i8"].astype(np.int32), I8: x["C_i8"]}[cdt]
        dC = cp.asarray(np.asfortranarray(c_np))
        for name, mode in (("host", 0), ("device_vector", 2), ("alpha_vec_beta_zero", 3), ("alpha_vec_beta_host", 4)):
            for batched in (0, 1):
                desc = ctypes.c_void_p()
                assert lt.cublasLtMatmulDescCreate(ctypes.byref(desc), compute, scale) == 0
                dset(desc, D_POINTER_MODE, ctypes.c_int32(mode), name)
                dset(desc, D_TRANSA, ctypes.c_int32(ta), name)
                la = layout(abt, K, M, K) if ta else layout(abt, M, K, M)
                lb, lc, ld_ = layout(abt, K, N, K), layout(cdt, M, N, M), layout(cdt, M, N, M)
                nb = 2 if batched else 1
                dD = cp.zeros((nb * N, M), c_np.dtype)
                if batched:
                    dset(desc, D_ALPHA_VEC_STRIDE, ctypes.c_int64(M), name)
                    for lay, stride in ((la, 0), (lb, 0), (lc, 0), (ld_, M * N)):
                        lt.cublasLtMatrixLayoutSetAttribute(lay, L_BATCH, ctypes.byref(ctypes.c_int32(2)), 4)
                        lt.cublasLtMatrixLayoutSetAttribute(lay, L_STRIDE, ctypes.byref(ctypes.c_int64(stride)), 8)
                host_alpha, host_beta = ctypes.c_float(0.75), ctypes.c_float(0.5)
                alpha_p = ctypes.byref(host_alpha) if mode == 0 else ctypes.c_void_p(valpha.data.ptr)
                beta_p = ctypes.c_void_p(vbeta.data.ptr) if mode == 2 else ctypes.byref(host_beta)
                st = matmul(desc, alpha_p, dA, la, dB, lb, beta_p, dC, lc, dD, ld_)
                key = f"{cname}_{name}{'_batched' if batched else ''}"
                res[f"{key}/status"] = np.array([st])
                res[f"{key}/D"] = dD.get().reshape(nb, N, M).transpose(0, 2, 1).copy()
                print(key, "status", st, flush=True)
                lt.cublasLtMatmulDescDestroy(desc)

    # cublasLtMatrixTransform: int8 COL -> COL32, and float32 C = alpha op(A) + beta op(B) (COL -> ROW)
    tdesc = ctypes.c_void_p()
    print("transform desc", lt.cublasLtMatrixTransformDescCreate(ctypes.byref(tdesc), F32), flush=True)
    t8 = x["T_i8"]
    src = cp.asarray(np.asfortranarray(t8))
    dst = cp.full(2 * 32 * 5, 0x55, cp.uint8)
    l_src, l_dst = layout(I8, 5, 40, 5), layout(I8, 5, 40, 32 * 5)
    lt.cublasLtMatrixLayoutSetAttribute(l_dst, L_ORDER, ctypes.byref(ctypes.c_int32(2)), 4)
    one, zero = ctypes.c_float(1.0), ctypes.c_float(0.0)
    st = lt.cublasLtMatrixTransform(h, tdesc, ctypes.byref(one), ctypes.c_void_p(src.data.ptr), l_src,
                                    ctypes.byref(zero), None, None, ctypes.c_void_p(dst.data.ptr), l_dst, None)
    cp.cuda.runtime.deviceSynchronize()
    res["col32/status"], res["col32/out"] = np.array([st]), dst.get()
    print("col32 status", st, flush=True)
    for attr, v in ((2, 1), (3, 1)):  # TRANSA = T, TRANSB = T
        lt.cublasLtMatrixTransformDescSetAttribute(tdesc, attr, ctypes.byref(ctypes.c_int32(v)), 4)
    ta_, tb_ = cp.asarray(np.asfortranarray(x["T_a"])), cp.asarray(np.asfortranarray(x["T_b"]))
    out = cp.full(9 * 6, np.nan, cp.float32)
    l_a, l_b, l_c = layout(F32, 6, 9, 6), layout(F32, 6, 9, 6), layout(F32, 9, 6, 6)
    lt.cublasLtMatrixLayoutSetAttribute(l_c, L_ORDER, ctypes.byref(ctypes.c_int32(1)), 4)
    al, be = ctypes.c_float(2.0), ctypes.c_float(-0.5)
    st = lt.cublasLtMatrixTransform(h, tdesc, ctypes.byref(al), ctypes.c_void_p(ta_.data.ptr), l_a, ctypes.byref(be),
                                    ctypes.c_void_p(tb_.data.ptr), l_b, ctypes.c_void_p(out.data.ptr), l_c, None)
    cp.cuda.runtime.deviceSynchronize()
    res["transform_f32/status"], res["transform_f32/out"] = np.array([st]), out.get()
    print("transform f32 status", st, flush=True)

    # algorithm queries
    ids = (ctypes.c_int * 64)()
    cnt = ctypes.c_int()
    st = lt.cublasLtMatmulAlgoGetIds(h, 68, F32, F32, F32, F32, F32, 64, ids, ctypes.byref(cnt))
    res["algo_ids/status"], res["algo_ids/ids"] = np.array([st]), np.array(ids[:cnt.value])
    cap = ctypes.c_size_t()
    print("algo ids", st, ids[:cnt.value], flush=True)
    cache = lt.cublasLtHeuristicsCacheGetCapacity(ctypes.byref(cap))
    res["heuristics_cache"] = np.array([cache, cap.value])
    lt.cublasLtDestroy(h)
    lt.cublasLtLoggerSetCallback(None)
    res["lt_log"] = np.array(lt_log[:12] if lt_log else [""])

    # cuBLAS: the logger callback, CUDA_C_8I GEMMs
    log: list[str] = []
    CB = ctypes.CFUNCTYPE(None, ctypes.c_char_p)
    cb = CB(lambda msg: log.append((msg or b"").decode()))
    bh = ctypes.c_void_p()
    print("cublas logger", blas.cublasLoggerConfigure(1, 0, 0, None), blas.cublasSetLoggerCallback(cb), flush=True)
    assert blas.cublasCreate_v2(ctypes.byref(bh)) == 0
    a8 = cp.asarray(np.ascontiguousarray(x["C8I_a"].transpose(1, 0, 2)))  # column-major: (col, row, re/im)
    b8 = cp.asarray(np.ascontiguousarray(x["C8I_b"].transpose(1, 0, 2)))
    for name, fn in (("cgemmex_c8i", "cublasCgemmEx"), ("gemmex_c8i", "cublasGemmEx")):
        c = cp.zeros((N, M, 2), cp.float32)
        al, be = (ctypes.c_float * 2)(1.0, 0.0), (ctypes.c_float * 2)(0.0, 0.0)
        args = [bh, 0, 0, M, N, K, al, ctypes.c_void_p(a8.data.ptr), C8I, M, ctypes.c_void_p(b8.data.ptr), C8I, K, be,
                ctypes.c_void_p(c.data.ptr), C32F, M]
        if fn == "cublasGemmEx":
            args += [68, -1]  # COMPUTE_32F, CUBLAS_GEMM_DEFAULT
        st = getattr(blas, fn)(*args)
        cp.cuda.runtime.deviceSynchronize()
        res[f"{name}/status"], res[f"{name}/C"] = np.array([st]), c.get().transpose(1, 0, 2).copy()
        print(name, "status", st, flush=True)
    bad = blas.cublasSgemm_v2(bh, 0, 0, -1, N, K, ctypes.byref(one), None, 1, None, 1, ctypes.byref(zero), None, 1)
    res["cublas_bad_status"] = np.array([bad])
    blas.cublasDestroy_v2(bh)
    blas.cublasSetLoggerCallback(None)
    res["cublas_log"] = np.array(log[:12] if log else [""])
    for line in (lt_log[:12] + log[:12]):
        print("LOG", line[:300], flush=True)
    np.savez_compressed(out_dir / "cublaslt_fp8.npz", **res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
