"""cuda_fp8.h (clean room) and the PTX fp8/fp6/fp4/ue8m0 conversions.

Truth: outputs of NVIDIA's own cuda_fp8.h / cuda_fp6.h / cuda_fp4.h recorded on an H100
(scripts/make_cuda_fp8_goldens.py -> data/cuda_fp8_goldens.npz), and an exact rational model of the
formats written here (fractions, no numpy float rounding). The header is compiled for sm_80 (its
integer algorithm) and sm_90 (PTX cvt .e4m3x2/.e5m2x2), so both paths are checked.
"""

from __future__ import annotations

import math
import pathlib
from fractions import Fraction

import numpy as np
import pytest
from cuda_headers_harness import I32, ok

from cumetal import driver as cu

DATA = pathlib.Path(__file__).with_name("data") / "cuda_fp8_goldens.npz"
ROOT = pathlib.Path(__file__).resolve().parents[2]
FORMATS = {"e4m3": (4, 3, 7, 0x7E, 0x7F), "e5m2": (5, 2, 15, 0x7B, 0x7C),  # E, M, bias, max code, overflow code
           "e2m3": (2, 3, 1, 0x1F, None), "e3m2": (3, 2, 3, 0x1F, None), "e2m1": (2, 1, 1, 0x7, None)}


def encode(x: float, fmt: str, sat: bool = True) -> int:
    """Exact round-to-nearest-even encoding of x (a float64 holding an exact value)."""
    e_bits, m_bits, bias, max_code, over = FORMATS[fmt]
    sign_bit = 1 << (e_bits + m_bits)
    if math.isnan(x):
        return 0x7F if over is not None else max_code
    s = sign_bit if math.copysign(1.0, x) < 0 else 0
    if math.isinf(x):
        return s | (max_code if sat else over)
    if x == 0:
        return s
    mant, exp = math.frexp(abs(x))  # exact: |x| = k * 2^(exp - 53) with an integer k
    k, p = int(mant * (1 << 53)), exp - 53
    emin = 1 - bias
    e = max(exp - 1, emin)  # the exponent whose quantum 2^(e - m_bits) the result is counted in
    shift = e - m_bits - p
    n, r = divmod(k, 1 << shift) if shift > 0 else (k << -shift, 0)
    half = Fraction(1 << shift, 2) if shift > 0 else 1
    if r > half or (r == half and n % 2):
        n += 1
    code = ((e - emin) << m_bits) + n  # a carry moves into the exponent field
    if code > max_code:
        return s | (max_code if sat else over)
    return s | code


def decode(code: int, fmt: str) -> float:
    e_bits, m_bits, bias, _, over = FORMATS[fmt]
    s = -1.0 if code >> (e_bits + m_bits) & 1 else 1.0
    e, m = (code >> m_bits) & ((1 << e_bits) - 1), code & ((1 << m_bits) - 1)
    mag = code & ((1 << (e_bits + m_bits)) - 1)
    if fmt == "e4m3" and mag == 0x7F or fmt == "e5m2" and mag > 0x7C:
        return math.nan
    if fmt == "e5m2" and mag == 0x7C:
        return s * math.inf
    return s * (m * 2.0 ** (1 - bias - m_bits) if e == 0 else (m + (1 << m_bits)) * 2.0 ** (e - bias - m_bits))


def f16_bits(x: float) -> int:
    return 0x7FFF if math.isnan(x) else int(np.array(x, np.float16).view(np.uint16))


@pytest.fixture(scope="module")
def golden():
    return dict(np.load(DATA))


@pytest.fixture(scope="module")
def model(golden):
    """The exact model's answers for the float inputs and every half value (computed once)."""
    cols = (("e4m3", True), ("e5m2", True), ("e4m3", False), ("e5m2", False))
    with np.errstate(invalid="ignore"):
        f = golden["f"].astype(np.float64)
    h = np.arange(1 << 16, dtype=np.uint16).view(np.float16).astype(np.float64)
    return {"f": np.array([[encode(float(x), fmt, sat) for fmt, sat in cols] for x in f]),
            "h": np.array([[encode(float(x), fmt, sat) for fmt, sat in cols] for x in h])}


def _run(gpu, kernel: str, n: int, ins: list[np.ndarray], outs: list[tuple[int, np.dtype]]) -> list[np.ndarray]:
    dev_in = [gpu.to_device(a) for a in ins]
    dev_out = [gpu.to_device(np.zeros(k * n, dt)) for k, dt in outs]
    gpu.run(kernel, ((n + 127) // 128,), (128,), [*((d, None) for d in dev_in), *((d, None) for d in dev_out),
                                                  (n, I32)])
    return [gpu.from_device(d, np.zeros(k * n, dt)).reshape(n, k) if k > 1 else gpu.from_device(d, np.zeros(n, dt))
            for d, (k, dt) in zip(dev_out, outs, strict=True)]


