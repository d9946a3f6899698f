"""CuMetal's cuRAND reference generators against outputs recorded on an NVIDIA H100
(scripts/make_curand_goldens.py → tests/libs/golden/curand_device_goldens.npz)."""

from __future__ import annotations

import pathlib

import numpy as np

from cumetal.libs.curand import philox

GOLDEN = pathlib.Path(__file__).parent / "golden"


def test_philox_device_sequences_bit_exact() -> None:
    g = np.load(GOLDEN / "curand_device_goldens.npz")
    configs, recorded = g["configs"], g["philox"]
    for i, (seed, sub, off) in enumerate(configs):
        got = philox.device_sequence(int(seed), int(sub), int(off), 8)
        np.testing.assert_array_equal(got, recorded[i, 0].astype(np.uint32), err_msg=f"config {i}: {seed, sub, off}")
        # skipahead(123457) then 8 values: the same stream 123457 values further on
        np.testing.assert_array_equal(philox.device_sequence(int(seed), int(sub), int(off) + 123457, 8),
                                      recorded[i, 14].astype(np.uint32))


def test_philox_host_api_starts_with_subsequence_blocks() -> None:
    """Host generator (default ordering): output block j (4 values) is counter j // T of subsequence
    j % T; the first blocks are the first block of subsequences 0, 1, 2, ..."""
    host = np.load(GOLDEN / "curand_host_goldens.npz")["PHILOX4_32_10/u32/seed1234"]
    for j in range(6):
        np.testing.assert_array_equal(host[4 * j:4 * j + 4], philox.blocks(1234, np.array([0], np.uint64), j)[0])


def test_xorwow_and_mrg32k3a_references_bit_exact() -> None:
    """The Python references (used by the host API and to derive the header's jump tables) for
    every recorded configuration: curand() after curand_init(seed, subsequence, offset)."""
    from cumetal.libs.curand import mrg32k3a, xorwow

    g = np.load(GOLDEN / "curand_device_goldens.npz")
    for i, (seed, sub, off) in enumerate(g["configs"]):
        v, d = xorwow.init(int(seed), int(sub), int(off))
        np.testing.assert_array_equal(xorwow.generate(v, d, 8)[0], g["xorwow"][i, 0].astype(np.uint32))
        s1, s2 = mrg32k3a.init(int(seed), int(sub), int(off))
        np.testing.assert_array_equal(mrg32k3a.to_u32(mrg32k3a.raw(s1, s2, 8)[0]), g["mrg"][i, 0].astype(np.uint32))
