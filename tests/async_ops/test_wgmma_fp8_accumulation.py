"""fp8 wgmma accumulation against an H100: 32 m64n16k32 launches (16,384 results) of the 600 that
scripts/probe_wgmma_fp8.py recorded (24 Nov 2026, H100 80GB HBM3, driver 580.159.04; every one of
the 614,400 results matches the model of passes/semantics/wgmma.py, checked offline), two of each
input shape for e4m3 x e4m3 and one for e5m2 x e5m2 and e4m3 x e5m2: uniform bytes, narrow
exponent bands, one large product among small ones, C zero, B = +-1, wide C, cancelling pairs,
subnormal operands."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path

import numpy as np
import pytest

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
_H100 = np.load(HERE / "wgmma_fp8_h100.npz")


def _probe_module():
    spec = importlib.util.spec_from_file_location("probe_wgmma_fp8", ROOT / "scripts" / "probe_wgmma_fp8.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def cu():
    os.environ.setdefault("CUMETAL_BACKEND", "cpu")
    from cumetal import driver

    driver.cuInit(0)
    return driver


@pytest.mark.parametrize("tag", ["e4m3_e4m3", "e5m2_e5m2", "e4m3_e5m2"])
def test_fp8_wgmma_matches_the_h100_bit_for_bit(cu, tag: str) -> None:
    probe = _probe_module().Probe(cu, *tag.split("_"))
    kinds, a, b, c, d = (_H100[f"{tag}@{f}"] for f in ("kind", "a", "b", "c", "d"))
    for i, kind in enumerate(kinds):
        got = probe.run(a[i], b[i], c[i])
        bad = np.flatnonzero(got != d[i])
        assert len(bad) == 0, f"{tag} launch {i} ({kind}): {len(bad)} of {got.size} results differ, first " \
                              f"{got.ravel()[bad[0]]:#010x} vs the H100's {d[i].ravel()[bad[0]]:#010x}"
