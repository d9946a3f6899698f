"""Cases for CuMetal's cuBLAS GEMM kernels (cumetal.libs.cublas.kernels), checked against float64
numpy references. Run in-process by tests/libs/test_cublas_kernels.py (cpu, kernels forced) and as
``python -m tests.libs.gemm_kernel_cases`` in a subprocess with ``CUMETAL_BACKEND=air-sim|msl-sim``,
where the Apple path is the default. Prints one line per case, ``ok NAME`` or ``FAIL NAME: why``."""

from __future__ import annotations

import ctypes
import sys

import numpy as np

from cumetal import runtime as rt
from cumetal.libs.cublas import capi
from cumetal.libs.cublas import status as S
from cumetal.libs.cublas.gemmex import bf16_to_f32, f32_to_bf16, round_mantissa

RNG = np.random.default_rng(11)
H2D, D2H = rt.cudaMemcpyKind.cudaMemcpyHostToDevice, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost


def dev(a: np.ndarray) -> int:
    a = np.ascontiguousarray(a)
    err, p = rt.cudaMalloc(max(a.nbytes, 8))
    assert int(err) == 0, err
    rt.cudaMemcpy(p, a, a.nbytes, H2D)
    return p


def get(p: int, like: np.ndarray) -> np.ndarray:
    rt.cudaDeviceSynchronize()
    out = np.empty_like(np.ascontiguousarray(like))
    rt.cudaMemcpy(out, p, out.nbytes, D2H)
    return out


def scalar(v: float, dt: type) -> ctypes.Array:
    arr = np.array([v], dt)
    buf = (ctypes.c_char * arr.nbytes)()
    ctypes.memmove(buf, arr.ctypes.data, arr.nbytes)
    return buf


# storage type code -> (numpy dtype of the bits, to float64, from float64 rounded once, tolerance)
TYPES = {
    S.R_32F: (np.float32, lambda x: x.astype(np.float64), lambda x: x.astype(np.float32), 2e-6),
    S.R_16F: (np.float16, lambda x: x.astype(np.float64), lambda x: x.astype(np.float16), 2e-3),
    S.R_16BF: (np.uint16, lambda x: bf16_to_f32(x).astype(np.float64), lambda x: f32_to_bf16(x.astype(np.float32)),
               1.6e-2),
}


def column_major(rows: int, cols: int, ld: int, t: int) -> tuple[np.ndarray, np.ndarray]:
    """(storage bits, float64 value) of a rows x cols matrix in an ld x cols column-major buffer."""
    _, to64, from64, _ = TYPES[t]
    full = from64(RNG.standard_normal((cols, ld)))  # row c of `full` is column c
    return full, to64(full)[:, :rows].T


