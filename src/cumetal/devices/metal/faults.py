"""Command-buffer failures -> the device protocol's fault codes (§6.7's translation table).

§6.7 maps Metal's errors to CUDA's: Timeout -> LaunchTimeout, PageFault -> IllegalAddress,
Blacklisted (now AccessRevoked) -> DevicesUnavailable, Internal -> Unknown. The protocol has no
code for the last two, so they become ``launch_failure`` (CUDA_ERROR_LAUNCH_FAILED) with Metal's
description kept in the message; so does every other error code.
"""

from __future__ import annotations

from cumetal.devices.metal import bridge as B

CB_ERROR_FAULTS: dict[int, str] = {
    B.CB_ERROR_TIMEOUT: "timeout",
    B.CB_ERROR_PAGE_FAULT: "illegal_address",
}

CB_ERROR_NAMES: dict[int, str] = {
    B.CB_ERROR_NONE: "None", B.CB_ERROR_INTERNAL: "Internal", B.CB_ERROR_TIMEOUT: "Timeout",
    B.CB_ERROR_PAGE_FAULT: "PageFault", B.CB_ERROR_ACCESS_REVOKED: "AccessRevoked",
    B.CB_ERROR_NOT_PERMITTED: "NotPermitted", B.CB_ERROR_OUT_OF_MEMORY: "OutOfMemory",
    B.CB_ERROR_INVALID_RESOURCE: "InvalidResource", B.CB_ERROR_MEMORYLESS: "Memoryless",
    B.CB_ERROR_DEVICE_REMOVED: "DeviceRemoved", B.CB_ERROR_STACK_OVERFLOW: "StackOverflow",
}


def command_buffer_fault(code: int, description: str) -> tuple[str, str]:
    """``(fault code, message)`` for a command buffer that ended with MTLCommandBufferError ``code``."""
    name = CB_ERROR_NAMES.get(code, f"error {code}")
    detail = f": {description}" if description else ""
    return CB_ERROR_FAULTS.get(code, "launch_failure"), f"Metal command buffer failed (MTLCommandBufferError{name}){detail}"
