"""Record NVIDIA goldens for CuMetal's clean-room cuda_fp8.h (tests/cuda_headers/test_fp8.py).

Runs tests/cuda_headers/kernels/fp8_goldens.cu (and fp6fp4_goldens.cu: cuda_fp6.h, cuda_fp4.h and
the e8m0 conversions, CUDA 12.8+) on an NVIDIA GPU with NVIDIA's own headers (cupy's NVRTC) and
writes inputs and outputs to an .npz. A kernel file that does not compile is reported and left out.

    python scripts/make_cuda_fp8_goldens.py OUT.npz        # on a machine with an NVIDIA GPU and cupy
"""

from __future__ import annotations

import pathlib
import sys

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]
KERNELS = ROOT / "tests" / "cuda_headers" / "kernels"
sys.path.insert(0, str(ROOT))

NF8, NF16, NTO, NINT8, NSMALL = 8, 6, 20, 16, 16


def grid(e_bits: int, m_bits: int, bias: int, top_is_nan: bool = False) -> np.ndarray:
    """Non-negative finite values of a small float format with no infinities (and optionally a NaN at the top)."""
    vals = []
    for e in range(1 << e_bits):
        for m in range(1 << m_bits):
            if top_is_nan and e == (1 << e_bits) - 1 and m == (1 << m_bits) - 1:
                continue
            vals.append(np.ldexp(m, 1 - bias - m_bits) if e == 0 else np.ldexp((1 << m_bits) + m, e - bias - m_bits))
    return np.array(vals)


def inputs() -> dict[str, np.ndarray]:
    from tests.ptx_sweep.cases.fp8 import _boundaries_f32

    rng = np.random.default_rng(2027)
    pts = []
    for v in (grid(2, 3, 1), grid(3, 2, 3), grid(2, 1, 1)):  # e2m3, e3m2, e2m1
        mids = (v[:-1] + v[1:]) / 2
        pts.append(np.concatenate([v, mids, [v[-1] + (v[-1] - v[-2]) / 2, 2 * v[-1]]]))
    small = np.concatenate(pts).astype(np.float32).view(np.uint32)
    small = np.concatenate([small, small + 1, small - 1])
    small = np.concatenate([small, small | np.uint32(0x80000000)])
    pow2 = np.ldexp(1.0, np.arange(-140, 128)).astype(np.float32).view(np.uint32)  # e8m0 boundaries
    pow2 = np.concatenate([pow2, pow2 + 1, pow2 - 1, pow2 | np.uint32(0x80000000)])
    specials = np.array([0, 0x80000000, 1, 0x007FFFFF, 0x00800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000,
                         0x7FC00000, 0xFFC00000, 0x7F800001, 0x7FA12345, 0xFFFFFFFF, 0x3F800000, 0xBF800000],
                        np.uint32)
    f16 = np.arange(0, 1 << 16, 5, dtype=np.uint16)
    with np.errstate(invalid="ignore"):
        wid = f16.view(np.float16).astype(np.float32).view(np.uint32)
    f = np.concatenate([specials, _boundaries_f32(), small, pow2, wid,
                        rng.integers(0, 2**32, 4096, dtype=np.uint64).astype(np.uint32),
                        rng.uniform(-600, 600, 4096).astype(np.float32).view(np.uint32)]).view(np.float32)
    with np.errstate(invalid="ignore"):
        fd = f.astype(np.float64)
    # doubles just off the rounding boundaries: a float conversion first would round them onto the boundary
    b = _boundaries_f32().view(np.float32).astype(np.float64)
    d = np.concatenate([fd, b * (1 + 2.0**-40), b * (1 - 2.0**-40), rng.standard_normal(2048) * 300,
                        np.array([1e300, -1e300, 5e-324, 1e-300], np.float64)])
    x8 = np.arange(256, dtype=np.uint16)
    xs = np.concatenate([x8 | (rng.permutation(x8) << 8), rng.integers(0, 65536, 2048, dtype=np.uint16)])
    v = np.concatenate([np.array([0, 1, -1, 447, 448, 449, 463, 464, 465, 479, 480, 481, 57343, 57344, 57345, 61439,
                                  61440, 61441, 65535, 65536, -448, -464, -57344, -61440, 2**31 - 1, -2**31, 2**32 - 1,
                                  2**63 - 1, -2**63, 32767, -32768, 12345, -6789], np.int64),
                        rng.integers(-70000, 70000, 1024), rng.integers(-(2**63), 2**63 - 1, 512, dtype=np.int64)])
    return {"f": f, "d": d, "xs": xs, "v": v}


