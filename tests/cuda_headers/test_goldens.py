"""CuMetal's headers against outputs recorded on an NVIDIA H100 with NVIDIA's own headers
(scripts/make_cuda_header_goldens.py; tests/cuda_headers/data/cuda_header_goldens.npz):
fp16/bf16 arithmetic on special values, NaN payloads in conversions, half/bf16 -> integer,
h* math, __byte_perm, __fns, funnel shifts and the SIMD intrinsics."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from cuda_headers_harness import I32

DATA = pathlib.Path(__file__).with_name("data") / "cuda_header_goldens.npz"


@pytest.fixture(scope="module")
def golden():
    return dict(np.load(DATA))


@pytest.fixture(scope="module")
def ours(gpu, golden):
    gpu.load("goldens.cu")

    def run(name: str, ins: list[str], outs: list[str]) -> dict[str, np.ndarray]:
        n = golden[ins[0]].size
        dev = [gpu.to_device(golden[k]) for k in ins]
        douts = [gpu.to_device(np.zeros(golden[k].size, golden[k].dtype)) for k in outs]
        gpu.run(name, ((n + 127) // 128,), (128,), [*((d, None) for d in dev), *((d, None) for d in douts), (n, I32)])
        return {k: gpu.from_device(d, np.zeros(golden[k].size, golden[k].dtype)).reshape(golden[k].shape)
                for k, d in zip(outs, douts, strict=True)}

    res = run("golden_arith", ["a", "b", "c"], ["arith_half", "arith_bf16"])
    res.update(run("golden_conv", ["f", "d", "v"], ["conv16", "convi"]))
    res.update(run("golden_math", ["x"], ["math_half", "math_bf16"]))
    res.update(run("golden_int", ["ia", "ib", "ic"], ["int"]))
    return res


@pytest.mark.parametrize("key", ["arith_half", "arith_bf16", "conv16", "convi", "int"])
def test_bit_identical_to_nvidia(golden, ours, key):
    bad = np.argwhere(ours[key] != golden[key])
    assert bad.size == 0, f"{len(bad)} results differ from {golden['meta'][0]}, first (row, result): {bad[:5].tolist()}"


def _ordered(bits: np.ndarray) -> np.ndarray:
    b = bits.astype(np.int32)
    return np.where(b & 0x8000, -(b & 0x7FFF), b)


@pytest.mark.parametrize("key", ["math_half", "math_bf16"])
def test_math_within_one_ulp_of_nvidia(golden, ours, key):
    # CUDA computes these with hardware approximations; ours round the f32 results once
    got, want = ours[key], golden[key]
    nan_want = (want & 0x7FFF) > (0x7C00 if key == "math_half" else 0x7F80)
    nan_got = (got & 0x7FFF) > (0x7C00 if key == "math_half" else 0x7F80)
    assert np.array_equal(nan_got, nan_want)
    dist = np.abs(_ordered(got) - _ordered(want))[~nan_want]
    assert dist.max() <= 1
    assert (dist == 0).mean() > 0.999  # measured: 2 of 140,445 half results differ by 1 ulp, bf16 none
