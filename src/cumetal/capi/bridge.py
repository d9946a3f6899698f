"""The Python half of libcumetal: one function per C entry point (same name as in C; ``drv_``
prefix for the Driver API), called by ``cm_core.c`` with integers only.

Conventions: pointers arrive as ints (0 is NULL); outputs are written through the pointers given,
only on success; every function returns the C error code as an int and never raises (an internal
error becomes cudaErrorUnknown / CUDA_ERROR_UNKNOWN with the reason on stderr). A NULL output
pointer is cudaErrorInvalidValue, recorded as the thread's last error as CUDA does. The Runtime API
is :mod:`cumetal.runtime` (its notes for the C library describe the calls used here); the Driver
API is :mod:`cumetal.driver`. Registration (``__cudaRegisterFatBinary`` …) unpacks the device-code
container (``cumetal.capi.fatbin``) and hands the PTX to :func:`cumetal.runtime.register_module`.
"""

from __future__ import annotations

import ctypes
import functools
import os
import sys
import threading
from collections.abc import Callable
from typing import Any

from cumetal import driver as drv
from cumetal import runtime as rt
from cumetal.capi import blob, fatbin
from cumetal.runtime import types as rtt
from cumetal.runtime.errors import ERRORS

INVALID_VALUE = 1  # cudaErrorInvalidValue == CUDA_ERROR_INVALID_VALUE
UNKNOWN = 999
NOT_SUPPORTED = 801

_c_int, _c_uint, _c_size, _c_ptr = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p
_c_u64, _c_float = ctypes.c_uint64, ctypes.c_float


def _say(message: str) -> None:
    if not os.environ.get("CUMETAL_QUIET"):
        print(f"cumetal: {message}", file=sys.stderr, flush=True)


def _guard(default: int = UNKNOWN) -> Callable[[Callable[..., int]], Callable[..., int]]:
    def wrap(fn: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(fn)
        def call(*args: Any) -> int:
            try:
                return int(fn(*args))
            except Exception as e:  # noqa: BLE001 - nothing may escape into C
                _say(f"{fn.__name__}: internal error: {e!r}")
                return default
        return call
    return wrap


def _set(ctype: type, address: int, value: Any) -> None:
    ctype.from_address(address).value = value


def _invalid(what: str, runtime: bool = True) -> int:
    if runtime:
        ERRORS.set_last(rt.cudaError_t.cudaErrorInvalidValue)
    caller = sys._getframe(1).f_code.co_name.removeprefix("drv_")  # the C entry point's name
    code = "cudaErrorInvalidValue" if runtime else "CUDA_ERROR_INVALID_VALUE"
    _say(f"{caller}: {code}: {what} is NULL" if caller.startswith(("cu", "nv")) else f"{what} is NULL")
    return INVALID_VALUE


def _outs(result: tuple, *cells: tuple[type, int]) -> int:
    """Write ``result[1:]`` through ``cells`` ((ctype, address) each) when ``result[0]`` is success."""
    err = int(result[0])
    if err == 0:
        for (ctype, addr), value in zip(cells, result[1:], strict=False):
            if addr:
                _set(ctype, addr, int(value) if ctype is not _c_float else float(value))
    return err


def _need(*pairs: tuple[int, str]) -> str | None:
    """The name of the first NULL output pointer, or None."""
    for addr, name in pairs:
        if not addr:
            return name
    return None


def _struct_out(result: tuple, address: int) -> int:
    err = int(result[0])
    if err == 0:
        obj = result[1]
        ctypes.memmove(address, obj.getPtr(), type(obj).sizeof())
    return err


# strings handed to C must outlive the call: keep one buffer per distinct string
_strings: dict[bytes, ctypes.Array] = {}
_strings_lock = threading.Lock()


def _c_string(text: bytes | str) -> int:
    data = text.encode() if isinstance(text, str) else bytes(text)
    with _strings_lock:
        buf = _strings.get(data)
        if buf is None:
            buf = _strings[data] = ctypes.create_string_buffer(data)
    return ctypes.addressof(buf)


def _cstr(address: int) -> bytes:
    return ctypes.string_at(address)


# ---- reading caller arrays whose length the caller gives: a wrong count must not crash the process
_MAX_ARRAY_BYTES = 1 << 28


class _IOVec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]


def _vm_reader() -> Any:
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        fn = libc.process_vm_readv
    except (AttributeError, OSError):
        return None
    fn.restype = ctypes.c_ssize_t
    fn.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong, ctypes.c_ulong]
    return fn


_process_vm_readv = _vm_reader()