def record(path: str) -> None:
    import cupy as cp

    inp = inputs()
    out: dict[str, np.ndarray] = dict(inp)
    problems: list[str] = []

    def launch(fn, n: int, *args) -> None:
        fn(((n + 127) // 128,), (128,), (*args, np.int32(n)))

    try:
        mod = cp.RawModule(code=(KERNELS / "fp8_goldens.cu").read_text(), options=("-std=c++17",))
        for key, kern in (("f", "fp8_from_float"), ("d", "fp8_from_double")):
            n = inp[key].size
            o, o2, o4 = cp.zeros(n * NF8, cp.uint8), cp.zeros(n * NF16, cp.uint16), cp.zeros(n * 2, cp.uint32)
            launch(mod.get_function(kern), n, cp.asarray(inp[key]), o, o2, o4)
            out[f"{key}_fp8"], out[f"{key}_fp8x2"] = o.get().reshape(n, NF8), o2.get().reshape(n, NF16)
            out[f"{key}_fp8x4"] = o4.get().reshape(n, 2)
        n = 1 << 16
        x16 = cp.arange(n, dtype=cp.uint16)
        o, o2, o4 = cp.zeros(n * NF8, cp.uint8), cp.zeros(n * NF16, cp.uint16), cp.zeros(n * 4, cp.uint32)
        launch(mod.get_function("fp8_from_16"), n, x16, o, o2, o4)
        out["h_fp8"], out["h_fp8x2"], out["h_fp8x4"] = (o.get().reshape(n, NF8), o2.get().reshape(n, NF16),
                                                       o4.get().reshape(n, 4))
        n = inp["xs"].size
        o2, o = cp.zeros(n * 8, cp.uint32), cp.zeros(256 * 2 * NTO, cp.uint64)
        launch(mod.get_function("fp8_to"), n, cp.asarray(inp["xs"]), o2, o)
        out["to_x2"], out["to_scalar"] = o2.get().reshape(n, 8), o.get().reshape(256, 2, NTO)
        n = inp["v"].size
        o = cp.zeros(n * NINT8, cp.uint8)
        launch(mod.get_function("fp8_from_int"), n, cp.asarray(inp["v"]), o)
        out["int_fp8"] = o.get().reshape(n, NINT8)
    except Exception as e:  # noqa: BLE001 - report and keep what ran
        problems.append(f"fp8_goldens.cu: {type(e).__name__}: {e}")
    try:
        mod = cp.RawModule(code=(KERNELS / "fp6fp4_goldens.cu").read_text(), options=("-std=c++17",))
        n = inp["f"].size
        o = cp.zeros(n * NSMALL, cp.uint8)
        launch(mod.get_function("small_from_float"), n, cp.asarray(inp["f"]), o)
        out["f_small"] = o.get().reshape(n, NSMALL)
        o = cp.zeros(256 * 4, cp.uint16)
        launch(mod.get_function("small_to"), 256, o)
        out["small_to"] = o.get().reshape(256, 4)
    except Exception as e:  # noqa: BLE001
        problems.append(f"fp6fp4_goldens.cu: {type(e).__name__}: {e}")
    dev = cp.cuda.runtime.getDeviceProperties(0)
    out["meta"] = np.array([f"{dev['name'].decode()} cc {dev['major']}.{dev['minor']}, CUDA runtime "
                            f"{cp.cuda.runtime.runtimeGetVersion()}, driver {cp.cuda.runtime.driverGetVersion()}, "
                            f"cupy {cp.__version__}"])
    out["problems"] = np.array(problems or [""])
    np.savez_compressed(path, **out)
    print("\n".join(problems) if problems else "all kernels ran", flush=True)


if __name__ == "__main__":
    record(sys.argv[1] if len(sys.argv) > 1 else "cuda_fp8_goldens.npz")
