"""Thrust's set operations built with ``cumetalc -I <the user's CCCL>`` and run on the CPU device and on
air-sim (an Apple GPU's 32 KiB of threadgroup memory).

Thrust sizes their tiles for the 48 KiB of shared memory every CUDA device gives a block; with less
it takes a global-memory fallback its own launcher asserts against (they aborted while CuMetal's
devices reported Apple's 32 KiB). Every device now reports CUDA's 48 KiB; on air-sim the sm_80 tile
(more than 32 KiB) runs with its shared memory in device memory (backends/apple/shared_spill.py). The truth is Python's: sorted multisets counted with
``collections.Counter`` (a union keeps max(count) copies, an intersection min, a difference the excess),
numpy's ``union1d``/``intersect1d``/``setdiff1d``/``setxor1d`` where the inputs have no duplicates, and
the definitions of the ``_by_key`` forms (equal keys take the value from the first range; merge is
stable) written out in Python. Sizes: one tile, many tiles with the partition between them, and empty
ranges; one run of the program does every case (its start-up, not the kernels, costs the seconds).
"""

from __future__ import annotations

import collections
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include, cccl_version

PROGRAM = pathlib.Path(__file__).parent / "programs" / "thrust_set_operations.cu"
CCCL = cccl_include()
pytestmark = pytest.mark.skipif(CCCL is None, reason=SKIP_REASON)
VA, VB = 1_000_000, 2_000_000  # the program's values: 1000000 + index in A, 2000000 + index in B


RESULTS_PER_CASE = 15


def _cases() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """name -> sorted (A, B); duplicates and overlap unless the name says otherwise."""
    rng = np.random.default_rng(2024)
    cases = {}
    for name, na, nb, hi in (("one tile", 300, 200, 150), ("many tiles", 60000, 45000, 40000),
                             ("few matches, unequal sizes", 20000, 700, 10**6)):
        cases[name] = (np.sort(rng.integers(-hi, hi, na)), np.sort(rng.integers(-hi, hi, nb)))
    cases["no duplicates"] = (np.unique(rng.integers(0, 100000, 30000)), np.unique(rng.integers(0, 100000, 30000)))
    cases["B empty"] = (np.arange(0, 5000, 3), np.array([], np.int64))
    cases["A empty"] = (np.array([], np.int64), np.arange(0, 5000, 3))
    return cases


CASES = _cases()


# (cumetalc architecture, device): the default build (CUDA's 48 KiB per block: Thrust's sm_60+ tuning,
# 512 threads x 19 items) on cpu, and on air-sim, where that tile exceeds Apple's 32 KiB of threadgroup
# memory and lives in device memory
RUNS = {"cpu": ("sm_80", "cpu", list(CASES)), "air-sim": ("sm_80", "air-sim", ["one tile", "B empty"])}


def _build_and_run(out: pathlib.Path, arch: str, backend: str, names: list[str]) -> dict[str, list[list[int]]]:
    env = dict(os.environ, CUMETAL_CUDACXX_CACHE_DIR=str(out / "cache"))
    exe = out / "sets"
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", f"-arch={arch}", f"-I{CCCL}", str(PROGRAM),
                           "-o", str(exe)], capture_output=True, text=True, timeout=600, check=False, env=env)
    assert proc.returncode == 0, f"cumetalc failed (CCCL {cccl_version(CCCL)}):\n" + proc.stderr[-6000:]
    src, dst = out / "cases.in", out / "results.out"
    with open(src, "wb") as f:
        for name in names:
            for x in CASES[name]:
                np.array([len(x)], np.int32).tofile(f)
                x.astype(np.int32).tofile(f)
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), str(src), str(dst)], capture_output=True, text=True, env=env, timeout=600,
                          check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    raw, blocks, i = np.fromfile(dst, np.int32), [], 0
    while i < len(raw):
        n = int(raw[i])
        blocks.append(raw[i + 1:i + 1 + n].tolist())
        i += 1 + n
    assert len(blocks) == RESULTS_PER_CASE * len(names)
    return {name: blocks[k * RESULTS_PER_CASE:(k + 1) * RESULTS_PER_CASE] for k, name in enumerate(names)}


@pytest.fixture(scope="module", params=list(RUNS))
def results(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[list[int]]]:
    """Build the program and run every case of the run through it once."""
    arch, backend, names = RUNS[request.param]
    return _build_and_run(tmp_path_factory.mktemp(f"cccl_sets_{backend}"), arch, backend, names)


def _multiset(c: collections.Counter) -> list[int]:
    return sorted(c.elements())


def _by_key(op: str, a: list[int], b: list[int]) -> tuple[list[int], list[int]]:
    """The _by_key set operations and merge_by_key from their definitions (sorted ranges, first range's
    value for equal keys, stable merge)."""
    keys, vals, i, j = [], [], 0, 0
    take_a = lambda: (keys.append(a[i]), vals.append(VA + i))  # noqa: E731
    take_b = lambda: (keys.append(b[j]), vals.append(VB + j))  # noqa: E731
    while i < len(a) and j < len(b):
        if op == "merge":
            if b[j] < a[i]:
                take_b(); j += 1  # noqa: E702
            else:
                take_a(); i += 1  # noqa: E702
        elif a[i] < b[j]:
            if op != "intersection":
                take_a()
            i += 1
        elif b[j] < a[i]:
            if op in ("union", "symmetric_difference"):
                take_b()
            j += 1
        else:
            if op in ("union", "intersection"):
                take_a()
            i += 1
            j += 1
    while i < len(a):
        if op != "intersection":
            take_a()
        i += 1
    while j < len(b):
        if op in ("union", "symmetric_difference", "merge"):
            take_b()
        j += 1
    return keys, vals


@pytest.mark.parametrize("case", list(CASES))
def test_set_operations_match_python(results: dict[str, list[list[int]]], case: str) -> None:
    if case not in results:
        pytest.skip("not run on this device (the simulator is slow)")
    a, b = CASES[case]
    got = results[case]
    ca, cb = collections.Counter(a.tolist()), collections.Counter(b.tolist())
    union, inter, diff, sym = got[0:4]
    assert union == _multiset(ca | cb)
    assert inter == _multiset(ca & cb)
    assert diff == _multiset(ca - cb)
    assert sym == _multiset((ca - cb) + (cb - ca))
    for k, op in enumerate(("union", "intersection", "difference", "symmetric_difference", "merge")):
        keys, vals = got[4 + 2 * k], got[5 + 2 * k]
        assert (keys, vals) == _by_key(op, a.tolist(), b.tolist()), op
    assert got[14] == union[::-1]  # descending ranges under cuda::std::greater


def test_unique_inputs_match_numpy(results: dict[str, list[list[int]]]) -> None:
    if "no duplicates" not in results:
        pytest.skip("not run on this device (the simulator is slow)")
    a, b = CASES["no duplicates"]
    union, inter, diff, sym = results["no duplicates"][0:4]
    np.testing.assert_array_equal(union, np.union1d(a, b))
    np.testing.assert_array_equal(inter, np.intersect1d(a, b))
    np.testing.assert_array_equal(diff, np.setdiff1d(a, b))
    np.testing.assert_array_equal(sym, np.setxor1d(a, b))
    assert len(inter) > 1000  # the case overlaps: every tile has matches to find
