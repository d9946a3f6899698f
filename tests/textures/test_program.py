"""A real textured CUDA C++ program (programs/rotate.cu: image rotation with tex2D and linear
filtering on normalized coordinates with border addressing, a bilinear resize of a float2 texture
into a surface) built with cumetalc's build_program and run on the cpu backend, against numpy."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tests.textures import nvtex_reference as R

from cumetal.capi.build import build_program
from cumetal.cudacxx.options import CudaOptions

SRC = Path(__file__).parent / "programs" / "rotate.cu"
W, H, W2, H2 = 24, 16, 37, 11


def _bilinear(img: np.ndarray, x: np.ndarray, y: np.ndarray, border: bool) -> np.ndarray:
    return R.bilinear(img, x, y, 0.0 if border else None)


@pytest.fixture(scope="module")
def results(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("rotate")
    exe = d / "rotate"
    build_program([SRC], exe, CudaOptions())
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"CUMETAL_BACKEND": "cpu"}
    r = subprocess.run([str(exe), str(d)], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert r.returncode == 0 and "PASS" in r.stdout, r.stdout + r.stderr
    return d


def _image() -> np.ndarray:
    return (((np.arange(W * H) * 37) % 101) / np.float32(7.0)).astype(np.float32).reshape(H, W)


def test_rotation_matches_numpy(results: Path) -> None:
    got = np.fromfile(results / "rotated.bin", np.float32).reshape(H, W)
    y, x = np.mgrid[0:H, 0:W]
    u = (x.astype(np.float32) / np.float32(W) - np.float32(0.5)).astype(np.float32)
    v = (y.astype(np.float32) / np.float32(H) - np.float32(0.5)).astype(np.float32)
    c, s = np.float32(np.cos(np.float32(0.5))), np.float32(np.sin(np.float32(0.5)))
    tu = (u * c - v * s + np.float32(0.5)).astype(np.float32)
    tv = (v * c + u * s + np.float32(0.5)).astype(np.float32)
    # normalized coordinates: truncated to 16 fractional bits, then scaled (docs/textures.md)
    tx = (np.floor(tu.astype(np.float64) * 65536) / 65536 * W).astype(np.float32)
    ty = (np.floor(tv.astype(np.float64) * 65536) / 65536 * H).astype(np.float32)
    want = _bilinear(_image(), tx, ty, border=True)
    close = np.abs(got - want) <= 1e-5 * np.maximum(1, np.abs(want))
    assert close.mean() > 0.97, close.mean()  # device cosf/sinf may move a coordinate by an ulp
    assert np.abs(got - want).max() < 0.2
    assert (got == 0).sum() > 10  # corners rotated outside the image read the border (0)


def test_resize_into_surface_matches_numpy(results: Path) -> None:
    got = np.fromfile(results / "resized.bin", np.float32).reshape(H2, W2)
    img = _image()
    second = (np.arange(W * H) % 13).astype(np.float32).reshape(H, W)
    y, x = np.mgrid[0:H2, 0:W2]
    sx, sy = np.float32(W / W2), np.float32(H / H2)
    px = ((x + np.float32(0.5)).astype(np.float32) * sx).astype(np.float32)
    py = ((y + np.float32(0.5)).astype(np.float32) * sy).astype(np.float32)
    want = _bilinear(img, px, py, border=False) + _bilinear(second, px, py, border=False)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)
