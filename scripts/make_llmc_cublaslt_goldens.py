"""Record cuBLASLt's gradient epilogues on NVIDIA hardware (tests/libs/golden/cublaslt_epilogues.npz).

Runs on a machine with an NVIDIA GPU, CUDA 13 and cupy (one ``run`` on the project's H100, a few
seconds):

    python scripts/make_llmc_cublaslt_goldens.py OUTDIR

calls NVIDIA's libcublasLt through ctypes on one float32 problem (column-major, m = 128, n = 8,
k = 16, A and B random, C = 0, beta = 0) with every epilogue llm.c and PyTorch-style training code
uses: RELU_AUX(_BIAS) (what the aux buffer holds: the ReLU bit-mask), DRELU(_BGRAD) with that mask,
GELU_AUX_BIAS, DGELU(_BGRAD) with a given GELU input, BGRADA, BGRADB. For each it keeps the status,
D, the aux buffer and the bias buffer (inputs are regenerated from the same seed by the test).
"""

from __future__ import annotations

import ctypes
import glob
import pathlib
import sys

import numpy as np

M, N, K = 128, 8, 16
AUX_LD = 128                       # elements (bits for the ReLU mask); a multiple of 128 >= m
EPILOGUES = {"RELU_AUX": 130, "RELU_AUX_BIAS": 134, "DRELU": 136, "DRELU_BGRAD": 152, "GELU_AUX_BIAS": 164,
             "DGELU": 192, "DGELU_BGRAD": 208, "BGRADA": 256, "BGRADB": 512}
D_TRANSA, D_TRANSB, D_EPILOGUE, D_BIAS, D_AUX, D_AUX_LD = 3, 4, 7, 8, 11, 12


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(20261124)
    return {"A": rng.standard_normal((M, K)).astype(np.float32), "B": rng.standard_normal((K, N)).astype(np.float32),
            "bias": rng.standard_normal(M).astype(np.float32),
            "gelu_in": rng.standard_normal((M, N)).astype(np.float32) * 2}


def load(name: str) -> ctypes.CDLL:
    import cupy  # noqa: PLC0415
    cands = [f"{cupy.cuda.get_cuda_path()}/lib64/{name}.so*", f"/usr/local/cuda/lib64/{name}.so*",
             f"{sys.prefix}/lib/python3*/site-packages/nvidia/*/lib/{name}.so*"]
    for pat in cands:
        for p in sorted(glob.glob(pat)):
            try:
                return ctypes.CDLL(p)
            except OSError:
                continue
    return ctypes.CDLL(f"{name}.so")


def main() -> int:
    import cupy as cp  # noqa: PLC0415

    out_dir = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".")
    out_dir.mkdir(parents=True, exist_ok=True)
    lt = load("libcublasLt")
    h = ctypes.c_void_p()
    assert lt.cublasLtCreate(ctypes.byref(h)) == 0
    x = inputs()
    dA = cp.asarray(np.asfortranarray(x["A"]))
    dB = cp.asarray(np.asfortranarray(x["B"]))
    ws = cp.zeros(32 << 20, dtype=cp.uint8)
    res: dict[str, np.ndarray] = {}
    mask_from = None

    def layout(rows: int, cols: int, ld: int) -> ctypes.c_void_p:
        lay = ctypes.c_void_p()
        assert lt.cublasLtMatrixLayoutCreate(ctypes.byref(lay), 0, ctypes.c_uint64(rows), ctypes.c_uint64(cols),
                                             ctypes.c_int64(ld)) == 0
        return lay

    la, lb, ld = layout(M, K, M), layout(K, N, K), layout(M, N, M)
    for name, epi in EPILOGUES.items():
        desc = ctypes.c_void_p()
        assert lt.cublasLtMatmulDescCreate(ctypes.byref(desc), 68, 0) == 0  # COMPUTE_32F, R_32F

        def setattr_(attr: int, value: ctypes._SimpleCData, desc: ctypes.c_void_p = desc, name: str = name) -> None:
            st = lt.cublasLtMatmulDescSetAttribute(desc, attr, ctypes.byref(value), ctypes.sizeof(value))
            if st:
                print(f"{name}: attribute {attr}: status {st}", flush=True)

        setattr_(D_EPILOGUE, ctypes.c_int32(epi))
        bias = cp.asarray(x["bias"]) if name in ("RELU_AUX_BIAS", "GELU_AUX_BIAS") else cp.full(max(M, N), -7.0,
                                                                                                 cp.float32)
        setattr_(D_BIAS, ctypes.c_uint64(bias.data.ptr))
        if name.startswith("RELU_AUX") or name.startswith("DRELU"):
            aux = cp.zeros(AUX_LD * N // 8, cp.uint8) if name.startswith("RELU_AUX") else cp.asarray(mask_from)
        else:
            aux = cp.asarray(np.asfortranarray(x["gelu_in"])) if name.startswith("DGELU") else cp.zeros((N, AUX_LD),
                                                                                                    cp.float32)
        aux_ld = AUX_LD if name.startswith(("RELU_AUX", "DRELU", "GELU_AUX")) else M
        if name.startswith("DGELU"):
            aux_ld = M
        setattr_(D_AUX, ctypes.c_uint64(aux.data.ptr))
        setattr_(D_AUX_LD, ctypes.c_int64(aux_ld))
        d = cp.full((N, M), np.nan, cp.float32)  # (N, M) C-order = column-major M x N
        alpha, beta = ctypes.c_float(1.0), ctypes.c_float(0.0)
        st = lt.cublasLtMatmul(h, desc, ctypes.byref(alpha), ctypes.c_void_p(dA.data.ptr), la,
                               ctypes.c_void_p(dB.data.ptr), lb, ctypes.byref(beta), ctypes.c_void_p(d.data.ptr), ld,
                               ctypes.c_void_p(d.data.ptr), ld, None, ctypes.c_void_p(ws.data.ptr),
                               ctypes.c_size_t(ws.nbytes), None)
        cp.cuda.runtime.deviceSynchronize()
        res[f"{name}/status"] = np.array([st])
        res[f"{name}/D"] = d.get().T.copy()
        res[f"{name}/aux"] = aux.get().copy()
        res[f"{name}/bias"] = bias.get().copy()
        if name == "RELU_AUX":
            mask_from = res[f"{name}/aux"]
        print(name, "status", st, flush=True)
        lt.cublasLtMatmulDescDestroy(desc)
    np.savez_compressed(out_dir / "cublaslt_epilogues.npz", **res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
