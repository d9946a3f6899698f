"""A small ``cuda.bindings.nvml`` (NVIDIA's management library) for CuMetal's device.

Only the calls that describe what CuMetal knows are answered: the device count, name, UUID,
compute capability, memory (the device's own accounting), compute mode and the CUDA driver version.
Everything NVML reads from GPU hardware that CuMetal's devices do not have or cannot measure — fan,
temperature, power, performance state, clocks, utilisation, ECC, PCI location, persistence and
display modes — raises :class:`NotSupportedError`, as NVML does for a sensor a board lacks, so tools
print "N/A" instead of an invented number. Names and enum values follow cuda-bindings 13.x (both
spellings of the enum members: ``EnableState.ENABLED`` and ``FEATURE_ENABLED``)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from enum import IntEnum

import cumetal


class Return(IntEnum):
    SUCCESS = 0
    ERROR_UNINITIALIZED = 1
    ERROR_INVALID_ARGUMENT = 2
    ERROR_NOT_SUPPORTED = 3
    ERROR_NOT_FOUND = 6
    ERROR_DRIVER_NOT_LOADED = 9
    ERROR_UNKNOWN = 999


_TEXT = {Return.ERROR_UNINITIALIZED: "Uninitialized", Return.ERROR_INVALID_ARGUMENT: "Invalid Argument",
         Return.ERROR_NOT_SUPPORTED: "Not Supported", Return.ERROR_NOT_FOUND: "Not Found",
         Return.ERROR_DRIVER_NOT_LOADED: "Driver Not Loaded", Return.ERROR_UNKNOWN: "Unknown Error"}


class NvmlError(Exception):
    """A failed NVML call; ``status`` is its :class:`Return` code."""

    def __init__(self, status: int, detail: str = "") -> None:
        self.status = Return(status)
        text = _TEXT.get(self.status, self.status.name)
        super().__init__(f"{text}: {detail}" if detail else text)


class UninitializedError(NvmlError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(Return.ERROR_UNINITIALIZED, detail)


class InvalidArgumentError(NvmlError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(Return.ERROR_INVALID_ARGUMENT, detail)


class NotSupportedError(NvmlError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(Return.ERROR_NOT_SUPPORTED, detail)


class DriverNotLoadedError(NvmlError):
    def __init__(self, detail: str = "") -> None:
        super().__init__(Return.ERROR_DRIVER_NOT_LOADED, detail)


class EnableState(IntEnum):
    DISABLED = 0
    ENABLED = 1
    FEATURE_DISABLED = 0
    FEATURE_ENABLED = 1


class ComputeMode(IntEnum):
    DEFAULT = 0
    EXCLUSIVE_THREAD = 1
    PROHIBITED = 2
    EXCLUSIVE_PROCESS = 3
    COMPUTEMODE_DEFAULT = 0
    COMPUTEMODE_EXCLUSIVE_THREAD = 1
    COMPUTEMODE_PROHIBITED = 2
    COMPUTEMODE_EXCLUSIVE_PROCESS = 3


class TemperatureSensors(IntEnum):
    GPU = 0
    TEMPERATURE_GPU = 0


@dataclass(frozen=True)
class Memory_v2:  # noqa: N801 - NVML's name
    """``nvmlMemory_v2_t``: bytes of the device's memory (CuMetal reserves none)."""

    total: int
    reserved: int
    free: int
    used: int
    version: int = 2


_lock = threading.Lock()
_inits = 0


def init_v2() -> None:
    """Start NVML (reference counted, as NVML); the device is CuMetal's driver device."""
    global _inits
    from cumetal import driver as cu

    err = cu.cuInit(0)[0]
    if int(err) != 0:
        raise DriverNotLoadedError(f"CuMetal's driver did not start ({cu.CUresult(int(err)).name})")
    with _lock:
        _inits += 1


def init_with_flags(flags: int) -> None:
    init_v2()


