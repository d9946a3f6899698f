"""How device faults become CUresults."""

from __future__ import annotations

from cumetal.devices.protocol import DeviceFault
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError

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


def fault_error(fault: DeviceFault) -> CudaError:
    """The error a call reporting ``fault`` returns; its text is what ``last_error_message()``
    gives (the device already logged it on stderr, unless CUMETAL_QUIET is set). A coredump is
    written first when the context asks for one (driver/coredump.py)."""
    from cumetal.driver.coredump import on_fault

    on_fault(fault)
    return CudaError(fault_result(fault), str(fault), logged=True)


def raise_faults(faults: list[DeviceFault]) -> None:
    """Report the first pending fault."""
    if faults:
        raise fault_error(faults[0])
