"""External memory and external semaphores (``cudaImportExternalMemory``, ``cudaImportExternalSemaphore``,
``cudaSignal/WaitExternalSemaphoresAsync``, the external-semaphore graph nodes), Linux file descriptors.

**Memory** (``cudaExternalMemoryHandleTypeOpaqueFd``): CuMetal's device memory is host memory, so
an external allocation is a file the process can map (a ``memfd``, a shared-memory file, a DMA-BUF
that supports ``mmap``). The import maps ``size`` bytes of it, shared, and takes ownership of the
descriptor (closed by ``cudaDestroyExternalMemory``, as CUDA does); ``cudaExternalMemoryGetMappedBuffer``
enters ``[offset, offset + size)`` in the device's allocation table, so kernels, copies and fills use
the file's pages directly (free it with ``cudaFree``). Mapping external memory as a CUDA array is
``cudaErrorNotSupported`` (CuMetal's arrays own their storage in a layout of their own).

**Semaphores** (``cudaExternalSemaphoreHandleTypeOpaqueFd`` binary, ``…TimelineSemaphoreFd``
timeline): CuMetal's convention is a 64-bit counter at offset 0 of a mappable file (what Metal's
``MTLSharedEvent.signaledValue`` is on Apple GPUs; Vulkan's opaque semaphore descriptors are not
readable files and are refused). A signal stores ``params.fence.value`` (timeline) or 1 (binary) in
stream order; a wait holds its stream until the counter reaches ``params.fence.value`` (timeline) or
is non-zero (binary; the wait then resets it to 0, under a file lock so one waiter takes it). Other
processes (or the host) may signal through the same file.
"""

from __future__ import annotations

import ctypes
import enum
import fcntl
import mmap
import os
import threading
import time
from ctypes import c_int, c_uint, c_uint64, c_void_p
from dataclasses import dataclass
from typing import Any, ClassVar

from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaExternalMemoryHandleType, cudaExternalSemaphoreHandleType
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME
from cumetal.runtime.types import _Handle, _install_fields, _Struct

E = cudaError_t
MT, ST = cudaExternalMemoryHandleType, cudaExternalSemaphoreHandleType
_PAGE = mmap.PAGESIZE


# ---------------------------------------------------------------- structs (CUDA 13's C layouts)
class _Win32(ctypes.Structure):
    _fields_ = [("handle", c_void_p), ("name", c_void_p)]


class _HandleUnion(ctypes.Union):
    _fields_ = [("fd", c_int), ("win32", _Win32), ("nvSciBufObject", c_void_p)]


class _SemHandleUnion(ctypes.Union):
    _fields_ = [("fd", c_int), ("win32", _Win32), ("nvSciSyncObj", c_void_p)]


@_install_fields
class _win32(_Struct):  # noqa: N801
    _layout_ = _Win32
    __slots__ = ()


@_install_fields
class _handle(_Struct):  # noqa: N801
    _layout_ = _HandleUnion
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"win32": _win32}
    __slots__ = ()


@_install_fields
class _sem_handle(_Struct):  # noqa: N801
    _layout_ = _SemHandleUnion
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"win32": _win32}
    __slots__ = ()


class _MemHandleDesc(ctypes.Structure):
    _fields_ = [("type", c_int), ("handle", _HandleUnion), ("size", c_uint64), ("flags", c_uint),
                ("reserved", c_uint * 16)]


@_install_fields
class cudaExternalMemoryHandleDesc(_Struct):  # noqa: N801
    _layout_ = _MemHandleDesc
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"handle": _handle}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"type": MT}
    __slots__ = ()


class _BufferDesc(ctypes.Structure):
    _fields_ = [("offset", c_uint64), ("size", c_uint64), ("flags", c_uint), ("reserved", c_uint * 16)]


@_install_fields
class cudaExternalMemoryBufferDesc(_Struct):  # noqa: N801
    _layout_ = _BufferDesc
    __slots__ = ()


class _SemHandleDesc(ctypes.Structure):
    _fields_ = [("type", c_int), ("handle", _SemHandleUnion), ("flags", c_uint), ("reserved", c_uint * 16)]


