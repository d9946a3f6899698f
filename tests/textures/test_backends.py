"""The texture lowering on the AIR and MSL simulators (what the Metal device runs): fetches equal
the numpy model (and so the cpu backend) bit for bit. Each backend runs in a subprocess, as the
device is chosen when the driver starts."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = """
import numpy as np
from tests.textures import harness as H
from tests.textures.test_goldens import _reference
data, meta = H.goldens()
def pick(**kw):
    return next(i for i, m in enumerate(meta) if f"c{i}_out" in data and all(m[k] == v for k, v in kw.items()))
for i in (pick(geom="2d", fmt="u8x4", filter="linear", read="normalized", addr="border", norm=1),
          pick(geom="1dl", fmt="f32x1", filter="point", addr="wrap", norm=1)):
    out = H.run_config(i)
    assert np.array_equal(out, _reference(i)), meta[i]
print("OK")
"""


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
def test_fetches_on_simulated_metal_backends(backend: str) -> None:
    env = os.environ | {"CUMETAL_BACKEND": backend, "PYTHONPATH": str(ROOT)}
    r = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, env=env,
                       timeout=600, check=False)
    assert r.returncode == 0 and "OK" in r.stdout, r.stdout[-2000:] + r.stderr[-2000:]