def gemm_case(h: int, name: str, ta: int, tb: int, m: int, n: int, k: int, at: int, ct: int, compute: int,
              alpha: float, beta: float, batch: int = 0, arrays: bool = False, nan_c: bool = False,
              device_scalars: bool = False) -> str:
    ra, ca = (m, k) if ta == S.OP_N else (k, m)
    rb, cb = (k, n) if tb == S.OP_N else (n, k)
    lda, ldb, ldc = ra + 3, rb + 1, m + 2
    nb = max(batch, 1)
    As = [column_major(ra, ca, lda, at) for _ in range(nb)]
    Bs = [column_major(rb, cb, ldb, at) for _ in range(nb)]
    Cs = [column_major(m, n, ldc, ct) for _ in range(nb)]
    if nan_c:
        for c_bits, _ in Cs:
            c_bits[...] = TYPES[ct][2](np.full(c_bits.shape, np.nan))
    scale_t = np.float16 if compute == S.COMPUTE_16F else np.float32
    if device_scalars:
        pa_s, pb_s = dev(np.array([alpha], scale_t)), dev(np.array([beta], scale_t))
        assert capi.set_pointer_mode(h, S.POINTER_DEVICE) == 0
        a_arg, b_arg, keep = pa_s, pb_s, None
    else:
        keep = (scalar(alpha, scale_t), scalar(beta, scale_t))
        a_arg, b_arg = ctypes.addressof(keep[0]), ctypes.addressof(keep[1])
    if batch and not arrays:
        pa, pb, pc = (dev(np.concatenate([x[0].reshape(-1) for x in xs])) for xs in (As, Bs, Cs))
        sa, sb, sc = As[0][0].size, Bs[0][0].size, Cs[0][0].size
        st = capi.gemm_strided_ex(h, ta, tb, m, n, k, a_arg, pa, at, lda, sa, pb, at, ldb, sb, b_arg, pc, ct, ldc, sc,
                                  batch, compute, 0)
        outs = lambda: get(pc, np.concatenate([x[0].reshape(-1) for x in Cs])).reshape(nb, -1)  # noqa: E731
    elif batch:
        pas, pbs, pcs = ([dev(x[0]) for x in xs] for xs in (As, Bs, Cs))
        pa, pb, pc = (dev(np.array(p, np.uint64)) for p in (pas, pbs, pcs))
        st = capi.gemm_batched_ex(h, ta, tb, m, n, k, a_arg, pa, at, lda, pb, at, ldb, b_arg, pc, ct, ldc, batch,
                                  compute, 0)
        outs = lambda: np.stack([get(p, Cs[0][0]).reshape(-1) for p in pcs])  # noqa: E731
    else:
        pa, pb, pc = dev(As[0][0]), dev(Bs[0][0]), dev(Cs[0][0])
        st = capi.gemm_ex(h, ta, tb, m, n, k, a_arg, pa, at, lda, pb, at, ldb, b_arg, pc, ct, ldc, compute, 0)
        outs = lambda: get(pc, Cs[0][0]).reshape(1, -1)  # noqa: E731
    if device_scalars:
        capi.set_pointer_mode(h, S.POINTER_HOST)
    if st != 0:
        return f"FAIL {name}: status {st}"
    got_bits = outs()
    tol = max(TYPES[at][3], TYPES[ct][3])
    for i in range(nb):
        a64 = As[i][1] if ta == S.OP_N else As[i][1].T
        b64 = Bs[i][1] if tb == S.OP_N else Bs[i][1].T
        if compute == S.COMPUTE_32F_FAST_TF32:  # the inputs rounded to TF32 (10 mantissa bits), nearest even
            a64, b64 = (round_mantissa(x.astype(np.float32), 10).astype(np.float64) for x in (a64, b64))
        ref = alpha * (a64 @ b64) + (beta * Cs[i][1] if beta != 0 else 0.0)
        got_full = TYPES[ct][1](got_bits[i].view(TYPES[ct][0]).reshape(n, ldc)).T
        got = got_full[:m]
        if not np.all(np.isfinite(got)):
            return f"FAIL {name}: non-finite results (batch {i})"
        err = np.abs(got - ref).max() / max(1.0, np.abs(ref).max())
        if err > tol * max(1, k) ** 0.5 * 4:
            return f"FAIL {name}: batch {i} relative error {err:.3g}"
        pad = TYPES[ct][1](got_bits[i].view(TYPES[ct][0]).reshape(n, ldc))[:, m:]
        want_pad = TYPES[ct][1](Cs[i][0])[:, m:]
        if not np.array_equal(pad, want_pad, equal_nan=True):
            return f"FAIL {name}: rows beyond m were written (batch {i})"
    return f"ok {name}"


def _gelu(x: np.ndarray) -> np.ndarray:
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x**3)))