@_install_fields
class cudaExternalSemaphoreHandleDesc(_Struct):  # noqa: N801
    _layout_ = _SemHandleDesc
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"handle": _sem_handle}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"type": ST}
    __slots__ = ()


class _Fence(ctypes.Structure):
    _fields_ = [("value", c_uint64)]


class _NvSciSync(ctypes.Union):
    _fields_ = [("fence", c_void_p), ("reserved", c_uint64)]


class _KeyedMutexSignal(ctypes.Structure):
    _fields_ = [("key", c_uint64)]


class _KeyedMutexWait(ctypes.Structure):
    _fields_ = [("key", c_uint64), ("timeoutMs", c_uint)]


class _SignalInner(ctypes.Structure):
    _fields_ = [("fence", _Fence), ("nvSciSync", _NvSciSync), ("keyedMutex", _KeyedMutexSignal),
                ("reserved", c_uint * 12)]


class _WaitInner(ctypes.Structure):
    _fields_ = [("fence", _Fence), ("nvSciSync", _NvSciSync), ("keyedMutex", _KeyedMutexWait),
                ("reserved", c_uint * 10)]


def _view(layout: type, nested: dict | None = None) -> type[_Struct]:
    cls = type(f"_{layout.__name__}_view", (_Struct,), {"_layout_": layout, "_nested_": nested or {}, "__slots__": ()})
    return _install_fields(cls)


_fence_view, _scisync_view = _view(_Fence), _view(_NvSciSync)
_signal_inner = _view(_SignalInner, {"fence": _fence_view, "nvSciSync": _scisync_view,
                                     "keyedMutex": _view(_KeyedMutexSignal)})
_wait_inner = _view(_WaitInner, {"fence": _fence_view, "nvSciSync": _scisync_view,
                                 "keyedMutex": _view(_KeyedMutexWait)})


class _SignalParams(ctypes.Structure):
    _fields_ = [("params", _SignalInner), ("flags", c_uint), ("reserved", c_uint * 16)]


class _WaitParams(ctypes.Structure):
    _fields_ = [("params", _WaitInner), ("flags", c_uint), ("reserved", c_uint * 16)]


@_install_fields
class cudaExternalSemaphoreSignalParams(_Struct):  # noqa: N801
    _layout_ = _SignalParams
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"params": _signal_inner}
    __slots__ = ()


@_install_fields
class cudaExternalSemaphoreWaitParams(_Struct):  # noqa: N801
    _layout_ = _WaitParams
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"params": _wait_inner}
    __slots__ = ()


class _NodeParams(ctypes.Structure):
    _fields_ = [("extSemArray", c_void_p), ("paramsArray", c_void_p), ("numExtSems", c_uint)]


class _SemNodeParams(_Struct):
    """``extSemArray``/``paramsArray`` as Python lists (cuda-python's form) or C array addresses."""

    _layout_ = _NodeParams
    __slots__ = ("_lists",)

    def __init__(self, _ptr: int = 0, **fields: Any) -> None:
        self._lists: dict[str, list] = {}
        super().__init__(_ptr, **fields)

    @property
    def numExtSems(self) -> int:  # noqa: N802
        return int(self._c.numExtSems)

    @numExtSems.setter
    def numExtSems(self, value: Any) -> None:  # noqa: N802
        self._c.numExtSems = int(value)


def _list_property(name: str) -> property:
    def get(self: _SemNodeParams) -> Any:
        return self._lists.get(name, getattr(self._c, name) or 0)

    def put(self: _SemNodeParams, value: Any) -> None:
        if isinstance(value, (list, tuple)):
            self._lists[name] = list(value)
        else:
            self._lists.pop(name, None)
            setattr(self._c, name, int(value or 0))

    return property(get, put)


class cudaExternalSemaphoreSignalNodeParams(_SemNodeParams):  # noqa: N801
    __slots__ = ()
    extSemArray = _list_property("extSemArray")
    paramsArray = _list_property("paramsArray")
    _params_type = cudaExternalSemaphoreSignalParams