@pytest.fixture(scope="module", params=["sm_80", "sm_90"])
def ours(request, gpu, golden):
    gpu.load("fp8_goldens.cu", arch=request.param)
    res = {}
    for key, kern in (("f", "fp8_from_float"), ("d", "fp8_from_double")):
        a, b, c = _run(gpu, kern, golden[key].size, [golden[key]], [(8, np.uint8), (6, np.uint16), (2, np.uint32)])
        res[f"{key}_fp8"], res[f"{key}_fp8x2"], res[f"{key}_fp8x4"] = a, b, c
    x16 = np.arange(1 << 16, dtype=np.uint16)
    res["h_fp8"], res["h_fp8x2"], res["h_fp8x4"] = _run(gpu, "fp8_from_16", x16.size, [x16],
                                                        [(8, np.uint8), (6, np.uint16), (4, np.uint32)])
    n = golden["xs"].size
    dev_x = gpu.to_device(golden["xs"])
    o2, o = gpu.to_device(np.zeros(8 * n, np.uint32)), gpu.to_device(np.zeros(256 * 40, np.uint64))
    gpu.run("fp8_to", ((n + 127) // 128,), (128,), [(dev_x, None), (o2, None), (o, None), (n, I32)])
    res["to_x2"] = gpu.from_device(o2, np.zeros(8 * n, np.uint32)).reshape(n, 8)
    res["to_scalar"] = gpu.from_device(o, np.zeros(256 * 40, np.uint64)).reshape(256, 2, 20)
    (res["int_fp8"],) = _run(gpu, "fp8_from_int", golden["v"].size, [golden["v"]], [(16, np.uint8)])
    return res


KEYS = ["f_fp8", "f_fp8x2", "f_fp8x4", "d_fp8", "d_fp8x2", "d_fp8x4", "h_fp8", "h_fp8x2", "h_fp8x4", "to_x2",
        "to_scalar", "int_fp8"]


@pytest.mark.parametrize("key", KEYS)
def test_bit_identical_to_nvidia_header_on_h100(golden, ours, key):
    bad = np.argwhere(ours[key] != golden[key])
    assert bad.size == 0, (f"{len(bad)} results differ from NVIDIA's cuda_fp8.h on {golden['meta'][0]}, "
                           f"first (index...): {bad[:5].tolist()}")


def test_float_conversions_match_the_exact_model(model, ours):
    assert np.array_equal(ours["f_fp8"][:, :4], model["f"])


def test_every_half_value_matches_the_exact_model(model, ours):
    assert np.array_equal(ours["h_fp8"][:, :4], model["h"])


def test_exact_model_agrees_with_the_h100(model, golden):
    """The model itself, against NVIDIA (so a wrong model cannot make the two tests above pass)."""
    assert np.array_equal(model["f"], golden["f_fp8"][:, :4])
    assert np.array_equal(model["h"], golden["h_fp8"][:, :4])


def test_decoding_is_exact(ours, golden):
    lo = golden["xs"] & 0xFF
    got = ours["to_x2"][:, 2]
    for i, b in enumerate(lo):
        assert got[i] & 0xFFFF == f16_bits(decode(int(b), "e4m3"))
        assert got[i] >> 16 == f16_bits(decode(int(golden["xs"][i]) >> 8, "e5m2"))


# ---- e8m0 in the header, PTX fp6/fp4/ue8m0 cvt (sm_100a forms; truth: NVIDIA's headers on the H100)

@pytest.fixture(scope="module")
def narrow(gpu, golden):
    gpu.load("fp8_e8m0.cu", arch="sm_90")
    f = golden["f"]
    (e8,) = _run(gpu, "e8m0_from_float", f.size, [f], [(4, np.uint8)])
    (e8_to,) = _run(gpu, "e8m0_to", 256, [], [(1, np.uint16)])
    (ptx,) = _run(gpu, "ptx_narrow_from_float", f.size, [f], [(8, np.uint16)])
    (ptx_to,) = _run(gpu, "ptx_narrow_to", 256, [], [(4, np.uint32)])
    return {"e8": e8, "e8_to": e8_to, "ptx": ptx, "ptx_to": ptx_to}


def test_e8m0_header_matches_nvidia(narrow, golden):
    assert np.array_equal(narrow["e8"], golden["f_small"][:, 12:16])
    assert np.array_equal(narrow["e8_to"], golden["small_to"][:, 3])


def test_ptx_fp6_fp4_ue8m0_cvt_match_nvidia_headers(narrow, golden):
    small, ptx = golden["f_small"], narrow["ptx"]
    assert np.array_equal(ptx[:, 0] & 0xFF, small[:, 0])  # e2m3 rn
    assert np.array_equal(ptx[:, 1] & 0xFF, small[:, 2])  # e3m2 rn
    assert np.array_equal(ptx[:, 2] & 0xF, small[:, 4])  # e2m1 rn
    assert np.array_equal(ptx[:, 3] & 0xFF, small[:, 12])  # ue8m0 rz satfinite
    assert np.array_equal(ptx[:, 4] & 0xFF, small[:, 13])  # ue8m0 rp satfinite
    assert np.array_equal(ptx[:, 5] & 0xFF, small[:, 14])  # ue8m0 rz
    # the high element is 1.0 in every format
    assert set((ptx[:, 0] >> 8).tolist()) == {0x08} and set((ptx[:, 2] >> 4).tolist()) == {0x2}
    neg = np.signbit(golden["f"]) & ~np.isnan(golden["f"])
    relu = np.where(neg, 0, small[:, 0])
    assert np.array_equal(ptx[:, 6] & 0xFF, relu)
    to = narrow["ptx_to"]
    assert np.array_equal(to[:, 0] & 0xFFFF, golden["small_to"][:, 0])
    assert np.array_equal(to[:, 1] & 0xFFFF, golden["small_to"][:, 1])
    assert np.array_equal(to[:16, 2] & 0xFFFF, golden["small_to"][:16, 2])
    assert np.array_equal(to[:, 3] & 0xFFFF, golden["small_to"][:, 3])


def test_triton_fp8_cast_corpus_kernel_runs(gpu):
    """tests/corpus/ptx/triton/sm90/fp8_cast.ptx: y = fp16(fp8e4m3(x)) (cvt.rn.satfinite.e4m3x2.f16x2 and back)."""
    ptx = (ROOT / "tests/corpus/ptx/triton/sm90/fp8_cast.ptx").read_bytes()
    mod = ok(cu.cuModuleLoadData(ptx))
    fn = ok(cu.cuModuleGetFunction(mod, b"fp8_cast_kernel"))
    x = np.arange(1 << 16, dtype=np.uint16)
    n = x.size
    dx, dy = gpu.to_device(x), gpu.to_device(np.zeros(n, np.uint16))
    scratch = gpu.to_device(np.zeros(16, np.uint8))
    args = ((dx, dy, n, scratch, scratch), (None, None, I32, None, None))
    (err,) = cu.cuLaunchKernel(fn, n // 1024, 1, 1, 128, 1, 1, 0, 0, args, 0)
    assert err == cu.CUresult.CUDA_SUCCESS
    ok(cu.cuCtxSynchronize())
    y = gpu.from_device(dy, np.zeros(n, np.uint16))
    want = np.array([f16_bits(decode(encode(float(v), "e4m3"), "e4m3"))
                     for v in x.view(np.float16).astype(np.float64)], np.uint16)
    assert np.array_equal(y, want)
    ok(cu.cuModuleUnload(mod))


# ---- cuda_fp6.h / cuda_fp4.h: fp6fp4_goldens.cu as recorded with NVIDIA's headers on the H100

@pytest.mark.parametrize("arch", ["sm_80", "sm_90"])
def test_fp6_fp4_headers_match_nvidia(gpu, golden, arch):
    gpu.load("fp6fp4_goldens.cu", arch=arch)
    f = golden["f"]
    (small,) = _run(gpu, "small_from_float", f.size, [f], [(16, np.uint8)])
    assert np.array_equal(small, golden["f_small"]), np.argwhere(small != golden["f_small"])[:5].tolist()
    (to,) = _run(gpu, "small_to", 256, [], [(4, np.uint16)])
    assert np.array_equal(to, golden["small_to"]), np.argwhere(to != golden["small_to"])[:5].tolist()


def test_fp6_fp4_types_pack_and_convert(gpu, golden):
    """The x4 types pack element i at bits 8i (fp6, e8m0) / 4i (fp4), like the conversion functions;
    the scalar types convert back to the exact value."""
    gpu.load("fp8_e8m0.cu", arch="sm_90")
    f = golden["f"]
    n = f.size
    (got,) = _run(gpu, "fp6fp4_types", n, [f], [(4, np.uint32)])
    idx = [(np.arange(n) * k + c) % n for k, c in ((1, 0), (7, 1), (13, 5), (31, 3))]
    e2m3, e2m1 = golden["f_small"][:, 0].astype(np.uint32), golden["f_small"][:, 4].astype(np.uint32)
    assert np.array_equal(got[:, 0], sum(e2m3[j] << (8 * i) for i, j in enumerate(idx)))
    assert np.array_equal(got[:, 1], sum(e2m1[j] << (4 * i) for i, j in enumerate(idx)))
    half = golden["small_to"][golden["f_small"][:, 2], 1]  # e3m2 value of f, as binary16
    assert np.array_equal(got[:, 2].view(np.float32), half.view(np.float16).astype(np.float32))
    e8m0 = golden["f_small"][:, 13].astype(np.uint32)  # __nv_cvt_float_to_e8m0(f, SATFINITE, PosInf)
    assert np.array_equal(got[:, 3], sum(e8m0[j] << (8 * i) for i, j in enumerate(idx)))


def test_ptxas_accepts_the_narrow_cvt_forms(tmp_path):
    """The sm_100a conversions of fp8_e8m0.cu (and the sm_90 ones cuda_fp8.h writes) as NVIDIA's ptxas
    reads them, where ptxas is installed: CuMetal's table takes no form ptxas would refuse."""
    import shutil
    import subprocess

    from cuda_headers_harness import compile_kernels

    ptxas = shutil.which("ptxas")
    if ptxas is None:
        pytest.skip("ptxas is not installed")
    for name, arch in (("fp8_e8m0.cu", "sm_100a"), ("fp8_goldens.cu", "sm_90")):
        ptx = compile_kernels(name, arch="sm_90")
        if arch != "sm_90":
            ptx = ptx.replace(".version 7.8", ".version 8.7").replace(".target sm_90", f".target {arch}")
        (tmp_path / "k.ptx").write_text(ptx)
        proc = subprocess.run([ptxas, f"-arch={arch}", str(tmp_path / "k.ptx"), "-o", str(tmp_path / "k.cubin")],
                              capture_output=True, text=True, timeout=120)
        assert proc.returncode == 0, (name, proc.stderr[-2000:])


# ---- the same headers in host code (the integer algorithm and __half's host conversions)

@pytest.fixture(scope="module")
def host(tmp_path_factory):
    import ctypes
    import platform
    import subprocess

    from cumetal.cudacxx import include_dir
    from cumetal.cudacxx.toolchain import find_clang

    targets = {("Linux", "x86_64"): "x86_64-linux-gnu", ("Linux", "aarch64"): "aarch64-linux-gnu",
               ("Darwin", "arm64"): "aarch64-macos"}
    key = (platform.system(), platform.machine())
    if key not in targets:
        pytest.skip(f"no host build recipe for {key}")
    clang = find_clang()
    out = tmp_path_factory.mktemp("fp8host")
    obj, lib = out / "fp8.o", out / "libfp8.so"
    target = ["-target", targets[key]] if clang.argv_prefix[-1] == "clang" else []
    subprocess.run(clang.command(["-x", "cuda", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0",
                                  "--cuda-host-only", "-Wno-unknown-cuda-version", *target, "-O1", "-fPIC", "-c",
                                  "-I", str(include_dir()), "-include", "cuda_runtime.h",
                                  str(pathlib.Path(__file__).with_name("kernels") / "fp8_host.cu"), "-o", str(obj)]),
                   check=True, capture_output=True)
    linker = [*clang.argv_prefix[:-1], "cc"] if clang.argv_prefix[-1] == "clang" else list(clang.argv_prefix)
    subprocess.run([*linker, "-shared", *target, str(obj), "-o", str(lib)], check=True, capture_output=True)
    return ctypes.CDLL(str(lib))


def _p(a: np.ndarray):
    import ctypes

    return a.ctypes.data_as(ctypes.c_void_p)


def test_host_code_matches_nvidia(host, golden):
    import ctypes

    f, d = golden["f"], golden["d"]
    got = np.zeros((f.size, 8), np.uint8)
    host.host_from_float(_p(f), _p(got), ctypes.c_int(f.size))
    assert np.array_equal(got[:, :6], golden["f_fp8"][:, :6])
    got = np.zeros((d.size, 8), np.uint8)
    host.host_from_double(_p(d), _p(got), ctypes.c_int(d.size))
    assert np.array_equal(got[:, :6], golden["d_fp8"][:, :6])
    got = np.zeros((1 << 16, 8), np.uint8)
    host.host_from_16(_p(got), ctypes.c_int(1 << 16))
    assert np.array_equal(got, golden["h_fp8"])
    got = np.zeros((256, 2, 20), np.uint64)
    host.host_to_scalar(_p(got))
    assert np.array_equal(got[:, :, :16], golden["to_scalar"][:, :, :16]), \
        np.argwhere(got[:, :, :16] != golden["to_scalar"][:, :, :16])[:5].tolist()
    small, to = np.zeros((f.size, 16), np.uint8), np.zeros((256, 4), np.uint16)
    host.host_small(_p(f), _p(small), _p(to), ctypes.c_int(f.size))
    assert np.array_equal(small, golden["f_small"]) and np.array_equal(to, golden["small_to"])