def shutdown() -> None:
    global _inits
    with _lock:
        if _inits == 0:
            raise UninitializedError("shutdown without init")
        _inits -= 1


def _driver():  # noqa: ANN202 - the cumetal.driver module, once NVML is initialised
    if _inits == 0:
        raise UninitializedError("call init_v2() first")
    from cumetal import driver as cu

    return cu


def _call(result: tuple):  # noqa: ANN202 - the driver result's value
    err, *values = result
    if int(err) != 0:
        raise NvmlError(Return.ERROR_UNKNOWN, f"driver call failed ({int(err)})")
    return values[0] if len(values) == 1 else tuple(values)


def system_get_driver_version() -> str:
    _driver()
    return f"CuMetal-{cumetal.__version__}"


def system_get_cuda_driver_version() -> int:
    return int(_call(_driver().cuDriverGetVersion()))


system_get_cuda_driver_version_v2 = system_get_cuda_driver_version


def device_get_count_v2() -> int:
    return int(_call(_driver().cuDeviceGetCount()))


def device_get_handle_by_index_v2(index: int) -> int:
    """The device handle (its ordinal + 1, so that 0 stays an invalid handle)."""
    if not 0 <= int(index) < device_get_count_v2():
        raise InvalidArgumentError(f"device index {index} (CuMetal has {device_get_count_v2()} device)")
    return int(index) + 1


def _ordinal(device: int) -> int:
    ordinal = int(device) - 1
    if not 0 <= ordinal < device_get_count_v2():
        raise InvalidArgumentError(f"{device!r} is not a device handle")
    return ordinal


def device_get_index(device: int) -> int:
    return _ordinal(device)


def device_get_name(device: int) -> str:
    name = _call(_driver().cuDeviceGetName(96, _ordinal(device)))
    return bytes(name).split(b"\0", 1)[0].decode()


def device_get_uuid(device: int) -> str:
    raw = bytes(_call(_driver().cuDeviceGetUuid(_ordinal(device))).bytes)
    h = raw.hex()
    return f"GPU-{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:32]}"


def device_get_cuda_compute_capability(device: int) -> tuple[int, int]:
    cu = _driver()
    a = cu.CUdevice_attribute
    ordinal = _ordinal(device)
    return (int(_call(cu.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, ordinal))),
            int(_call(cu.cuDeviceGetAttribute(a.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, ordinal))))


def device_get_memory_info_v2(device: int) -> Memory_v2:
    _ordinal(device)
    from cumetal.driver.state import STATE

    free, total = STATE.device.memory_info()
    return Memory_v2(total=int(total), reserved=0, free=int(free), used=int(total) - int(free))


def device_get_compute_mode(device: int) -> ComputeMode:
    cu = _driver()
    mode = _call(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE, _ordinal(device)))
    return ComputeMode(int(mode))


def _not_measured(what: str):  # noqa: ANN202 - an NVML query CuMetal's devices cannot answer
    def query(device: int, *args: object) -> int:
        _ordinal(device)
        raise NotSupportedError(f"CuMetal's device has no {what}")

    query.__name__ = f"device_get_{what.replace(' ', '_')}"
    return query


device_get_persistence_mode = _not_measured("persistence mode")
device_get_display_active = _not_measured("display")
device_get_ecc_mode = _not_measured("ECC memory")
device_get_fan_speed = _not_measured("fan")
device_get_temperature_v = _not_measured("temperature sensor")
device_get_performance_state = _not_measured("performance states")
device_get_power_usage = _not_measured("power sensor")
device_get_power_management_limit = _not_measured("power limit")
device_get_utilization_rates = _not_measured("utilization counters")
device_get_pci_info_v3 = _not_measured("PCI location")
device_get_clock_info = _not_measured("clock readings")

# NVML's older spellings of the same calls
init = init_v2
device_get_count = device_get_count_v2
device_get_handle_by_index = device_get_handle_by_index_v2
device_get_memory_info = device_get_memory_info_v2
