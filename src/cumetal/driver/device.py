"""Initialization, version, devices, and error names."""

from __future__ import annotations

import os
import sys
from typing import Any

from cumetal.devices.backends import BackendError, open_device
from cumetal.devices.protocol import DeviceInfo
from cumetal.driver.enums import CUdevice_attribute, CUresult
from cumetal.driver.errors import CudaError, api, describe
from cumetal.driver.handles import CUdevice
from cumetal.driver.state import STATE, raise_forked

R = CUresult
A = CUdevice_attribute
DRIVER_VERSION = 13000  # the CUDA driver API level mirrored (cuda-bindings 13.x), as CUDA encodes it


def _uint(value: Any, what: str, bits: int = 32) -> int:
    if isinstance(value, bool) or not hasattr(value, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: expected an int, got {type(value).__name__}")
    v = int(value)
    if not 0 <= v < 2**bits:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {v} is out of range")
    return v


@api(0)
def cuInit(Flags: int) -> tuple:  # noqa: N802, N803 - CUDA's names
    if _uint(Flags, "Flags") != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "Flags must be 0")
    with STATE.lock:
        if STATE.initialized:
            if os.getpid() != STATE.pid:
                raise_forked(STATE.pid)
            return ()
        try:
            STATE.device = open_device()
            from cumetal.driver.compute_capability import apply as apply_compute_capability

            apply_compute_capability(STATE.device, _grouped(STATE.device))
        except BackendError as e:
            print(f"cumetal: {e}", file=sys.stderr, flush=True)
            raise CudaError(R.CUDA_ERROR_NO_DEVICE, "") from None
        STATE.initialized = True
        STATE.pid = os.getpid()
    return ()


@api(1)
def cuDriverGetVersion() -> tuple:  # noqa: N802
    return (DRIVER_VERSION,)


@api(1)
def cuDeviceGet(ordinal: int) -> tuple:  # noqa: N802
    STATE.require_init()
    if isinstance(ordinal, bool) or not hasattr(ordinal, "__index__"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"ordinal must be an int, got {type(ordinal).__name__}")
    if int(ordinal) != 0:
        raise CudaError(R.CUDA_ERROR_INVALID_DEVICE, f"device ordinal {int(ordinal)} does not exist (1 device)")
    return (CUdevice(0),)


@api(1)
def cuDeviceGetCount() -> tuple:  # noqa: N802
    STATE.require_init()
    return (1,)


@api(1)
def cuDeviceGetName(length: int, dev: Any) -> tuple:  # noqa: N802
    n = _uint(length, "length")
    STATE.device_ordinal(dev)
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "length must be positive")
    name = STATE.device.info.name.encode()[: n - 1] + b"\0"
    # cuda-python hands back the whole `length`-byte buffer it passed to C (spaces beyond the NUL).
    return (name + b" " * (n - len(name)),)


@api(1)
def cuDeviceTotalMem(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return (STATE.device.info.total_memory,)


@api(2)
def cuDeviceComputeCapability(dev: Any) -> tuple:  # noqa: N802
    STATE.device_ordinal(dev)
    return STATE.device.info.compute_capability


@api(1)
def cuDeviceGetAttribute(attrib: Any, dev: Any) -> tuple:  # noqa: N802
    try:
        attr = A(int(attrib))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{attrib!r} is not a CUdevice_attribute") from None
    STATE.device_ordinal(dev)
    if attr == A.CU_DEVICE_ATTRIBUTE_MAX:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "CU_DEVICE_ATTRIBUTE_MAX is not an attribute")
    return (device_attribute(STATE.device.info, attr),)


def _grouped(device: Any) -> bool:
    check = getattr(device, "supports_grouped_launch", None)
    return bool(check()) if callable(check) else False


def _memfd() -> bool:
    return hasattr(os, "memfd_create") and os.path.isdir("/proc/self/fd")