class cudaExternalSemaphoreWaitNodeParams(_SemNodeParams):  # noqa: N801
    __slots__ = ()
    extSemArray = _list_property("extSemArray")
    paramsArray = _list_property("paramsArray")
    _params_type = cudaExternalSemaphoreWaitParams


class cudaExternalMemory_t(_Handle):  # noqa: N801
    __slots__ = ()


class cudaExternalSemaphore_t(_Handle):  # noqa: N801
    __slots__ = ()


# ---------------------------------------------------------------- memory
@dataclass(eq=False)
class _ExtMem:
    fd: int
    size: int
    map: mmap.mmap
    anchor: Any
    buffers: set  # addresses given out by GetMappedBuffer


_memories: dict[int, _ExtMem] = {}
_buffers: dict[int, int] = {}  # mapped buffer address -> external memory handle
_lock = threading.Lock()


def _device() -> Any:
    return RUNTIME.context().device


def _struct_arg(value: Any, cls: type[_Struct], what: str) -> Any:
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 2**64:
        value = cls.from_address(value)
    if not isinstance(value, cls):
        raise RtError(E.cudaErrorInvalidValue, f"{what} must be a {cls.__name__}")
    return value


def _linux() -> None:
    if not os.path.isdir("/proc/self/fd"):
        raise RtError(E.cudaErrorNotSupported, "external memory and semaphores need Linux file descriptors on CuMetal")


