"""More of Thrust, CUB and libcu++, built with ``cumetalc -I <the user's CCCL>`` and run on the CPU device.

``programs/thrust_breadth.cu``: sorts on int64, double, uint8 and struct keys, by-key scans and
``unique_by_key``, searches, partitions, ``shuffle``, fancy iterators, ``universal_vector``, a bad
allocation, stream policies. ``programs/cub_breadth.cu``: block and warp primitives (BlockShuffle,
BlockAdjacentDifference, BlockMergeSort, WarpLoad/Exchange/MergeSort/Store), libcu++ in kernels
(atomics, ``bit_cast``, ``numeric_limits``, pair/tuple, ``mdspan``) and device algorithms (ArgMax,
by-key and custom-operator scans, Select/Partition, radix sort on a bit range, segmented sort,
HistogramRange, AdjacentDifference, For, Transform, batched copies). Every result is compared with
the C++ standard library's algorithm on the same data inside the program; the test requires that every
expected check printed ``ok``. Each program runs once with two sizes (one tile, then many tiles:
decoupled look-back scans, onesweep radix sort): loading the module costs more than the checks.
"""

from __future__ import annotations

import pathlib

import pytest
from tests.cccl import cccl_build
from tests.cccl.cccl_install import SKIP_REASON, cccl_include

CCCL = cccl_include()
pytestmark = pytest.mark.skipif(CCCL is None, reason=SKIP_REASON)

THRUST_CHECKS = [
    "sort int64", "sort double", "sort uint8 descending", "sort custom struct keys (comparator)",
    "sort_by_key descending", "unique_by_key", "inclusive_scan_by_key", "exclusive_scan_by_key (init 100)",
    "inclusive_scan_by_key with a max operator", "adjacent_difference", "adjacent_difference with max",
    "transform_inclusive_scan", "transform_exclusive_scan", "vectorized binary_search", "vectorized upper_bound",
    "scalar binary_search / upper_bound", "equal / mismatch", "find / find_if / find_if_not",
    "is_sorted / is_sorted_until", "all_of / any_of / none_of", "partition / is_partitioned", "partition_copy",
    "replace / replace_if", "reverse", "shuffle (a permutation)", "max_element / min_element with a comparator",
    "generate / generate_n", "uninitialized_fill / uninitialized_copy", "transform_iterator",
    "permutation_iterator", "constant_iterator", "discard_iterator (reduce_by_key keys dropped)",
    "reverse_iterator (copy, inclusive_scan over rbegin)", "sort over a zip_iterator (tuple keys)",
    "stable_sort_by_key with thrust::pair values", "copy_n / fill_n / sequence with a step / for_each_n",
    "transform_if + in-place inclusive_scan (device lambda)", "reduce_by_key with a user predicate and max",
    "unique_count", "universal_vector (managed memory)",
    "bad allocation throws std::bad_alloc; thrust::system_error", "par_nosync.on(stream) + thrust::device policy",
]
CUB_BLOCK_CHECKS = [  # once per run
    "BlockShuffle::Offset / Up", "BlockAdjacentDifference::SubtractLeft", "BlockMergeSort (descending)",
    "WarpLoad (transpose, 16-thread logical warps)", "WarpExchange::BlockedToStriped",
    "WarpMergeSort + WarpStore (transpose)",
    "BlockLoad vectorize / warp transpose, BlockStore striped",
    "BlockReduce raking-commutative Sum / warp-reductions max",
    "BlockScan warp-scans ExclusiveSum / raking-memoize max", "BlockRadixSort SortDescendingBlockedToStriped (pairs)",
    "BlockHistogram atomic Composite",
    "cuda::barrier + cuda::memcpy_async (cooperative_groups block) + cuda::pipeline",
    "cuda::std::atomic / cuda::atomic (fetch_add, CAS loop, fetch_max, fetch_or)", "cuda::std::bit_cast and <bit>",
    "cuda::std::numeric_limits", "atomic_ref<float/double> fetch_add/fetch_max, cuda::latch, cuda::counting_semaphore",
    "cuda::std::variant, expected, inplace_vector, algorithms, chrono, cmath", "cuda::std::pair / tuple",
    "cuda::std::mdspan (layout_right dextents, layout_left)",
]
CUB_DEVICE_CHECKS = [  # once per size
    "DeviceReduce::ArgMax / ArgMin (first extremum)", "DeviceReduce::Max / Min",
    "DeviceReduce::Reduce (custom operator)", "DeviceScan::ExclusiveSumByKey",
    "DeviceScan::InclusiveScan / ExclusiveScan (custom operators)", "DeviceSelect::If", "DeviceSelect::Unique",
    "DevicePartition::If", "DeviceRadixSort::SortKeysDescending (bits 4..20)", "DeviceSegmentedSort::SortKeys",
    "DeviceSegmentedSort::StableSortPairsDescending", "DeviceHistogram::HistogramRange",
    "DeviceAdjacentDifference::SubtractLeftCopy", "DeviceFor::Bulk / ForEachN",
    "DeviceTransform::Transform (two inputs)", "DeviceRadixSort::SortPairs with cub::DoubleBuffer",
    "DeviceReduce::ReduceByKey (max)", "DeviceRunLengthEncode::NonTrivialRuns", "DeviceSelect::UniqueByKey",
    "DeviceMerge::MergeKeys", "cuda::counting_iterator / transform_iterator (device lambda) as CUB inputs",
    "DeviceMemcpy::Batched / DeviceCopy::Batched",
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, pathlib.Path]:
    return cccl_build.build(CCCL, ('thrust_breadth', 'cub_breadth'), tmp_path_factory.mktemp("cccl_breadth"), timeout=900)


def test_thrust_breadth(built: dict[str, pathlib.Path]) -> None:
    assert cccl_build.run(built["thrust_breadth"], [300, 20000]) == THRUST_CHECKS * 2


def test_cub_and_libcudacxx_breadth(built: dict[str, pathlib.Path]) -> None:
    assert cccl_build.run(built["cub_breadth"], [1000, 20000]) == CUB_BLOCK_CHECKS + CUB_DEVICE_CHECKS * 2