def _safe_bytes(address: int, n: int) -> bytes | None:
    """``n`` bytes at ``address``, or None when the range is not readable or absurdly large (Linux
    checks with process_vm_readv, which fails with EFAULT instead of faulting; elsewhere the range is
    trusted, as C would)."""
    if n == 0:
        return b""
    if not address or n < 0 or n > _MAX_ARRAY_BYTES:
        return None
    buf = ctypes.create_string_buffer(n)
    if _process_vm_readv is not None:
        local, remote = _IOVec(ctypes.addressof(buf), n), _IOVec(address, n)
        got = _process_vm_readv(os.getpid(), ctypes.byref(local), 1, ctypes.byref(remote), 1, 0)
        if got == n:
            return buf.raw
        if got >= 0 or ctypes.get_errno() not in (38, 1):  # not ENOSYS/EPERM: the range is bad
            return None
    ctypes.memmove(buf, address, n)
    return buf.raw


def _safe_array(ctype: Any, address: int, count: int) -> list[int] | None:
    """A C array of ``count`` ``ctype`` values as ints, or None when it cannot be read."""
    if count < 0 or count * ctypes.sizeof(ctype) > _MAX_ARRAY_BYTES:
        return None
    data = _safe_bytes(address, count * ctypes.sizeof(ctype))
    if data is None:
        return None
    return [int(x or 0) for x in (ctype * count).from_buffer_copy(data)] if count else []


def _readable(address: int, n: int) -> bool:
    return _safe_bytes(address, n) is not None


def started_by_library(rearm_exit_handler: int = 0) -> int:
    """libcumetal started this interpreter: the process is a C/C++ CUDA program, whose driver
    contexts are asynchronous as CUDA's are (a kernel fault comes back from the next synchronising
    call, not from cuLaunchKernel; ``CUMETAL_ASYNC=0`` keeps them eager)."""
    from cumetal.driver.runtime_support import set_driver_contexts_asynchronous

    global _owns_interpreter
    set_driver_contexts_asynchronous(True)
    _owns_interpreter = True
    # Load LLVM (llvmlite) now, before libcumetal registers its exit handler: exit() runs handlers
    # and the C++ static destructors of libraries loaded later in reverse order, so LLVM loaded on
    # first compile had its globals (the pass registry) destroyed before at_exit could wait for a
    # compile still running on the background thread: "double free or corruption" at exit.
    try:
        import llvmlite.binding  # noqa: F401
    except ImportError:  # no compiled backend: nothing of LLVM's to tear down
        pass
    # LLVM's function-local statics register their destructors on first use, after that handler:
    # libcumetal registers it again after each compile and object load (cm_core.c, cm_at_exit)
    if rearm_exit_handler:
        from cumetal.backends.air.sim import compile as jit_compile

        jit_compile.AFTER_LLVM_USE.append(ctypes.CFUNCTYPE(None)(rearm_exit_handler))
    return 0


_owns_interpreter = False  # libcumetal started this interpreter (a C/C++ program), see at_exit