def lt_case(name: str, epi: int, ta: int, tb: int, m: int, n: int, k: int, t: int, batch: int = 1) -> str:
    """cublasLtMatmul with a separate D, a bias per row and ReLU/GELU, strided batches (the bias shared)."""
    from cumetal.libs.cublas import lt  # noqa: PLC0415

    ra, ca = (m, k) if ta == S.OP_N else (k, m)
    rb, cb = (k, n) if tb == S.OP_N else (n, k)
    lda, ldb, ldc, ldd = ra + 1, rb + 2, m + 3, m + 1
    As = [column_major(ra, ca, lda, t) for _ in range(batch)]
    Bs = [column_major(rb, cb, ldb, t) for _ in range(batch)]
    Cs = [column_major(m, n, ldc, t) for _ in range(batch)]
    bias_bits = TYPES[t][2](RNG.standard_normal(m))
    pa, pb, pc = (dev(np.concatenate([x[0].reshape(-1) for x in xs])) for xs in (As, Bs, Cs))
    d_like = np.zeros(batch * n * ldd, TYPES[t][0])
    pd, pbias = dev(d_like), dev(bias_bits)
    h = lt.new("handle")
    desc = lt.desc_create(S.COMPUTE_32F, S.R_32F)
    lt.get(desc, "matmul descriptor").attrs.update({lt.D_TRANSA: ta, lt.D_TRANSB: tb, lt.D_EPILOGUE: epi,
                                                    lt.D_BIAS: pbias, lt.D_BIAS_TYPE: t})
    lays = []
    for rows, cols, ld, count in ((ra, ca, lda, As[0][0].size), (rb, cb, ldb, Bs[0][0].size),
                                  (m, n, ldc, Cs[0][0].size), (m, n, ldd, n * ldd)):
        lay = lt.layout_create(t, rows, cols, ld)
        lt.get(lay, "matrix layout").attrs.update({lt.L_BATCH: batch, lt.L_STRIDE: count})
        lays.append(lay)
    alpha, beta = scalar(0.5, np.float32), scalar(1.5, np.float32)
    lt.matmul(h, desc, ctypes.addressof(alpha), pa, lays[0], pb, lays[1], ctypes.addressof(beta), pc, lays[2], pd,
              lays[3], 0)
    got_bits = get(pd, d_like).reshape(batch, n, ldd)
    bias = TYPES[t][1](bias_bits)
    for i in range(batch):
        a64 = As[i][1] if ta == S.OP_N else As[i][1].T
        b64 = Bs[i][1] if tb == S.OP_N else Bs[i][1].T
        ref = 0.5 * (a64 @ b64) + 1.5 * Cs[i][1] + bias[:, None]
        ref = np.maximum(ref, 0) if epi == lt.EPI_RELU_BIAS else _gelu(ref) if epi == lt.EPI_GELU_BIAS else ref
        got = TYPES[t][1](got_bits[i].view(TYPES[t][0])).T[:m]
        err = np.abs(got - ref).max() / max(1.0, np.abs(ref).max())
        if not np.isfinite(err) or err > TYPES[t][3] * max(1, k) ** 0.5 * 4:
            return f"FAIL {name}: batch {i} relative error {err:.3g}"
        if epi == lt.EPI_RELU_BIAS and not (got >= 0).all():
            return f"FAIL {name}: negative values after ReLU"
    return f"ok {name}"


def run_cases() -> list[str]:
    out = ctypes.c_void_p()
    assert capi.create(ctypes.addressof(out)) == 0
    h = out.value
    N, T = S.OP_N, S.OP_T
    f32, f16, bf16 = S.R_32F, S.R_16F, S.R_16BF
    cases = [
        ("sgemm NN", N, N, 37, 29, 45, f32, f32, S.COMPUTE_32F, 1.5, -0.5, {}),
        ("sgemm TT", T, T, 20, 17, 33, f32, f32, S.COMPUTE_32F, 0.75, 1.0, {}),
        ("sgemm TN beta 0 with NaN in C", T, N, 18, 19, 16, f32, f32, S.COMPUTE_32F, 1.0, 0.0, {"nan_c": True}),
        ("sgemm alpha 0", N, T, 9, 12, 7, f32, f32, S.COMPUTE_32F, 0.0, 2.0, {}),
        ("f16 -> f32", N, T, 33, 18, 40, f16, f32, S.COMPUTE_32F, 1.0, 0.5, {}),
        ("f16 -> f16, COMPUTE_16F (Hgemm)", T, N, 17, 16, 24, f16, f16, S.COMPUTE_16F, 1.0, 0.0, {}),
        ("bf16 -> bf16", N, N, 16, 33, 20, bf16, bf16, S.COMPUTE_32F, 1.0, 1.0, {}),
        ("f32 FAST_TF32", N, N, 16, 16, 48, f32, f32, S.COMPUTE_32F_FAST_TF32, 1.0, 0.0, {}),
        ("strided batched f32", T, N, 19, 13, 21, f32, f32, S.COMPUTE_32F, 1.0, 0.25, {"batch": 3}),
        ("pointer arrays f16 -> f32", N, N, 14, 15, 17, f16, f32, S.COMPUTE_32F, 2.0, 0.0, {"batch": 2, "arrays": True}),
        ("device-mode alpha and beta", N, N, 21, 11, 13, f32, f32, S.COMPUTE_32F, 0.5, 3.0, {"device_scalars": True}),
    ]
    lines = [gemm_case(h, *c[:11], **c[11]) for c in cases]
    from cumetal.libs.cublas import lt  # noqa: PLC0415

    lines += [lt_case("cublasLt BIAS f32, 2 batches", lt.EPI_BIAS, N, T, 24, 18, 20, f32, batch=2),
              lt_case("cublasLt GELU_BIAS f32", lt.EPI_GELU_BIAS, T, N, 17, 33, 16, f32),
              lt_case("cublasLt RELU_BIAS f16", lt.EPI_RELU_BIAS, N, N, 20, 16, 24, f16)]
    capi.destroy(h)
    return lines


if __name__ == "__main__":
    for line in run_cases():
        print(line, flush=True)
    sys.exit(0)
