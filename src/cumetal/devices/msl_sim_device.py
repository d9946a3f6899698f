"""``CUMETAL_BACKEND=msl-sim``: the CPU device's memory, streams and events, with kernels executed
by msl-sim — the Metal Shading Language that a Mac would compile, built as C++ by g++ against
CuMetal's Metal-builtin header and run on Linux. ``CUMETAL_FP64`` (native | emulate | warn) picks
how f64 is emitted (default native). Faults are reported as on air-sim (``devices/fault_report.py``)."""

from __future__ import annotations

import dataclasses

from cumetal.devices.cpu_device import CpuDevice
from cumetal.devices.protocol import APPLE_THREADGROUP_MEMORY


class MslSimDevice(CpuDevice):
    engine_name = "msl-sim"

    def __init__(self) -> None:
        super().__init__()
        # it stands for an Apple GPU: CUDA's shared memory figures (48 KiB per block, sm_80's opt-in),
        # what does not fit Apple's 32 KiB of threadgroup memory in device memory (apple/shared_spill.py)
        self.info = dataclasses.replace(self.info, name=self.info.name.replace("CPU", "msl-sim"))
        self.launches = 0  # kernels run through msl-sim (lets tests prove which engine ran)

    def _launcher(self):
        from cumetal.backends.air.sim.heap import with_device_heap
        from cumetal.backends.apple.shared_spill import with_shared_spill
        from cumetal.backends.msl.sim.device_launch import launch
        from cumetal.devices.fault_report import with_fault_report

        # device-side malloc/free as device code (air/sim/heap.ptx); shared memory beyond Apple's 32 KiB;
        # address faults and refused operations reported with their PTX instruction (fault_report.py)
        launch = with_shared_spill(with_device_heap(with_fault_report(launch, " (msl-sim)")),
                                   APPLE_THREADGROUP_MEMORY)

        def counted(*args, **kwargs):
            self.launches += 1
            return launch(*args, **kwargs)

        return counted