def at_exit() -> int:
    """The C program is exiting (libcumetal's C ``atexit`` handler). Python is not finalised there,
    so its own exit hooks would never run: run them now, while every thread still has a whole
    process. They wait for the tiered backend's background compile and for enqueued stream work;
    without them ``exit()`` ran LLVM's static destructors under a compile still running on its
    thread, which aborted the process after the program had finished (an assertion inside LLVM,
    seen with an empty JIT cache)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - nothing to do at exit
            pass
    if _owns_interpreter:
        import atexit

        try:
            atexit._run_exitfuncs()  # runs each hook once and clears the list (errors go to stderr)
        except Exception:  # noqa: BLE001, S110 - nothing more to do at exit
            pass
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001, S110
                pass
    return 0


# ================================================================ Runtime API


def _simple(name: str, *args: Any) -> int:
    return int(getattr(rt, name)(*args)[0])


@_guard()
def cudaDeviceReset() -> int:  # noqa: N802
    return _simple("cudaDeviceReset")


@_guard()
def cudaDeviceSynchronize() -> int:  # noqa: N802
    return _simple("cudaDeviceSynchronize")


@_guard()
def cudaDeviceSetLimit(limit: int, value: int) -> int:  # noqa: N802
    return _simple("cudaDeviceSetLimit", limit, value)


@_guard()
def cudaDeviceGetLimit(p: int, limit: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pValue")
    return _outs(rt.cudaDeviceGetLimit(limit), (_c_size, p))


@_guard()
def cudaDeviceGetCacheConfig(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pCacheConfig")
    return _outs(rt.cudaDeviceGetCacheConfig(), (_c_int, p))


@_guard()
def cudaDeviceSetCacheConfig(cfg: int) -> int:  # noqa: N802
    return _simple("cudaDeviceSetCacheConfig", cfg)


@_guard()
def cudaDeviceGetStreamPriorityRange(least: int, greatest: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetStreamPriorityRange(), (_c_int, least), (_c_int, greatest))


@_guard()
def cudaDeviceGetByPCIBusId(device: int, bus_id: int) -> int:  # noqa: N802
    if _need((device, "device"), (bus_id, "pciBusId")):
        return _invalid(_need((device, "device"), (bus_id, "pciBusId")) or "")
    return _outs(rt.cudaDeviceGetByPCIBusId(_cstr(bus_id)), (_c_int, device))


@_guard()
def cudaDeviceGetPCIBusId(buf: int, length: int, device: int) -> int:  # noqa: N802
    if not buf:
        return _invalid("pciBusId")
    res = rt.cudaDeviceGetPCIBusId(length, device)
    if int(res[0]) == 0 and length > 0:
        text = res[1] if isinstance(res[1], bytes) else str(res[1]).encode()
        data = text[: length - 1] + b"\0"
        ctypes.memmove(buf, data, len(data))
    return int(res[0])


@_guard()
def cudaGetDeviceCount(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("count")
    return _outs(rt.cudaGetDeviceCount(), (_c_int, p))


@_guard()
def cudaGetDeviceProperties(p: int, device: int) -> int:  # noqa: N802
    if not p:
        return _invalid("prop")
    return _struct_out(rt.cudaGetDeviceProperties(device), p)


@_guard()
def cudaDeviceGetAttribute(p: int, attr: int, device: int) -> int:  # noqa: N802
    if not p:
        return _invalid("value")
    return _outs(rt.cudaDeviceGetAttribute(attr, device), (_c_int, p))


@_guard()
def cudaChooseDevice(p: int, prop: int) -> int:  # noqa: N802
    if _need((p, "device"), (prop, "prop")):
        return _invalid(_need((p, "device"), (prop, "prop")) or "")
    return _outs(rt.cudaChooseDevice(rtt.cudaDeviceProp.from_address(prop)), (_c_int, p))


@_guard()
def cudaInitDevice(device: int, device_flags: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaInitDevice", device, device_flags, flags)


@_guard()
def cudaSetDevice(device: int) -> int:  # noqa: N802
    return _simple("cudaSetDevice", device)


@_guard()
def cudaGetDevice(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("device")
    return _outs(rt.cudaGetDevice(), (_c_int, p))


@_guard()
def cudaSetValidDevices(arr: int, n: int) -> int:  # noqa: N802
    devices = _safe_array(_c_int, arr, n) if arr and n > 0 else []
    if devices is None:
        return _invalid("device_arr")
    return _simple("cudaSetValidDevices", devices, n)


@_guard()
def cudaSetDeviceFlags(flags: int) -> int:  # noqa: N802
    return _simple("cudaSetDeviceFlags", flags)


@_guard()
def cudaGetDeviceFlags(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("flags")
    return _outs(rt.cudaGetDeviceFlags(), (_c_uint, p))


@_guard()
def cudaDeviceCanAccessPeer(p: int, device: int, peer: int) -> int:  # noqa: N802
    if not p:
        return _invalid("canAccessPeer")
    return _outs(rt.cudaDeviceCanAccessPeer(device, peer), (_c_int, p))


@_guard()
def cudaDeviceEnablePeerAccess(peer: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaDeviceEnablePeerAccess", peer, flags)


@_guard()
def cudaDeviceDisablePeerAccess(peer: int) -> int:  # noqa: N802
    return _simple("cudaDeviceDisablePeerAccess", peer)


# ---- errors and versions
@_guard()
def cudaGetLastError() -> int:  # noqa: N802
    return _simple("cudaGetLastError")


@_guard()
def cudaPeekAtLastError() -> int:  # noqa: N802
    return _simple("cudaPeekAtLastError")


@_guard(0)
def cudaGetErrorName(code: int) -> int:  # noqa: N802
    res = rt.cudaGetErrorName(code)
    return _c_string(res[1] if int(res[0]) == 0 and res[1] is not None else b"unrecognized error code")


@_guard(0)
def cudaGetErrorString(code: int) -> int:  # noqa: N802
    res = rt.cudaGetErrorString(code)
    return _c_string(res[1] if int(res[0]) == 0 and res[1] is not None else b"unrecognized error code")


@_guard()
def cudaDriverGetVersion(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("driverVersion")
    return _outs(rt.cudaDriverGetVersion(), (_c_int, p))


@_guard()
def cudaRuntimeGetVersion(p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("runtimeVersion")
    return _outs(rt.cudaRuntimeGetVersion(), (_c_int, p))


@_guard()
def cudaProfilerStart() -> int:  # noqa: N802
    return _simple("cudaProfilerStart")


@_guard()
def cudaProfilerStop() -> int:  # noqa: N802
    return _simple("cudaProfilerStop")


# ---- streams and events
@_guard()
def cudaStreamCreateWithPriority(p: int, flags: int, priority: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pStream")
    return _outs(rt.cudaStreamCreateWithPriority(flags, priority), (_c_ptr, p))


@_guard()
def cudaStreamGetPriority(stream: int, p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("priority")
    return _outs(rt.cudaStreamGetPriority(stream), (_c_int, p))


@_guard()
def cudaStreamGetFlags(stream: int, p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("flags")
    return _outs(rt.cudaStreamGetFlags(stream), (_c_uint, p))


@_guard()
def cudaStreamGetDevice(stream: int, p: int) -> int:  # noqa: N802
    if not p:
        return _invalid("device")
    return _outs(rt.cudaStreamGetDevice(stream), (_c_int, p))


@_guard()
def cudaStreamDestroy(stream: int) -> int:  # noqa: N802
    return _simple("cudaStreamDestroy", stream)


@_guard()
def cudaStreamWaitEvent(stream: int, event: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaStreamWaitEvent", stream, event, flags)


@_guard()
def cudaStreamAddCallback(stream: int, callback: int, user_data: int, flags: int) -> int:  # noqa: N802
    if not callback:
        return _invalid("callback")
    return _simple("cudaStreamAddCallback", stream, rtt.cudaStreamCallback_t(callback), user_data, flags)


@_guard()
def cudaLaunchHostFunc(stream: int, fn: int, user_data: int) -> int:  # noqa: N802
    if not fn:
        return _invalid("fn")
    return _simple("cudaLaunchHostFunc", stream, rtt.cudaHostFn_t(fn), user_data)


@_guard()
def cudaStreamSynchronize(stream: int) -> int:  # noqa: N802
    return _simple("cudaStreamSynchronize", stream)


@_guard()
def cudaStreamQuery(stream: int) -> int:  # noqa: N802
    return _simple("cudaStreamQuery", stream)


@_guard()
def cudaStreamAttachMemAsync(stream: int, ptr: int, length: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaStreamAttachMemAsync", stream, ptr, length, flags)


@_guard()
def cudaEventCreateWithFlags(p: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("event")
    return _outs(rt.cudaEventCreateWithFlags(flags), (_c_ptr, p))


@_guard()
def cudaEventRecordWithFlags(event: int, stream: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaEventRecordWithFlags", event, stream, flags)


@_guard()
def cudaEventQuery(event: int) -> int:  # noqa: N802
    return _simple("cudaEventQuery", event)


@_guard()
def cudaEventSynchronize(event: int) -> int:  # noqa: N802
    return _simple("cudaEventSynchronize", event)


@_guard()
def cudaEventDestroy(event: int) -> int:  # noqa: N802
    return _simple("cudaEventDestroy", event)


@_guard()
def cudaEventElapsedTime(p: int, start: int, end: int) -> int:  # noqa: N802
    if not p:
        return _invalid("ms")
    return _outs(rt.cudaEventElapsedTime(start, end), (_c_float, p))


# ---- execution control
@_guard()
def cudaLaunchKernel(func: int, grid: tuple, block: tuple, args: int, shared: int, stream: int,  # noqa: N802
                     cooperative: int) -> int:
    fn = rt.cudaLaunchCooperativeKernel if cooperative else rt.cudaLaunchKernel
    return int(fn(func, grid, block, args or None, shared, stream)[0])


@_guard()
def cudaFuncSetCacheConfig(func: int, cfg: int) -> int:  # noqa: N802
    return _simple("cudaFuncSetCacheConfig", func, cfg)


@_guard()
def cudaFuncGetAttributes(p: int, func: int) -> int:  # noqa: N802
    if not p:
        return _invalid("attr")
    return _struct_out(rt.cudaFuncGetAttributes(func), p)


@_guard()
def cudaFuncSetAttribute(func: int, attr: int, value: int) -> int:  # noqa: N802
    return _simple("cudaFuncSetAttribute", func, attr, value)


@_guard()
def cudaFuncGetName(p: int, func: int) -> int:  # noqa: N802
    if not p:
        return _invalid("name")
    res = rt.cudaFuncGetName(func)
    if int(res[0]) == 0:
        _set(_c_ptr, p, _c_string(res[1]))
    return int(res[0])


@_guard()
def cudaGetKernel(p: int, func: int) -> int:  # noqa: N802
    if not p:
        return _invalid("kernelPtr")
    return _outs(rt.cudaGetKernel(func), (_c_ptr, p))


@_guard()
def cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(p: int, func: int, block_size: int, smem: int,  # noqa: N802
                                                           flags: int) -> int:
    if not p:
        return _invalid("numBlocks")
    return _outs(rt.cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(func, block_size, smem, flags),
                 (_c_int, p))


@_guard()
def cudaOccupancyAvailableDynamicSMemPerBlock(p: int, func: int, num_blocks: int, block_size: int) -> int:  # noqa: N802
    if not p:
        return _invalid("dynamicSmemSize")
    return _outs(rt.cudaOccupancyAvailableDynamicSMemPerBlock(func, num_blocks, block_size), (_c_size, p))


# ---- memory
@_guard()
def cudaMalloc(p: int, size: int) -> int:  # noqa: N802
    if not p:
        return _invalid("devPtr")
    return _outs(rt.cudaMalloc(size), (_c_ptr, p))


@_guard()
def cudaMallocManaged(p: int, size: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("devPtr")
    return _outs(rt.cudaMallocManaged(size, flags), (_c_ptr, p))


@_guard()
def cudaHostAlloc(p: int, size: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pHost")
    return _outs(rt.cudaHostAlloc(size, flags), (_c_ptr, p))


@_guard()
def cudaMallocPitch(p: int, pitch: int, width: int, height: int) -> int:  # noqa: N802
    missing = _need((p, "devPtr"), (pitch, "pitch"))
    if missing:
        return _invalid(missing)
    return _outs(rt.cudaMallocPitch(width, height), (_c_ptr, p), (_c_size, pitch))


@_guard()
def cudaMalloc3D(p: int, width: int, height: int, depth: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pitchedDevPtr")
    return _struct_out(rt.cudaMalloc3D(rtt.make_cudaExtent(width, height, depth)), p)


@_guard()
def cudaMallocAsync(p: int, size: int, stream: int) -> int:  # noqa: N802
    if not p:
        return _invalid("devPtr")
    return _outs(rt.cudaMallocAsync(size, stream), (_c_ptr, p))


@_guard()
def cudaFree(ptr: int) -> int:  # noqa: N802
    return _simple("cudaFree", ptr)


@_guard()
def cudaFreeHost(ptr: int) -> int:  # noqa: N802
    return _simple("cudaFreeHost", ptr)


@_guard()
def cudaFreeAsync(ptr: int, stream: int) -> int:  # noqa: N802
    return _simple("cudaFreeAsync", ptr, stream)


@_guard()
def cudaHostRegister(ptr: int, size: int, flags: int) -> int:  # noqa: N802
    return _simple("cudaHostRegister", ptr, size, flags)


@_guard()
def cudaHostUnregister(ptr: int) -> int:  # noqa: N802
    return _simple("cudaHostUnregister", ptr)


@_guard()
def cudaHostGetDevicePointer(p: int, host: int, flags: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pDevice")
    return _outs(rt.cudaHostGetDevicePointer(host, flags), (_c_ptr, p))


@_guard()
def cudaHostGetFlags(p: int, host: int) -> int:  # noqa: N802
    if not p:
        return _invalid("pFlags")
    return _outs(rt.cudaHostGetFlags(host), (_c_uint, p))


@_guard()
def cudaMemGetInfo(free: int, total: int) -> int:  # noqa: N802
    # NULL outputs are skipped, not refused: CUDA 13 answers cudaSuccess (bad_pointers.h100.txt)
    return _outs(rt.cudaMemGetInfo(), (_c_size, free), (_c_size, total))


@_guard()
def cudaPointerGetAttributes(p: int, ptr: int) -> int:  # noqa: N802
    if not p:
        return _invalid("attributes")
    return _struct_out(rt.cudaPointerGetAttributes(ptr), p)


@_guard()
def cudaMemcpyAsync(dst: int, src: int, count: int, kind: int, stream: int, sync: int) -> int:  # noqa: N802
    if sync:
        return _simple("cudaMemcpy", dst, src, count, kind)
    return _simple("cudaMemcpyAsync", dst, src, count, kind, stream)


@_guard()
def cudaMemcpy2DAsync(dst: int, dpitch: int, src: int, spitch: int, width: int, height: int, kind: int,  # noqa: N802
                      stream: int, sync: int) -> int:
    if sync:
        return _simple("cudaMemcpy2D", dst, dpitch, src, spitch, width, height, kind)
    return _simple("cudaMemcpy2DAsync", dst, dpitch, src, spitch, width, height, kind, stream)


@_guard()
def cudaMemcpy3DAsync(p: int, stream: int, sync: int) -> int:  # noqa: N802
    if not p:
        return _invalid("p")
    parms = rtt.cudaMemcpy3DParms.from_address(p)
    if sync:
        return _simple("cudaMemcpy3D", parms)
    return _simple("cudaMemcpy3DAsync", parms, stream)


@_guard()
def cudaMemcpyPeerAsync(dst: int, dst_dev: int, src: int, src_dev: int, count: int, stream: int,  # noqa: N802
                        sync: int) -> int:
    if sync:
        return _simple("cudaMemcpyPeer", dst, dst_dev, src, src_dev, count)
    return _simple("cudaMemcpyPeerAsync", dst, dst_dev, src, src_dev, count, stream)


@_guard()
def cudaMemcpyToSymbolAsync(symbol: int, src: int, count: int, offset: int, kind: int, stream: int,  # noqa: N802
                            sync: int) -> int:
    if sync:
        return _simple("cudaMemcpyToSymbol", symbol, src, count, offset, kind)
    return _simple("cudaMemcpyToSymbolAsync", symbol, src, count, offset, kind, stream)


@_guard()
def cudaMemcpyFromSymbolAsync(dst: int, symbol: int, count: int, offset: int, kind: int, stream: int,  # noqa: N802
                              sync: int) -> int:
    if sync:
        return _simple("cudaMemcpyFromSymbol", dst, symbol, count, offset, kind)
    return _simple("cudaMemcpyFromSymbolAsync", dst, symbol, count, offset, kind, stream)


@_guard()
def cudaMemset2DAsync(ptr: int, pitch: int, value: int, width: int, height: int, stream: int,  # noqa: N802
                      sync: int) -> int:
    if height == 1 and pitch == width:  # cudaMemset / cudaMemsetAsync
        if sync:
            return _simple("cudaMemset", ptr, value, width)
        return _simple("cudaMemsetAsync", ptr, value, width, stream)
    if sync:
        return _simple("cudaMemset2D", ptr, pitch, value, width, height)
    return _simple("cudaMemset2DAsync", ptr, pitch, value, width, height, stream)


@_guard()
def cudaMemset3DAsync(ptr: int, pitch: int, xsize: int, ysize: int, value: int, width: int, height: int,  # noqa: N802
                      depth: int, stream: int, sync: int) -> int:
    pp = rtt.make_cudaPitchedPtr(ptr, pitch, xsize, ysize)
    ext = rtt.make_cudaExtent(width, height, depth)
    if sync:
        return _simple("cudaMemset3D", pp, value, ext)
    return _simple("cudaMemset3DAsync", pp, value, ext, stream)


@_guard()
def cudaGetSymbolAddress(p: int, symbol: int) -> int:  # noqa: N802
    if not p:
        return _invalid("devPtr")
    return _outs(rt.cudaGetSymbolAddress(symbol), (_c_ptr, p))


@_guard()
def cudaGetSymbolSize(p: int, symbol: int) -> int:  # noqa: N802
    if not p:
        return _invalid("size")
    return _outs(rt.cudaGetSymbolSize(symbol), (_c_size, p))


@_guard()
def cudaMemPrefetchAsync(ptr: int, count: int, loc_type: int, loc_id: int, flags: int, stream: int) -> int:  # noqa: N802
    loc = rtt.cudaMemLocation(type=loc_type, id=loc_id)
    return _simple("cudaMemPrefetchAsync", ptr, count, loc, flags, stream)


@_guard()
def cudaMemAdvise(ptr: int, count: int, advice: int, loc_type: int, loc_id: int) -> int:  # noqa: N802
    loc = rtt.cudaMemLocation(type=loc_type, id=loc_id)
    return _simple("cudaMemAdvise", ptr, count, advice, loc)


@_guard(0)
def use_per_thread_default_stream() -> int:
    from cumetal.runtime.state import RUNTIME  # noqa: PLC0415

    RUNTIME.per_thread_default = True
    return 0


# ---- stream-ordered memory pools
@_guard()
def cudaDeviceGetDefaultMemPool(p: int, device: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetDefaultMemPool(device), (_c_ptr, p)) if p else _invalid("memPool")


@_guard()
def cudaDeviceGetMemPool(p: int, device: int) -> int:  # noqa: N802
    return _outs(rt.cudaDeviceGetMemPool(device), (_c_ptr, p)) if p else _invalid("memPool")


@_guard()
def cudaDeviceSetMemPool(device: int, pool: int) -> int:  # noqa: N802
    return _simple("cudaDeviceSetMemPool", device, pool)


@_guard()
def cudaMallocFromPoolAsync(p: int, size: int, pool: int, stream: int) -> int:  # noqa: N802
    return _outs(rt.cudaMallocFromPoolAsync(size, pool, stream), (_c_ptr, p)) if p else _invalid("ptr")


def _pool_attr_ctype(attr: int) -> type:
    from cumetal.runtime import pools  # noqa: PLC0415

    return _c_u64 if any(int(a) == attr for a in pools._U64) else _c_int


@_guard()
def cudaMemPoolSetAttribute(pool: int, attr: int, value: int) -> int:  # noqa: N802
    if not value:
        return _invalid("value")
    return _simple("cudaMemPoolSetAttribute", pool, attr, _pool_attr_ctype(attr).from_address(value).value)


@_guard()
def cudaMemPoolGetAttribute(pool: int, attr: int, value: int) -> int:  # noqa: N802
    if not value:
        return _invalid("value")
    return _outs(rt.cudaMemPoolGetAttribute(pool, attr), (_pool_attr_ctype(attr), value))


@_guard()
def cudaMemPoolTrimTo(pool: int, keep: int) -> int:  # noqa: N802
    return _simple("cudaMemPoolTrimTo", pool, keep)


# ---- stream capture and graphs
@_guard()
def cudaStreamBeginCapture(stream: int, mode: int) -> int:  # noqa: N802
    return _simple("cudaStreamBeginCapture", stream, mode)


@_guard()
def cudaStreamEndCapture(stream: int, p: int) -> int:  # noqa: N802
    if not p and not _captures_to_user_graph(stream):  # the caller's own graph needs no pGraph back
        return _invalid("pGraph")
    return _outs(rt.cudaStreamEndCapture(stream), (_c_ptr, p))


def _captures_to_user_graph(stream: int) -> bool:
    from cumetal.runtime.graphs import _captures
    from cumetal.runtime.state import RUNTIME

    try:
        cap = _captures.get(RUNTIME.stream_handle(stream))
    except Exception:  # noqa: BLE001 - a bad stream: let cudaStreamEndCapture answer it
        return True
    return cap is not None and not cap.owns_graph


@_guard()
def cudaStreamIsCapturing(stream: int, p: int) -> int:  # noqa: N802
    return _outs(rt.cudaStreamIsCapturing(stream), (_c_int, p)) if p else _invalid("pCaptureStatus")


@_guard()
def cudaGraphCreate(p: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphCreate(flags), (_c_ptr, p)) if p else _invalid("pGraph")


@_guard()
def cudaGraphInstantiate(p: int, graph: int, flags: int) -> int:  # noqa: N802
    return _outs(rt.cudaGraphInstantiate(graph, flags), (_c_ptr, p)) if p else _invalid("pGraphExec")


@_guard()
def cudaGraphLaunch(graph_exec: int, stream: int) -> int:  # noqa: N802
    return _simple("cudaGraphLaunch", graph_exec, stream)


@_guard()
def cudaGraphExecDestroy(graph_exec: int) -> int:  # noqa: N802
    return _simple("cudaGraphExecDestroy", graph_exec)


@_guard()
def cudaGraphDestroy(graph: int) -> int:  # noqa: N802
    return _simple("cudaGraphDestroy", graph)


# ================================================================ registration (compiled host code)
class _Registered:
    """What one ``__cudaRegisterFatBinary`` handle stands for."""

    def __init__(self, library: int | None) -> None:
        self.library = library
        self.managed: list[int] = []  # host pointer cells of __managed__ variables
        self.shadows: list[int] = []  # clang-built __managed__ variables (storage at the host shadow)
        self.managed_ready = False


_registered: dict[int, _Registered] = {}


_rdc: dict[str, int] = {}  # "library": the shared module of all relocatable (-rdc) parts


def _rdc_library() -> int:
    """The one library all -rdc parts register into; its PTX arrives with register_linked_image
    (constructor order across objects is unspecified) and is compiled on first use."""
    if "library" not in _rdc:
        _rdc["library"] = rt.register_module(b"", "<device-linked module (-rdc)>")
    return _rdc["library"]


@_guard(0)
def register_linked_image(address: int) -> int:
    from cumetal.runtime.state import RUNTIME  # noqa: PLC0415

    try:
        ptx = fatbin.extract_ptx(fatbin.image_at(address), "device-linked code")
    except fatbin.FatbinError as e:
        _say(str(e))
        return 0
    RUNTIME.libraries[_rdc_library()].image = ptx.encode()
    for reg in list(_registered.values()):
        if reg.shadows and reg.library == _rdc["library"]:
            _load_shadowed(reg)
            break
    return 0


@_guard(0)
def register_fatbinary(handle: int, wrapper: int) -> int:
    try:
        image = fatbin.image_at(wrapper)
        if blob.is_blob(image) and all(e.kind == blob.KIND_BITCODE for e in blob.unpack(image)):
            _registered[handle] = _Registered(_rdc_library())  # a relocatable part
            return 0
        ptx = fatbin.extract_ptx(image, "registered device code")
    except (fatbin.FatbinError, blob.BlobError) as e:
        _say(f"{e}; the kernels of this program part cannot run (launches return cudaErrorInvalidDeviceFunction)")
        _registered[handle] = _Registered(None)
        return 0
    _registered[handle] = _Registered(rt.register_module(ptx.encode(), "<registered module>"))
    return 0


@_guard(0)
def register_function(handle: int, host_fun: int, name: int, thread_limit: int) -> int:
    reg = _registered.get(handle)
    if reg is not None and reg.library is not None and name:
        rt.register_function(reg.library, host_fun, _cstr(name))
    return 0


@_guard(0)
def register_var(handle: int, host_var: int, name: int, ext: int, size: int, constant: int, global_: int,
                 managed: int) -> int:
    """``managed``: 0 a __device__/__constant__ variable, 1 nvcc's __managed__ (``host_var`` is the
    pointer cell its host code reads through), 2 clang's (``host_var`` is the storage itself)."""
    reg = _registered.get(handle)
    if reg is not None and reg.library is not None and name:
        rt.register_variable(reg.library, host_var, _cstr(name), size, constant=bool(constant),
                             managed=managed == 1, host_storage=managed == 2)
        if managed == 1:
            reg.managed.append(host_var)
        elif managed == 2:
            reg.shadows.append(host_var)
    return 0


