"""How device faults become CUresults."""

from __future__ import annotations

from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError
from cumetal.devices.protocol import DeviceFault

R = CUresult

# `trap` (and `__trap()`) ends a kernel with "unspecified launch failure" on NVIDIA GPUs; a failed
# device-side assert has its own code.
FAULT_RESULTS: dict[str, CUresult] = {
    "illegal_address": R.CUDA_ERROR_ILLEGAL_ADDRESS,
    "misaligned_address": R.CUDA_ERROR_MISALIGNED_ADDRESS,
    "illegal_instruction": R.CUDA_ERROR_ILLEGAL_INSTRUCTION,
    "trap": R.CUDA_ERROR_LAUNCH_FAILED,
    "assert": R.CUDA_ERROR_ASSERT,
    "timeout": R.CUDA_ERROR_LAUNCH_TIMEOUT,
    "launch_failure": R.CUDA_ERROR_LAUNCH_FAILED,
    "out_of_resources": R.CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES,
}


def fault_result(fault: DeviceFault) -> CUresult:
    return FAULT_RESULTS.get(fault.code, R.CUDA_ERROR_LAUNCH_FAILED)


def raise_faults(faults: list[DeviceFault]) -> None:
    """Report the first pending fault (the device already logged each one on stderr)."""
    if faults:
        raise CudaError(fault_result(faults[0]))
