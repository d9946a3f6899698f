"""Thrust and CUB programs built with ``cumetalc -I <the user's CCCL>`` and run on the CPU device.

Each program compares every result with the C++ standard library's algorithm on the same data
(independent host code) and prints ``ok NAME`` / ``FAIL NAME``; the test also requires that every
check it expects was printed, so a check that silently disappears fails. Two sizes per program:
one tile, and enough elements for CUB's multi-block paths (decoupled look-back scans, onesweep
radix sort). Skipped, with the pin to install, when no CCCL is installed (tests/cccl/cccl_install.py).
"""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest
from tests.cccl.cccl_install import SKIP_REASON, cccl_include, cccl_version

PROGRAMS = pathlib.Path(__file__).parent / "programs"
CCCL = cccl_include()
pytestmark = pytest.mark.skipif(CCCL is None, reason=SKIP_REASON)

THRUST_CHECKS = [
    "device_vector copy host->device->host", "transform", "reduce", "reduce max", "sort",
    "stable_sort_by_key + sequence", "device lambda transform + sort descending (float)",
    "stable_sort with a custom comparator (merge sort)", "inclusive_scan", "exclusive_scan", "copy_if",
    "count_if", "count", "fill", "unique", "reduce_by_key", "transform_reduce", "inner_product", "gather",
    "scatter", "minmax_element", "vectorized lower_bound", "merge", "stable_partition", "remove_if",
    "zip_iterator + counting_iterator", "tabulate + thrust::random (device equals host)",
    "thrust::complex reduce", "cuda::atomic_ref in a kernel (libcu++)",
    "cuda::std::complex and array in a kernel", "thrust::host execution policy", "placeholder expressions",
    "for_each", "sort_by_key (float keys) on a stream: thrust::cuda::par.on", "device_malloc / device_ptr",
    "cuda::std::span, optional and tuple in a kernel",
]
CUB_CHECKS = [
    "BlockReduce::Sum (BlockLoad transpose)", "BlockScan::InclusiveSum", "BlockScan::ExclusiveScan max",
    "WarpReduce Sum/min", "DeviceReduce::Sum", "DeviceScan::InclusiveSum", "DeviceRadixSort::SortPairs",
    "BlockRadixSort", "BlockHistogram", "WarpScan::ExclusiveSum", "DeviceHistogram::HistogramEven",
    "DeviceSelect::Flagged", "DeviceRunLengthEncode::Encode", "DeviceSegmentedReduce::Sum",
    "BlockStore (warp transpose)", "BlockExchange::BlockedToStriped", "BlockDiscontinuity::FlagHeads",
    "DeviceSegmentedRadixSort::SortKeys", "DeviceMergeSort::SortKeys (custom comparator)",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    out = tmp_path_factory.mktemp("cccl")
    exes = {}
    for name in ("thrust_algorithms", "cub_algorithms"):
        exe = out / name
        # a private compile cache: the diagnostics checked below are those of this front end
        env = dict(os.environ, CUMETAL_CUDACXX_CACHE_DIR=str(out / "cache"))
        proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", f"-I{CCCL}",
                               str(PROGRAMS / f"{name}.cu"), "-o", str(exe)],
                              capture_output=True, text=True, timeout=600, check=False, env=env)
        assert proc.returncode == 0, f"cumetalc failed for {name} (CCCL {cccl_version(CCCL)}):\n" + \
            proc.stderr[-6000:]
        # nvcc is quiet on CCCL's headers; so must the front end be
        noisy = [ln for ln in proc.stderr.splitlines() if "warning" in ln and str(CCCL) in ln]
        assert not noisy, "\n".join(noisy[:10])
        exes[name] = exe
    return exes


def _run(exe: pathlib.Path, args: list[int], backend: str = "cpu") -> list[str]:
    env = dict(os.environ, CUMETAL_BACKEND=backend, CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe), *map(str, args)], capture_output=True, text=True, env=env, timeout=300,
                          check=False)
    lines = proc.stdout.splitlines()
    assert proc.returncode == 0 and lines[-1:] == ["PASSED"], proc.stdout + proc.stderr[-3000:]
    return [ln.removeprefix("ok ") for ln in lines[:-1]]


def test_thrust_algorithms(built: dict[str, pathlib.Path]) -> None:
    """300 elements, then 20,000, in one process (loading the module costs more than the checks)."""
    assert _run(built["thrust_algorithms"], [300, 20000]) == THRUST_CHECKS * 2


def test_cub_algorithms(built: dict[str, pathlib.Path]) -> None:
    """3 blocks of 512 items, then 40 (multi-block scans, onesweep radix sort), in one process."""
    assert _run(built["cub_algorithms"], [3, 40]) == CUB_CHECKS * 2


def test_cub_algorithms_on_air_sim(built: dict[str, pathlib.Path]) -> None:
    """An Apple GPU's 32 KiB of threadgroup memory: CUB's radix-sort kernels (33,856 bytes of static
    shared memory, DeviceRadixSort and DeviceSegmentedRadixSort) run with their shared memory in device
    memory (backends/apple/shared_spill.py); every other check as on the cpu device."""
    assert _run(built["cub_algorithms"], [3], "air-sim") == CUB_CHECKS