def _bind_managed(reg: _Registered) -> int:
    """Store each __managed__ variable's address in its host pointer cell (loads the module)."""
    if reg.managed_ready:
        return 0
    for cell in reg.managed:
        res = rt.cudaGetSymbolAddress(cell)
        if int(res[0]) != 0:
            return int(res[0])
        _set(_c_ptr, cell, int(res[1]))
    reg.managed_ready = True
    return 0


@_guard(0)
def register_fatbinary_end(handle: int) -> int:
    reg = _registered.get(handle)
    if reg is not None and reg.managed:
        _bind_managed(reg)  # clang's host code reads the cells without asking first
    if reg is not None and reg.shadows:
        _load_shadowed(reg)
    return 0


def _load_shadowed(reg: _Registered) -> None:
    """Load a module with clang-built __managed__ variables now, before main: the load writes their
    initial values into the host shadows, which must not overwrite what the host stores later. An
    -rdc part waits for the device-linked image (constructor order across objects is unspecified)."""
    from cumetal.runtime.state import RUNTIME  # noqa: PLC0415

    lib = RUNTIME.libraries.get(reg.library) if reg.library is not None else None
    if lib is not None and lib.image:
        rt.cudaGetSymbolAddress(reg.shadows[0])


@_guard(UNKNOWN)
def init_module(handle: int) -> int:
    reg = _registered.get(handle)
    if reg is None:
        return 0
    return _bind_managed(reg)


