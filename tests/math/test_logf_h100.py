"""logf is the H100's (issue #15): the black-box model (ir/semantics/logf.py, the library's
logf_h100.h) against NVIDIA's results recorded on an H100 (tests/math/golden/logf_h100.npz, made by
scripts/make_logf_fit.py sample from scripts/make_logf_recordings.py's recordings): 5,018 recorded
inputs (random bit patterns, specials, [0.5, 2), 2^-33, subnormals) bit for bit, and every input of
all 2^32 where the model still differs (checked on the H100: 3,729, each by one ulp)."""

from __future__ import annotations

import pathlib

import numpy as np
import pytest
from runner import run_unary_f32

from cumetal.ir.semantics.logf import logf_bits

GOLDEN = np.load(pathlib.Path(__file__).parent / "golden" / "logf_h100.npz")


def _ordered(bits: np.ndarray) -> np.ndarray:
    mag = (bits & 0x7FFFFFFF).astype(np.int64)
    return np.where(bits >> 31 != 0, -mag, mag)


def test_model_equals_the_h100_on_the_recorded_inputs() -> None:
    x, y = GOLDEN["x"], GOLDEN["y"]
    np.testing.assert_array_equal(logf_bits(x), y)


def test_the_only_differences_on_all_inputs_are_one_ulp() -> None:
    mx, my = GOLDEN["miss_x"], GOLDEN["miss_y"]
    assert len(mx) == int(GOLDEN["miss_count"][0]) == 3729
    got = logf_bits(mx)
    assert np.all(got != my)
    assert np.all(np.abs(_ordered(got) - _ordered(my)) == 1)


def test_special_values() -> None:
    x = np.array([0.0, -0.0, np.inf, -np.inf, -1.0, np.nan, 1.0, 2.0 ** -149], np.float32)
    got = logf_bits(x.view(np.uint32))
    want = [0xFF800000, 0xFF800000, 0x7F800000, 0x7FFFFFFF, 0x7FFFFFFF, 0x7FFFFFFF, 0, 0xC2CE8ED0]
    assert got.tolist() == want


@pytest.mark.parametrize("ftz", [False, True])
def test_library_logf_is_the_model(ftz: bool) -> None:
    """CUDA C++ logf (libdevice's __nv_logf) on the cpu device gives the model's bits (-ftz=true:
    subnormal arguments are zero)."""
    x = np.concatenate([GOLDEN["x"], GOLDEN["miss_x"]])
    y = run_unary_f32("logf", x, ftz=ftz)
    xin = x.copy()
    if ftz:
        sub = (x & 0x7F800000) == 0
        xin[sub] &= 0x80000000
    np.testing.assert_array_equal(y, logf_bits(xin))
