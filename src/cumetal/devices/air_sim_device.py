"""``CUMETAL_BACKEND=air-sim``: the CPU device's memory, streams and events, with kernels executed
by the air-sim — the AIR modules that go into the ``.metallib``, JIT-compiled and run on Linux.
An address fault or refused operation is reported in the CPU engine's words (block, thread, PTX
instruction) when its rerun of the launch finds the same fault (``devices/fault_report.py``)."""

from __future__ import annotations

import dataclasses

from cumetal.devices.cpu_device import CpuDevice
from cumetal.devices.protocol import APPLE_THREADGROUP_MEMORY


class AirSimDevice(CpuDevice):
    engine_name = "air-sim"

    def __init__(self) -> None:
        super().__init__()
        # it stands for an Apple GPU: CUDA's shared memory figures (48 KiB per block, sm_80's opt-in),
        # what does not fit Apple's 32 KiB of threadgroup memory in device memory (apple/shared_spill.py)
        self.info = dataclasses.replace(self.info, name=self.info.name.replace("CPU", "air-sim"))

    def _launcher(self):
        from cumetal.backends.air.sim import launch_air
        from cumetal.backends.air.sim.heap import with_device_heap
        from cumetal.backends.apple.shared_spill import with_shared_spill
        from cumetal.devices.fault_report import with_fault_report

        # device-side malloc/free as device code (heap.ptx); shared memory beyond Apple's threadgroup
        # memory in device memory (apple/shared_spill.py); faults reported with their PTX instruction
        return with_shared_spill(with_device_heap(with_fault_report(launch_air)), APPLE_THREADGROUP_MEMORY)