def _map_fd(fd: int, size: int, what: str) -> mmap.mmap:
    try:
        st = os.fstat(fd)
    except OSError as e:
        raise RtError(E.cudaErrorInvalidValue, f"{what}: descriptor {fd} is not open ({e.strerror})") from None
    if st.st_size and st.st_size < size:
        raise RtError(E.cudaErrorInvalidValue, f"{what}: the file holds {st.st_size} bytes, fewer than {size}")
    try:
        return mmap.mmap(fd, size, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
    except (OSError, ValueError) as e:
        raise RtError(E.cudaErrorInvalidValue, f"{what}: descriptor {fd} cannot be mapped ({e})") from None


@rt_api(1)
def cudaImportExternalMemory(memHandleDesc: Any) -> tuple:  # noqa: N802, N803
    _linux()
    desc = _struct_arg(memHandleDesc, cudaExternalMemoryHandleDesc, "memHandleDesc")
    t = int(desc._c.type)
    if t != MT.cudaExternalMemoryHandleTypeOpaqueFd:
        known = t in {int(m) for m in MT}
        raise RtError(E.cudaErrorNotSupported if known else E.cudaErrorInvalidValue,
                      f"handle type {t}: CuMetal imports cudaExternalMemoryHandleTypeOpaqueFd (a mappable file) only")
    size, fd = int(desc._c.size), int(desc._c.handle.fd)
    if size == 0 or fd < 0:
        raise RtError(E.cudaErrorInvalidValue, f"size {size}, fd {fd}: a positive size and an open descriptor are needed")
    m = _map_fd(fd, size, "memHandleDesc")
    h = RUNTIME.new_id()
    with _lock:
        _memories[h] = _ExtMem(fd, size, m, ctypes.c_char.from_buffer(m), set())
    return (cudaExternalMemory_t(h),)  # the descriptor now belongs to CuMetal (closed on destroy)


def _memory(extMem: Any) -> tuple[int, _ExtMem]:  # noqa: N803
    try:
        h = int(extMem)
    except (TypeError, ValueError):
        h = 0
    rec = _memories.get(h)
    if rec is None:
        raise RtError(E.cudaErrorInvalidResourceHandle, f"{extMem!r} is not an imported external memory")
    return h, rec


@rt_api(1)
def cudaExternalMemoryGetMappedBuffer(extMem: Any, bufferDesc: Any) -> tuple:  # noqa: N802, N803
    h, rec = _memory(extMem)
    desc = _struct_arg(bufferDesc, cudaExternalMemoryBufferDesc, "bufferDesc")
    offset, size, flags = int(desc._c.offset), int(desc._c.size), int(desc._c.flags)
    if flags != 0 or size == 0 or offset + size > rec.size:
        raise RtError(E.cudaErrorInvalidValue, f"offset {offset} + size {size} (flags {flags}) must lie within the "
                      f"{rec.size} imported bytes, flags 0")
    address = ctypes.addressof(rec.anchor) + offset
    try:
        _device().register_host(address, size)
    except (AttributeError, ValueError) as e:
        raise RtError(E.cudaErrorInvalidValue, f"cannot map [{offset}, {offset + size}): {e}") from None
    with _lock:
        rec.buffers.add(address)
        _buffers[address] = h
    return (address,)


def free_buffer(address: int) -> bool:
    """cudaFree of a mapped external buffer. False when ``address`` is not one."""
    with _lock:
        h = _buffers.pop(address, None)
        if h is None:
            return False
        _memories[h].buffers.discard(address)
    _device().unregister_host(address)
    return True


@rt_api(1)
def cudaExternalMemoryGetMappedMipmappedArray(extMem: Any, mipmapDesc: Any) -> tuple:  # noqa: N802, N803
    _memory(extMem)
    raise RtError(E.cudaErrorNotSupported, "CUDA arrays on external memory: CuMetal's arrays own their storage "
                  "(map a buffer and copy into an array instead)")


@rt_api(0)
def cudaDestroyExternalMemory(extMem: Any) -> tuple:  # noqa: N802, N803
    """Unmaps the import and closes its descriptor; mapped buffers stop being device memory."""
    h, rec = _memory(extMem)
    with _lock:
        del _memories[h]
        buffers = list(rec.buffers)
        for a in buffers:
            _buffers.pop(a, None)
    for a in buffers:
        _device().unregister_host(a)  # waits for work that may still use it
    rec.anchor = None
    rec.map.close()
    os.close(rec.fd)
    return ()


# ---------------------------------------------------------------- semaphores
@dataclass(eq=False)
class _ExtSem:
    fd: int
    timeline: bool
    map: mmap.mmap
    cell: Any  # c_uint64 at offset 0

    def signal(self, value: int) -> None:
        if self.cell is not None:
            self.cell.value = value if self.timeline else 1

    def wait(self, value: int) -> None:
        delay = 1e-5
        while self.cell is not None:
            if self.timeline:
                if self.cell.value >= value:
                    return
            else:
                fcntl.lockf(self.fd, fcntl.LOCK_EX)
                try:
                    if self.cell.value:
                        self.cell.value = 0  # a binary semaphore's wait consumes the signal
                        return
                finally:
                    fcntl.lockf(self.fd, fcntl.LOCK_UN)
            time.sleep(delay)
            delay = min(delay * 2, 2e-3)


_semaphores: dict[int, _ExtSem] = {}


@rt_api(1)
def cudaImportExternalSemaphore(semHandleDesc: Any) -> tuple:  # noqa: N802, N803
    _linux()
    desc = _struct_arg(semHandleDesc, cudaExternalSemaphoreHandleDesc, "semHandleDesc")
    t = int(desc._c.type)
    if t not in (ST.cudaExternalSemaphoreHandleTypeOpaqueFd, ST.cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd):
        known = t in {int(m) for m in ST}
        raise RtError(E.cudaErrorNotSupported if known else E.cudaErrorInvalidValue,
                      f"handle type {t}: CuMetal imports POSIX-descriptor semaphores (OpaqueFd, TimelineSemaphoreFd) only")
    if int(desc._c.flags) != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    fd = int(desc._c.handle.fd)
    if fd < 0:
        raise RtError(E.cudaErrorInvalidValue, f"fd {fd} is not a descriptor")
    try:
        if os.fstat(fd).st_size < 8:
            raise RtError(E.cudaErrorInvalidValue, "the semaphore file must hold its 64-bit value at offset 0 "
                          "(CuMetal's convention; at least 8 bytes)")
    except OSError as e:
        raise RtError(E.cudaErrorInvalidValue, f"descriptor {fd} is not open ({e.strerror})") from None
    m = _map_fd(fd, 8, "semHandleDesc")
    h = RUNTIME.new_id()
    _semaphores[h] = _ExtSem(fd, t == ST.cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd, m,
                             c_uint64.from_buffer(m))
    return (cudaExternalSemaphore_t(h),)


def _semaphore(value: Any) -> _ExtSem:
    try:
        rec = _semaphores.get(int(value))
    except (TypeError, ValueError):
        rec = None
    if rec is None:
        raise RtError(E.cudaErrorInvalidResourceHandle, f"{value!r} is not an imported external semaphore")
    return rec


@rt_api(0)
def cudaDestroyExternalSemaphore(extSem: Any) -> tuple:  # noqa: N802, N803
    rec = _semaphore(extSem)
    del _semaphores[int(extSem)]
    cell, rec.cell = rec.cell, None  # a wait still enqueued returns instead of reading unmapped memory
    del cell
    rec.map.close()
    os.close(rec.fd)
    return ()


def _items(sems: Any, params: Any, count: Any, ptype: type[_Struct]) -> list[tuple[_ExtSem, int]]:
    n = int_arg(count, "numExtSems", hi=2**16)
    if isinstance(sems, int) and not isinstance(sems, bool):  # C arrays
        if n and not (0 < sems < 2**64 and isinstance(params, int) and 0 < params < 2**64):
            raise RtError(E.cudaErrorInvalidValue, "extSemArray/paramsArray is NULL")
        handles = list((c_void_p * n).from_address(sems)) if n else []
        plist = [ptype.from_address(params + i * ptype.sizeof()) for i in range(n)]
    else:
        handles, plist = list(sems or []), list(params or [])
    if len(handles) < n or len(plist) < n:
        raise RtError(E.cudaErrorInvalidValue, f"numExtSems={n} but fewer semaphores/parameters given")
    out = []
    for i in range(n):
        p = plist[i]
        if not isinstance(p, ptype):
            raise RtError(E.cudaErrorInvalidValue, f"paramsArray[{i}] must be a {ptype.__name__}")
        out.append((_semaphore(handles[i] or 0), int(p._c.params.fence.value)))
    return out


def _enqueue(items: list[tuple[_ExtSem, int]], stream: Any, signal: bool) -> None:
    from cumetal.runtime import graphs

    h = RUNTIME.stream_handle(stream)
    if graphs.capturing(h):
        kind = graphs.T.cudaGraphNodeTypeExtSemaphoreSignal if signal else graphs.T.cudaGraphNodeTypeExtSemaphoreWait
        graphs.capture_node(h, kind, items)
        return
    run(items, h, signal)


def run(items: list[tuple[_ExtSem, int]], h: int, signal: bool) -> None:
    """Enqueue signals or waits on driver stream ``h`` (also what graph nodes do)."""
    from cumetal.driver.host_funcs import enqueue_host_call

    for sem, value in items:
        enqueue_host_call(h, (lambda s=sem, v=value: s.signal(v)) if signal else (lambda s=sem, v=value: s.wait(v)))


@rt_api(0)
def cudaSignalExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any,  # noqa: N802, N803
                                      stream: Any = 0) -> tuple:
    _enqueue(_items(extSemArray, paramsArray, numExtSems, cudaExternalSemaphoreSignalParams), stream, True)
    return ()


