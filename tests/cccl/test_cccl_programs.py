"""Thrust and CUB programs built with ``cumetalc -I <the user's CCCL>`` and run on the CPU device.

Each program compares every result with the C++ standard library's algorithm on the same data
(independent host code) and prints ``ok NAME`` / ``FAIL NAME``; the test also requires that every
check it expects was printed, so a check that silently disappears fails. Two sizes per program:
one tile, and enough elements for CUB's multi-block paths (decoupled look-back scans, onesweep
radix sort). Skipped, with the pin to install, when no CCCL is installed (tests/cccl/cccl_install.py).
"""

from __future__ import annotations

import pathlib

import pytest
from tests.cccl import cccl_build
from tests.cccl.cccl_install import SKIP_REASON, cccl_include

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
    return cccl_build.build(CCCL, ('thrust_algorithms', 'cub_algorithms'), tmp_path_factory.mktemp("cccl"), timeout=600)


def test_thrust_algorithms(built: dict[str, pathlib.Path]) -> None:
    """300 elements, then 20,000, in one process (loading the module costs more than the checks)."""
    assert cccl_build.run(built["thrust_algorithms"], [300, 20000]) == THRUST_CHECKS * 2


def test_cub_algorithms(built: dict[str, pathlib.Path]) -> None:
    """3 blocks of 512 items, then 40 (multi-block scans, onesweep radix sort), in one process."""
    assert cccl_build.run(built["cub_algorithms"], [3, 40]) == CUB_CHECKS * 2


def test_cub_algorithms_on_air_sim(built: dict[str, pathlib.Path]) -> None:
    """An Apple GPU's 32 KiB of threadgroup memory: CUB's radix-sort kernels (33,856 bytes of static
    shared memory, DeviceRadixSort and DeviceSegmentedRadixSort) run with their shared memory in device
    memory (backends/apple/shared_spill.py); every other check as on the cpu device."""
    assert cccl_build.run(built["cub_algorithms"], [3], "air-sim") == CUB_CHECKS
