"""Host generators (curandCreateGeneratorHost) of the Box-Muller family compute float normals and
log-normals with the CPU's math (log/exp/sin/cos correctly rounded), device generators with the
GPU's approximations: both checked against what NVIDIA's CUDALibrarySamples printed on an H100
machine (tests/libs/golden/cuda_library_samples_h100.json, scripts/run_cuda_library_samples.py;
"%f" of each value, Host and Device sections; seed 1234, offset 0, PSEUDO_BEST, mean 1, stddev 2)."""

from __future__ import annotations

import json
import pathlib

import pytest

from cumetal.libs.curand import host as H

GOLDEN = pathlib.Path(__file__).parent / "golden" / "cuda_library_samples_h100.json"
CASES = {"xorwow": (H.XORWOW, 10), "philox": (H.PHILOX, 12), "mrg32k3a": (H.MRG32K3A, 10)}


def _sections(stdout: str) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    current = None
    for line in stdout.splitlines():
        if line in ("Host", "Device"):
            current = out.setdefault(line, [])
        elif line == "=====":
            current = None
        elif current is not None:
            current.append(line)
    return out


@pytest.mark.parametrize("kind", ["normal", "lognormal"])
@pytest.mark.parametrize("name", list(CASES))
def test_host_and_device_generator_normals(name: str, kind: str) -> None:
    sample = f"cuRAND/Host/{name}/curand_{name}_{kind}_example.cpp"
    want = _sections(json.loads(GOLDEN.read_text())["samples"][sample]["stdout"])
    rng, n = CASES[name]
    got = {}
    for section, on_host in (("Host", True), ("Device", False)):
        h = H.create(rng, on_host)
        try:
            g = H.get(h)
            g.seed = 1234
            H.set_ordering(g, 100)  # CURAND_ORDERING_PSEUDO_BEST
            got[section] = [f"{v:.6f}" for v in H.values(g, kind, n, 1.0, 2.0)]
        finally:
            H.destroy(h)
    assert got == want


def test_host_math_differs_from_the_gpus() -> None:
    """The two sections printed by NVIDIA differ (so the test above tells the two paths apart)."""
    samples = json.loads(GOLDEN.read_text())["samples"]
    differ = 0
    for name in CASES:
        for kind in ("normal", "lognormal"):
            s = _sections(samples[f"cuRAND/Host/{name}/curand_{name}_{kind}_example.cpp"]["stdout"])
            differ += sum(a != b for a, b in zip(s["Host"], s["Device"], strict=True))
    assert differ >= 10