@rt_api(0)
def cudaWaitExternalSemaphoresAsync(extSemArray: Any, paramsArray: Any, numExtSems: Any,  # noqa: N802, N803
                                    stream: Any = 0) -> tuple:
    _enqueue(_items(extSemArray, paramsArray, numExtSems, cudaExternalSemaphoreWaitParams), stream, False)
    return ()


def node_items(nodeParams: Any, signal: bool) -> list[tuple[_ExtSem, int]]:  # noqa: N803
    """A node's (semaphore, value) list from its node parameters, validated and copied."""
    cls = cudaExternalSemaphoreSignalNodeParams if signal else cudaExternalSemaphoreWaitNodeParams
    p = _struct_arg(nodeParams, cls, "nodeParams")
    sems = p._lists.get("extSemArray", int(p._c.extSemArray or 0)) if isinstance(p, _SemNodeParams) else 0
    params = p._lists.get("paramsArray", int(p._c.paramsArray or 0))
    return _items(sems, params, p.numExtSems, cls._params_type)


def params_of(items: list[tuple[_ExtSem, int]], signal: bool) -> _SemNodeParams:
    """Node parameters for ``items`` (what the GetParams calls return)."""
    cls = cudaExternalSemaphoreSignalNodeParams if signal else cudaExternalSemaphoreWaitNodeParams
    handles = [next(h for h, s in _semaphores.items() if s is sem) if sem in _semaphores.values() else 0
               for sem, _v in items]
    plist = []
    for _sem, value in items:
        q = cls._params_type()
        q._c.params.fence.value = value
        plist.append(q)
    out = cls()
    out.extSemArray = [cudaExternalSemaphore_t(h) for h in handles]
    out.paramsArray = plist
    out.numExtSems = len(items)
    return out