@_guard(0)
def unregister_fatbinary(handle: int) -> int:
    reg = _registered.pop(handle, None)
    if reg is not None and reg.library is not None:
        rt.unregister_module(reg.library)
    return 0


# ================================================================ Driver API
from cumetal.capi import bridge_driver as _drv  # noqa: E402 - the drv_* functions live there

globals().update({n: getattr(_drv, n) for n in dir(_drv) if n.startswith("drv_")})
from cumetal.capi import bridge_linker as _linker  # noqa: E402 - the JIT linker's drv_cuLink* functions

globals().update({n: getattr(_linker, n) for n in dir(_linker) if n.startswith("drv_")})

# ================================================================ graphs and stream capture
from cumetal.capi import bridge_graphs as _graphs  # noqa: E402 - their cuda* functions live there

globals().update({n: getattr(_graphs, n) for n in _graphs.__all__})

# ================================================================ launch and stream attributes
from cumetal.capi import bridge_launch as _launch_attrs  # noqa: E402

globals().update({n: getattr(_launch_attrs, n) for n in _launch_attrs.__all__})

# ================================================================ devices, pools, ranges, ids (host_runtime_misc.h)
from cumetal.capi import bridge_runtime_misc as _misc  # noqa: E402

globals().update({n: getattr(_misc, n) for n in _misc.__all__})

