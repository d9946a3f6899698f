"""cumetal.nvml: the NVML calls CuMetal can answer truthfully, NotSupportedError for the sensors it has
not, and cuda-bindings' names and values (checked when cuda-bindings is installed)."""

from __future__ import annotations

import pytest

from cumetal import driver as cu
from cumetal import nvml


@pytest.fixture
def handle():
    nvml.init_v2()
    yield nvml.device_get_handle_by_index_v2(0)
    nvml.shutdown()


def test_answers_come_from_the_device(handle):
    assert nvml.device_get_count_v2() == 1
    err, name = cu.cuDeviceGetName(96, 0)
    assert nvml.device_get_name(handle) == bytes(name).split(b"\0")[0].decode()
    assert nvml.system_get_cuda_driver_version() == cu.cuDriverGetVersion()[1]
    assert nvml.device_get_compute_mode(handle) == nvml.ComputeMode.COMPUTEMODE_DEFAULT
    before = nvml.device_get_memory_info_v2(handle)
    assert before.total == cu.cuDeviceTotalMem(0)[1] and before.used + before.free == before.total
    err, ctx = cu.cuDevicePrimaryCtxRetain(0)
    cu.cuCtxPushCurrent(ctx)
    err, ptr = cu.cuMemAlloc(64 << 20)
    after = nvml.device_get_memory_info_v2(handle)
    assert after.used - before.used >= 64 << 20  # the allocation shows
    cu.cuMemFree(ptr)
    cu.cuCtxPopCurrent()
    cu.cuDevicePrimaryCtxRelease(0)
    assert nvml.device_get_uuid(handle).startswith("GPU-")


def test_what_cannot_be_measured_is_not_supported(handle):
    for query in (nvml.device_get_fan_speed, nvml.device_get_power_usage, nvml.device_get_utilization_rates,
                  nvml.device_get_pci_info_v3, nvml.device_get_ecc_mode, nvml.device_get_performance_state):
        with pytest.raises(nvml.NotSupportedError) as e:
            query(handle)
        assert isinstance(e.value, nvml.NvmlError) and e.value.status == nvml.Return.ERROR_NOT_SUPPORTED
    with pytest.raises(nvml.NotSupportedError):
        nvml.device_get_temperature_v(handle, nvml.TemperatureSensors.TEMPERATURE_GPU)
    with pytest.raises(nvml.InvalidArgumentError):
        nvml.device_get_name(0)
    with pytest.raises(nvml.InvalidArgumentError):
        nvml.device_get_handle_by_index_v2(1)


def test_calls_before_init_are_uninitialized():
    with pytest.raises(nvml.UninitializedError):
        nvml.device_get_count_v2()


def test_names_and_values_match_cuda_bindings():
    real = pytest.importorskip("cuda.bindings.nvml")
    for enum in ("Return", "EnableState", "ComputeMode", "TemperatureSensors"):
        ours, theirs = getattr(nvml, enum), getattr(real, enum)
        for member in theirs:
            if member.name in ours.__members__:
                assert int(ours[member.name]) == int(member), (enum, member.name)
    for fn in ("init_v2", "shutdown", "system_get_driver_version", "system_get_cuda_driver_version",
               "device_get_count_v2", "device_get_handle_by_index_v2", "device_get_name", "device_get_uuid",
               "device_get_memory_info_v2", "device_get_compute_mode", "device_get_fan_speed",
               "device_get_temperature_v", "device_get_power_usage", "device_get_utilization_rates"):
        assert hasattr(real, fn) and callable(getattr(nvml, fn)), fn
    assert issubclass(nvml.NotSupportedError, nvml.NvmlError) and issubclass(real.NotSupportedError, real.NvmlError)