# ---------------------------------------------------------------- graph nodes
def _kind(signal: bool) -> Any:
    from cumetal.runtime.enums import cudaGraphNodeType as T

    return T.cudaGraphNodeTypeExtSemaphoreSignal if signal else T.cudaGraphNodeTypeExtSemaphoreWait


def _add_node(graph: Any, deps: Any, count: Any, nodeParams: Any, signal: bool) -> tuple:  # noqa: N803
    from cumetal.runtime import graphs

    g = graphs._graph(graph)
    return (graphs._add(g, _kind(signal), node_items(nodeParams, signal), graphs._deps(g, deps, count)),)


@rt_api(1)
def cudaGraphAddExternalSemaphoresSignalNode(graph: Any, pDependencies: Any, numDependencies: Any,  # noqa: N802, N803
                                             nodeParams: Any) -> tuple:
    return _add_node(graph, pDependencies, numDependencies, nodeParams, True)


@rt_api(1)
def cudaGraphAddExternalSemaphoresWaitNode(graph: Any, pDependencies: Any, numDependencies: Any,  # noqa: N802, N803
                                           nodeParams: Any) -> tuple:
    return _add_node(graph, pDependencies, numDependencies, nodeParams, False)


def _get(node: Any, signal: bool) -> tuple:
    from cumetal.runtime.graph_nodes import _typed

    return (params_of(_typed(node, _kind(signal)).params, signal),)


def _set(node: Any, nodeParams: Any, signal: bool) -> tuple:  # noqa: N803
    from cumetal.runtime.graph_nodes import _typed

    n = _typed(node, _kind(signal))
    n.params = node_items(nodeParams, signal)
    return ()


def _exec_set(exe: Any, node: Any, nodeParams: Any, signal: bool) -> tuple:  # noqa: N803
    from cumetal.runtime.graph_nodes import _exec, _node

    _exec(exe).step(_node(node), _kind(signal)).params = node_items(nodeParams, signal)
    return ()


@rt_api(1)
def cudaGraphExternalSemaphoresSignalNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    return _get(hNode, True)


@rt_api(1)
def cudaGraphExternalSemaphoresWaitNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    return _get(hNode, False)


@rt_api(0)
def cudaGraphExternalSemaphoresSignalNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    return _set(hNode, nodeParams, True)


@rt_api(0)
def cudaGraphExternalSemaphoresWaitNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    return _set(hNode, nodeParams, False)


@rt_api(0)
def cudaGraphExecExternalSemaphoresSignalNodeSetParams(hGraphExec: Any, hNode: Any,  # noqa: N802, N803
                                                       nodeParams: Any) -> tuple:
    return _exec_set(hGraphExec, hNode, nodeParams, True)


@rt_api(0)
def cudaGraphExecExternalSemaphoresWaitNodeSetParams(hGraphExec: Any, hNode: Any,  # noqa: N802, N803
                                                     nodeParams: Any) -> tuple:
    return _exec_set(hGraphExec, hNode, nodeParams, False)
