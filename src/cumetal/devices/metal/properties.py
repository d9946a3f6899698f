"""Device properties of a Metal GPU (§6.8), including the chip -> GPU core table."""

from __future__ import annotations

import re

from cumetal.backends.apple import abi
from cumetal.devices.protocol import DeviceInfo

# (chip, variant) -> (fewest, most) GPU cores Apple ships, from the spec's §6.8 table. The
# IORegistry's exact count is preferred; without it the fewest is reported (a conservative
# estimate never oversubscribes a smaller part).
CHIP_CORES: dict[tuple[str, str], tuple[int, int]] = {
    ("M1", ""): (7, 8), ("M1", "Pro"): (14, 16), ("M1", "Max"): (24, 32), ("M1", "Ultra"): (48, 64),
    ("M2", ""): (8, 10), ("M2", "Pro"): (16, 19), ("M2", "Max"): (30, 38), ("M2", "Ultra"): (60, 76),
    ("M3", ""): (8, 10), ("M3", "Pro"): (11, 18), ("M3", "Max"): (30, 40), ("M3", "Ultra"): (60, 60),
    ("M4", ""): (10, 10), ("M4", "Pro"): (16, 20), ("M4", "Max"): (32, 40), ("M4", "Ultra"): (60, 60),
}
UNKNOWN_CHIP_CORES = 8
_NAME = re.compile(r"\b(M\d+)(?:\s+(Pro|Max|Ultra))?\b")

# Threadgroup memory the ABI adds to a kernel's own shared memory (apple/abi.py shared_bytes): the
# barrier-reduction scratch plus up to 2 x 15 bytes of 16-byte alignment.
SHARED_OVERHEAD = abi.REDUCTION_SCRATCH + 32


def chip_cores(device_name: str, os_count: int | None = None) -> int:
    """GPU cores for ``multiProcessorCount``: the OS's count, else the table, else 8."""
    if os_count:
        return os_count
    m = _NAME.search(device_name)
    if m is None:
        return UNKNOWN_CHIP_CORES
    entry = CHIP_CORES.get((m.group(1), m.group(2) or ""))
    return entry[0] if entry else UNKNOWN_CHIP_CORES


def device_info(name: str, *, total_memory: int, max_threadgroup_memory: int,
                max_threads: tuple[int, int, int], cores: int) -> DeviceInfo:
    per_block = min(1024, max_threads[0])
    return DeviceInfo(
        name=name,
        total_memory=total_memory,
        multiprocessor_count=cores,
        warp_size=32,
        max_threads_per_block=per_block,
        max_block_dim=(min(1024, max_threads[0]), min(1024, max_threads[1]), min(1024, max_threads[2])),
        total_constant_memory=64 * 1024,
        compute_capability=(8, 0),
        max_threads_per_multiprocessor=per_block,
        integrated=True,
        concurrent_kernels=False,
        extra={"max_buffer_arguments": 31},
    )  # CUDA's shared memory figures: what exceeds maxThreadgroupMemoryLength goes to device memory
    # at launch (backends/apple/shared_spill.py, MetalDevice.enqueue_launch)