# ================================================================ NVRTC (nvrtc.h)
from cumetal.capi import bridge_nvrtc as _nvrtc  # noqa: E402

globals().update({n: getattr(_nvrtc, n) for n in dir(_nvrtc) if n.startswith("nvrtc_")})
_ = drv

# ================================================================ libNVVM (nvvm.h): nvvm_<name> in bridge_nvvm (csrc/cm_nvvm.c)
from cumetal.capi import bridge_nvvm as _nvvm  # noqa: E402

globals().update({n: getattr(_nvvm, n) for n in dir(_nvvm) if n.startswith("nvvm_")})

# legacy Driver API names (capi/legacy_driver.py's table; csrc/cm_driver_legacy.c, generated)
# CUDA arrays, texture and surface objects: tex_<name> in bridge_textures (csrc/cm_textures.c)
from cumetal.capi import bridge_textures as _tex  # noqa: E402
from cumetal.capi.bridge_driver_legacy import drv_legacy  # noqa: E402, F401

globals().update({n: _guard()(getattr(_tex, n)) for n in dir(_tex) if n.startswith("tex_")})

# ================================================================ IPC and more (host_runtime_misc.h, csrc/cm_runtime_more.c)
from cumetal.capi import bridge_runtime_more as _more  # noqa: E402

globals().update({n: getattr(_more, n) for n in _more.__all__})

# ================================================================ CUDA 13 additions (host_runtime_cuda13.h, csrc/cm_runtime_cuda13.c)
from cumetal.capi import bridge_runtime_cuda13 as _cuda13  # noqa: E402

globals().update({n: getattr(_cuda13, n) for n in _cuda13.__all__})

# ================================================================ more of the Driver API (csrc/cm_driver_more.c)
from cumetal.capi import bridge_driver_more as _drv_more  # noqa: E402

globals().update({n: getattr(_drv_more, n) for n in _drv_more.__all__})

# ================================================================ declared Driver API calls (csrc/cm_driver_exports.c)
from cumetal.capi import bridge_driver_exports as _drv_exports  # noqa: E402

globals().update({n: getattr(_drv_exports, n) for n in _drv_exports.__all__})