def device_attribute(info: DeviceInfo, attr: CUdevice_attribute) -> int:
    """The value reported for ``attr``; attributes with no meaning on this device are 0."""
    table = {
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: info.max_threads_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X: info.max_block_dim[0],
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y: info.max_block_dim[1],
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z: info.max_block_dim[2],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: info.max_grid_dim[0],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y: info.max_grid_dim[1],
        A.CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z: info.max_grid_dim[2],
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: info.shared_memory_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: info.shared_memory_per_block_optin,
        A.CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR: info.shared_memory_per_multiprocessor,
        A.CU_DEVICE_ATTRIBUTE_TOTAL_CONSTANT_MEMORY: info.total_constant_memory,
        A.CU_DEVICE_ATTRIBUTE_WARP_SIZE: info.warp_size,
        A.CU_DEVICE_ATTRIBUTE_MAX_PITCH: 2**31 - 1,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_BLOCK: info.registers_per_block,
        A.CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR: info.registers_per_block,
        A.CU_DEVICE_ATTRIBUTE_CLOCK_RATE: info.clock_rate_khz,
        A.CU_DEVICE_ATTRIBUTE_TEXTURE_ALIGNMENT: 256,
        A.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: info.multiprocessor_count,
        A.CU_DEVICE_ATTRIBUTE_INTEGRATED: int(info.integrated),
        A.CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY: 1,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_MODE: 0,  # CU_COMPUTEMODE_DEFAULT
        A.CU_DEVICE_ATTRIBUTE_CONCURRENT_KERNELS: int(info.concurrent_kernels),
        A.CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE: info.l2_cache_size,
        A.CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR: info.max_threads_per_multiprocessor,
        A.CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR: 32,
        A.CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING: 1,
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: info.compute_capability[0],
        A.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: info.compute_capability[1],
        A.CU_DEVICE_ATTRIBUTE_MANAGED_MEMORY: 1,
        A.CU_DEVICE_ATTRIBUTE_CONCURRENT_MANAGED_ACCESS: 1,
        # 0: kernels reach only allocated or cudaHostRegister'ed memory (the allocation table), not any
        # pageable host address
        A.CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS: 0,
        A.CU_DEVICE_ATTRIBUTE_DIRECT_MANAGED_MEM_ACCESS_FROM_HOST: 1,
        A.CU_DEVICE_ATTRIBUTE_HOST_NATIVE_ATOMIC_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_CAN_USE_HOST_POINTER_FOR_REGISTERED_MEM: 1,
        A.CU_DEVICE_ATTRIBUTE_GLOBAL_L1_CACHE_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_LOCAL_L1_CACHE_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: 0,
        A.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: 0,
        A.CU_DEVICE_ATTRIBUTE_ASYNC_ENGINE_COUNT: 0,
        A.CU_DEVICE_ATTRIBUTE_KERNEL_EXEC_TIMEOUT: 1,  # the watchdog (CUMETAL_WATCHDOG_SECONDS)
        # driver/pools.py and driver/vmm.py (VMM enters OS mappings in the allocation table)
        A.CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: 1,
        A.CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED: int(hasattr(STATE.device, "register_host")),
        A.CU_DEVICE_ATTRIBUTE_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR_SUPPORTED: int(hasattr(STATE.device, "register_host")
                                                                           and os.name == "posix"),  # driver/vmm.py
        # a device whose engine co-schedules blocks runs cooperative grids and clusters (launch_groups.py)
        A.CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH: int(_grouped(STATE.device)),
        A.CU_DEVICE_ATTRIBUTE_CLUSTER_LAUNCH: int(_grouped(STATE.device)),
        # interprocess events and shareable pools (POSIX descriptors) share memfd pages (runtime/ipc.py,
        # runtime/pool_ipc.py; Linux)
        A.CU_DEVICE_ATTRIBUTE_IPC_EVENT_SUPPORTED: int(_memfd()),
        A.CU_DEVICE_ATTRIBUTE_MEMPOOL_SUPPORTED_HANDLE_TYPES: int(_memfd()),
    }
    from cumetal.driver.textures import texture_attributes  # texture and surface limits

    table.update(texture_attributes())
    return int(table.get(attr, 0))


@api(1)
def cuGetErrorName(error: Any) -> tuple:  # noqa: N802
    return (_code(error).name.encode(),)


@api(1)
def cuGetErrorString(error: Any) -> tuple:  # noqa: N802
    return (describe(_code(error)).encode(),)


def _code(error: Any) -> CUresult:
    try:
        return CUresult(int(error))
    except (ValueError, TypeError):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "") from None
