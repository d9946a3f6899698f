"""Record NVIDIA goldens for CuMetal's clean-room CUDA headers (tests/cuda_headers/test_goldens.py).

Runs tests/cuda_headers/kernels/goldens.cu on an NVIDIA GPU with NVIDIA's own headers (cupy's NVRTC)
and writes the inputs and outputs to an .npz. Used where numpy cannot decide what CUDA does:
NaN payloads in conversions, __hdiv and the fp16/bf16 arithmetic on special values, h* math
approximations, __byte_perm selectors with the sign bit, __fns, the SIMD intrinsics.

    python scripts/make_cuda_header_goldens.py OUT.npz        # on a machine with an NVIDIA GPU and cupy
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

KERNELS = pathlib.Path(__file__).resolve().parents[1] / "tests" / "cuda_headers" / "kernels" / "goldens.cu"
NARITH, NCONV16, NCONVI, NMATH, NINT = 17, 24, 28, 15, 56


def inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(2026)
    specials16 = np.array([0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3BFF, 0x3C00, 0x3C01, 0xBC00, 0x7BFF,
                           0xFBFF, 0x7C00, 0xFC00, 0x7C01, 0x7DFF, 0x7E00, 0x7FFF, 0xFE00, 0xFC01, 0x3800, 0x4000,
                           0x3555, 0x0080, 0x007F, 0x3F80, 0xBF80, 0x7F80, 0xFF80, 0x7F81, 0x7FC0, 0xFFC1, 0x7F7F,
                           0x0081, 0x4049, 0x3E80], np.uint16)
    n = 6000
    a = rng.integers(0, 65536, n, dtype=np.uint16)
    b = rng.integers(0, 65536, n, dtype=np.uint16)
    c = rng.integers(0, 65536, n, dtype=np.uint16)
    b[: n // 3] = (a[: n // 3].astype(np.int32) + rng.integers(-40, 40, n // 3)).astype(np.uint16)  # close values
    k = specials16.size
    a[n // 3:n // 3 + k * k] = np.repeat(specials16, k)
    b[n // 3:n // 3 + k * k] = np.tile(specials16, k)
    m = 4000
    special_f = np.array([0.0, -0.0, np.inf, -np.inf, 65504.0, 65520.0, 65519.996, -65520.0, 1e-8, -1e-8,
                          5.960464477539063e-08, 2.9802322387695312e-08, 3.0e38, -3.0e38, 1.0009765625, 1.00048828125],
                         np.float32)
    nan_f = np.array([0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FBFFFFF, 0xFFFFFFFF, 0x7FC12345, 0xFF812345],
                     np.uint32).view(np.float32)
    f = np.concatenate([special_f, nan_f, rng.integers(0, 2**32, m - 23, dtype=np.uint64).astype(np.uint32)
                        .view(np.float32)])
    nan_d = np.array([0x7FF8000000000000, 0xFFF8000000000000, 0x7FF0000000000001, 0x7FF4000000000000,
                      0xFFFFFFFFFFFFFFFF, 0x7FF8123456789ABC, 0xFFF0000012345678], np.uint64).view(np.float64)
    with np.errstate(invalid="ignore"):
        d = np.concatenate([nan_d, f[7:].astype(np.float64) * (1 + rng.standard_normal(m - 7) * 1e-6)])
    v = np.concatenate([specials16.astype(np.int64), rng.integers(-(2**63), 2**63 - 1, m - k, dtype=np.int64)
                        >> rng.integers(0, 63, m - k)])
    v[k:k + 2000] = rng.integers(0, 65536, 2000)  # every kind of 16-bit pattern for the half/bf16 -> int paths
    x = np.arange(0, 65536, 7, dtype=np.uint16)
    ia = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    ib = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    ic = rng.integers(0, 2**32, 3000, dtype=np.uint64).astype(np.uint32)
    ia[:200] = rng.choice(np.array([0, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x7FFF8000, 0x01FF80FE], np.uint32), 200)
    ib[:200] = rng.choice(np.array([0, 0x7F7F7F7F, 0x80808080, 0xFFFFFFFF, 0x80007FFF, 0x01010101], np.uint32), 200)
    return {"a": a, "b": b, "c": c, "f": f, "d": d, "v": v, "x": x, "ia": ia, "ib": ib, "ic": ic}


def record(path: str) -> None:
    import cupy as cp

    inp = inputs()
    mod = cp.RawModule(code=KERNELS.read_text(), options=("-std=c++17",))
    dev = {k: cp.asarray(v) for k, v in inp.items()}
    out: dict[str, np.ndarray] = {}

    def run(name: str, n: int, *args) -> None:
        mod.get_function(name)(((n + 127) // 128,), (128,), (*args, np.int32(n)))

    n = inp["a"].size
    oh, ob = cp.zeros(n * NARITH, cp.uint16), cp.zeros(n * NARITH, cp.uint16)
    run("golden_arith", n, dev["a"], dev["b"], dev["c"], oh, ob)
    out["arith_half"], out["arith_bf16"] = oh.get().reshape(n, NARITH), ob.get().reshape(n, NARITH)
    n = inp["f"].size
    o16, oi = cp.zeros(n * NCONV16, cp.uint16), cp.zeros(n * NCONVI, cp.int64)
    run("golden_conv", n, dev["f"], dev["d"], dev["v"], o16, oi)
    out["conv16"], out["convi"] = o16.get().reshape(n, NCONV16), oi.get().reshape(n, NCONVI)
    n = inp["x"].size
    mh, mb = cp.zeros(n * NMATH, cp.uint16), cp.zeros(n * NMATH, cp.uint16)
    run("golden_math", n, dev["x"], mh, mb)
    out["math_half"], out["math_bf16"] = mh.get().reshape(n, NMATH), mb.get().reshape(n, NMATH)
    n = inp["ia"].size
    oint = cp.zeros(n * NINT, cp.uint32)
    run("golden_int", n, dev["ia"], dev["ib"], dev["ic"], oint)
    out["int"] = oint.get().reshape(n, NINT)
    cp.cuda.Device().synchronize()
    props = cp.cuda.runtime.getDeviceProperties(0)
    meta = np.array([f"{props['name'].decode()} cc {props['major']}.{props['minor']}, "
                     f"CUDA runtime {cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()}"])
    np.savez_compressed(path, **inp, **out, meta=meta)
    print("wrote", path, meta[0])


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    record(sys.argv[1])
