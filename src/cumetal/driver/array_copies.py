"""Copies between CUDA arrays and linear memory by byte offset (``cuMemcpyHtoA``, ``AtoH``, ``DtoA``,
``AtoD``, ``AtoA`` and the async forms): CUDA defines them on 1D arrays, whose bytes follow one
another. A CuMetal array keeps its texels in row-major linear storage (driver/arrays.py), so the
offset is a byte offset into that storage; the range must lie inside the array.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.arrays import lookup
from cumetal.driver.enums import CUresult
from cumetal.driver.errors import CudaError, api
from cumetal.driver.host_buffers import host_ref
from cumetal.driver.memory import _copy, _size, device_range
from cumetal.driver.state import STATE

R = CUresult


def _array_range(array: Any, offset: Any, count: int, what: str) -> int:
    arr = lookup(array, what)
    o = _size(offset, f"{what} offset")
    if o + count > arr.nbytes:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: bytes {o}..{o + count} lie past the array's "
                        f"{arr.nbytes} bytes")
    return arr.address + o


def _run(dst: Any, src: Any, n: int, hStream: Any, sync: bool) -> tuple:  # noqa: N803
    _copy(STATE.current(), hStream, dst, src, n, sync=sync)
    return ()


@api(0)
def cuMemcpyHtoA(dstArray: Any, dstOffset: Any, srcHost: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(_array_range(dstArray, dstOffset, n, "dstArray"),
                host_ref(srcHost, "srcHost", nbytes=n, writable=False), n, 0, True)


@api(0)
def cuMemcpyHtoAAsync(dstArray: Any, dstOffset: Any, srcHost: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(_array_range(dstArray, dstOffset, n, "dstArray"),
                host_ref(srcHost, "srcHost", nbytes=n, writable=False), n, hStream, False)


@api(0)
def cuMemcpyAtoH(dstHost: Any, srcArray: Any, srcOffset: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(host_ref(dstHost, "dstHost", nbytes=n, writable=True),
                _array_range(srcArray, srcOffset, n, "srcArray"), n, 0, True)


@api(0)
def cuMemcpyAtoHAsync(dstHost: Any, srcArray: Any, srcOffset: Any, ByteCount: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(host_ref(dstHost, "dstHost", nbytes=n, writable=True),
                _array_range(srcArray, srcOffset, n, "srcArray"), n, hStream, False)


@api(0)
def cuMemcpyDtoA(dstArray: Any, dstOffset: Any, srcDevice: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(_array_range(dstArray, dstOffset, n, "dstArray"), device_range(srcDevice, n, "srcDevice"), n, 0, True)


@api(0)
def cuMemcpyAtoD(dstDevice: Any, srcArray: Any, srcOffset: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(device_range(dstDevice, n, "dstDevice"), _array_range(srcArray, srcOffset, n, "srcArray"), n, 0, True)


@api(0)
def cuMemcpyAtoA(dstArray: Any, dstOffset: Any, srcArray: Any, srcOffset: Any, ByteCount: Any) -> tuple:  # noqa: N802, N803
    n = _size(ByteCount, "ByteCount")
    STATE.current()
    return _run(_array_range(dstArray, dstOffset, n, "dstArray"), _array_range(srcArray, srcOffset, n, "srcArray"),
                n, 0, True)


class CUDA_ARRAY_MEMORY_REQUIREMENTS:  # noqa: N801 - cuda-python's name
    def __init__(self) -> None:
        self.size = 0
        self.alignment = 0

    def getPtr(self) -> int:  # noqa: N802
        return id(self)


@api(1)
def cuArrayGetMemoryRequirements(array: Any, device: Any) -> tuple:
    """The bytes and alignment an array's storage takes (what a deferred mapping would need)."""
    STATE.device_ordinal(device)
    arr = lookup(array, "array")
    req = CUDA_ARRAY_MEMORY_REQUIREMENTS()
    req.size, req.alignment = arr.nbytes, 256  # allocations are 256-byte aligned (docs/driver-api.md)
    return (req,)
