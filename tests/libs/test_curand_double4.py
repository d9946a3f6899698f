"""The four-wide double calls of cuRAND's device API (curand_uniform4_double, curand_normal4_double,
curand_log_normal4_double for Philox; curand_log_normal2_double for XORWOW, Philox and MRG32k3a)
against NVIDIA's: tests/libs/golden/src/curand_double4_goldens.cu built with nvcc on an H100
(scripts/make_curand_double4_goldens.py -> golden/curand_double4_goldens.npz) and with cumetalc here.
Each call is followed by a curand() draw, so a call that consumes a different number of words than
NVIDIA's shows up in every later value of the thread."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np
import pytest

GOLDEN = pathlib.Path(__file__).parent / "golden"
THREADS = 256
PHILOX_WORDS = 2 * (4 + 4 + 4 + 2 + 2 + 2) + 6
PAIR_WORDS = 2 * (2 + 1 + 2) + 2


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> tuple[np.ndarray, np.ndarray]:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    out = tmp_path_factory.mktemp("curand_double4")
    exe = out / "curand_double4"
    build_program([str(GOLDEN / "src" / "curand_double4_goldens.cu")], str(exe), libraries=["curand"])
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), str(out / "raw.bin")], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return np.fromfile(out / "raw.bin", np.uint32), np.load(GOLDEN / "curand_double4_goldens.npz")["raw"]


def _philox(raw: np.ndarray) -> np.ndarray:
    return raw[:THREADS * PHILOX_WORDS].reshape(THREADS, PHILOX_WORDS)


def _pairs(raw: np.ndarray, k: int) -> np.ndarray:
    base = THREADS * (PHILOX_WORDS + k * PAIR_WORDS)
    return raw[base:base + THREADS * PAIR_WORDS].reshape(THREADS, PAIR_WORDS)


def _doubles(words: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(words).view(np.float64)


def test_words_consumed_match(runs) -> None:
    """The curand() word after each call: equal everywhere means each call consumed NVIDIA's count."""
    got, ref = runs
    assert got.shape == ref.shape
    for col in (8, 17, 26, 31, 40, 41):
        np.testing.assert_array_equal(_philox(got)[:, col], _philox(ref)[:, col], err_msg=f"philox word {col}")
    for k in (0, 1):
        for col in (4, 11):
            np.testing.assert_array_equal(_pairs(got, k)[:, col], _pairs(ref, k)[:, col])


def test_philox_uniform4_double_bit_for_bit(runs) -> None:
    got, ref = runs
    np.testing.assert_array_equal(_philox(got)[:, :8], _philox(ref)[:, :8])
    u = _doubles(_philox(got)[:, :8])
    assert ((u > 0) & (u <= 1)).all()


def test_philox_normal4_and_log_normals_double(runs) -> None:
    """Box-Muller in double through the H100's sincospi/log/exp models: the share identical is that
    of curand_normal2_double's (docs/libraries.md), the rest within a few ulp."""
    got, ref = runs
    cols = np.r_[9:17, 18:26, 27:31, 32:40]
    g, r = _doubles(_philox(got)[:, cols]), _doubles(_philox(ref)[:, cols])
    np.testing.assert_allclose(g, r, rtol=1e-14, atol=0)
    assert (g == r).mean() >= 0.99
    normals = _doubles(_philox(ref)[:, 9:17])
    assert abs(normals.mean()) < 0.1 and 0.9 < normals.std() < 1.1  # the recording is normal draws


@pytest.mark.parametrize("k", [0, 1], ids=["xorwow", "mrg32k3a"])
def test_log_normal2_double_pairs(runs, k: int) -> None:
    got, ref = runs
    cols = np.r_[0:4, 5:11]
    g, r = _doubles(_pairs(got, k)[:, cols]), _doubles(_pairs(ref, k)[:, cols])
    np.testing.assert_allclose(g, r, rtol=1e-14, atol=0)
    assert (g == r).mean() >= 0.99


def test_part_headers_and_the_philox_block_function(tmp_path: pathlib.Path) -> None:
    """curand_philox4x32_x.h, curand_uniform.h, ... compile; curand_Philox4x32_10 gives Random123's
    known-answer vectors and the first curand4 of a curand_init'ed state."""
    from cumetal.capi.build import build_program  # noqa: PLC0415

    exe = tmp_path / "curand_part_headers"
    build_program([str(pathlib.Path(__file__).parent / "programs" / "curand_part_headers.cu")], str(exe),
                  libraries=["curand"])
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1"))
    assert (proc.returncode, proc.stdout) == (0, "ok\n"), proc.stdout + proc.stderr
