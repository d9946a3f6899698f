"""``CUMETAL_BACKEND=air-sim``: the CPU device's memory, streams and events, with kernels executed
by the air-sim — the AIR modules that go into the ``.metallib``, JIT-compiled and run on Linux."""

from __future__ import annotations

import dataclasses

from cumetal.devices.cpu_device import CpuDevice
from cumetal.devices.protocol import APPLE_THREADGROUP_MEMORY


class AirSimDevice(CpuDevice):
    engine_name = "air-sim"

    def __init__(self) -> None:
        super().__init__()
        # it stands for an Apple GPU: Apple's threadgroup memory, not the CPU's CUDA figures
        self.info = dataclasses.replace(self.info, name=self.info.name.replace("CPU", "air-sim")) \
            .with_shared_limit(APPLE_THREADGROUP_MEMORY)

    def _launcher(self):
        from cumetal.backends.air.sim import launch_air
        from cumetal.backends.air.sim.heap import with_device_heap

        return with_device_heap(launch_air)  # device-side malloc/free as device code (heap.ptx)
