"""External memory and semaphores on Linux descriptors: an imported memfd's pages are the device
memory a kernel doubles (checked through the file itself), a timeline semaphore holds a stream until
the host writes the value into the semaphore's file, signals write it (also from graph nodes), and
the structs have cuda-bindings' sizes."""

from __future__ import annotations

import ctypes
import os
import struct
import time

import numpy as np
import pytest
from tests.runtime.conftest import KERNELS_PTX, check

from cumetal import runtime as rt

E = rt.cudaError_t
pytestmark = pytest.mark.skipif(not hasattr(os, "memfd_create"), reason="external memory on CuMetal: Linux descriptors")
ARGS = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)
MEM_FD = rt.cudaExternalMemoryHandleType.cudaExternalMemoryHandleTypeOpaqueFd
TIMELINE = rt.cudaExternalSemaphoreHandleType.cudaExternalSemaphoreHandleTypeTimelineSemaphoreFd
BINARY = rt.cudaExternalSemaphoreHandleType.cudaExternalSemaphoreHandleTypeOpaqueFd


def _kernel():
    lib = check(rt.cudaLibraryLoadData(KERNELS_PTX.read_text(), None, None, 0, None, None, 0))
    return check(rt.cudaLibraryGetKernel(lib, b"vector_add"))


def _double(k, d, n, s):
    check(rt.cudaLaunchKernel(k, ((n + 255) // 256, 1, 1), (256, 1, 1), ((d, d, d, n), ARGS), 0, s))


def _memfd(data: bytes) -> int:
    fd = os.memfd_create("cumetal-test")
    os.ftruncate(fd, len(data))
    os.pwrite(fd, data, 0)
    return fd


def test_external_memory_is_the_files_pages():
    n, offset = 3000, 8192
    x = np.random.default_rng(7).standard_normal(n).astype(np.float32)
    fd = _memfd(b"\0" * offset + x.tobytes() + b"\0" * 100)
    desc = rt.cudaExternalMemoryHandleDesc()
    desc.type = MEM_FD
    desc.handle.fd = os.dup(fd)  # the import owns (and closes) the descriptor it is given
    desc.size = offset + n * 4 + 100
    ext = check(rt.cudaImportExternalMemory(desc))
    buf = rt.cudaExternalMemoryBufferDesc()
    buf.offset, buf.size = offset, n * 4
    d = check(rt.cudaExternalMemoryGetMappedBuffer(ext, buf))
    _double(_kernel(), d, n, 0)
    check(rt.cudaDeviceSynchronize())
    np.testing.assert_array_equal(np.frombuffer(os.pread(fd, n * 4, offset), np.float32), 2 * x)  # via the file
    os.pwrite(fd, np.float32(-1.5).tobytes(), offset)  # and the other way
    got = np.zeros(1, np.float32)
    check(rt.cudaMemcpy(got, d, 4, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    assert got[0] == -1.5
    buf.offset = offset + 4096
    assert rt.cudaExternalMemoryGetMappedBuffer(ext, buf)[0] == E.cudaErrorInvalidValue  # past the import
    mip = rt.cudaExternalMemoryMipmappedArrayDesc() if hasattr(rt, "cudaExternalMemoryMipmappedArrayDesc") else None
    assert rt.cudaExternalMemoryGetMappedMipmappedArray(ext, mip)[0] == E.cudaErrorNotSupported
    check(rt.cudaFree(d))
    assert rt.cudaFree(d)[0] == E.cudaErrorInvalidValue
    check(rt.cudaDestroyExternalMemory(ext))
    assert rt.cudaDestroyExternalMemory(ext)[0] == E.cudaErrorInvalidResourceHandle
    os.close(fd)


def test_external_memory_bad_input():
    desc = rt.cudaExternalMemoryHandleDesc()
    desc.type = rt.cudaExternalMemoryHandleType.cudaExternalMemoryHandleTypeOpaqueWin32
    desc.size = 4096
    assert rt.cudaImportExternalMemory(desc)[0] == E.cudaErrorNotSupported
    desc.type, desc.handle.fd, desc.size = MEM_FD, -1, 4096
    assert rt.cudaImportExternalMemory(desc)[0] == E.cudaErrorInvalidValue
    fd = _memfd(b"\0" * 4096)
    desc.handle.fd, desc.size = fd, 0
    assert rt.cudaImportExternalMemory(desc)[0] == E.cudaErrorInvalidValue
    desc.size = 8192  # more than the file holds
    assert rt.cudaImportExternalMemory(desc)[0] == E.cudaErrorInvalidValue
    os.close(fd)
    for bad in (None, 3.5, "desc"):
        assert rt.cudaImportExternalMemory(bad)[0] == E.cudaErrorInvalidValue
    assert rt.cudaExternalMemoryGetMappedBuffer(12345, rt.cudaExternalMemoryBufferDesc())[0] == \
        E.cudaErrorInvalidResourceHandle


def _semaphore(kind, value=0):
    fd = _memfd(struct.pack("<Q", value))
    desc = rt.cudaExternalSemaphoreHandleDesc()
    desc.type = kind
    desc.handle.fd = os.dup(fd)
    return fd, check(rt.cudaImportExternalSemaphore(desc))


def _value(fd):
    return struct.unpack("<Q", os.pread(fd, 8, 0))[0]


def test_timeline_semaphore_orders_a_stream():
    n = 1000
    x = np.arange(n, dtype=np.float32)
    d = check(rt.cudaMalloc(n * 4))
    check(rt.cudaMemcpy(d, x, n * 4, rt.cudaMemcpyKind.cudaMemcpyHostToDevice))
    k = _kernel()
    fd, sem = _semaphore(TIMELINE, 3)
    s = check(rt.cudaStreamCreate())
    wait = rt.cudaExternalSemaphoreWaitParams()
    wait.params.fence.value = 5
    check(rt.cudaWaitExternalSemaphoresAsync([sem], [wait], 1, s))
    _double(k, d, n, s)
    time.sleep(0.2)
    assert rt.cudaStreamQuery(s)[0] == E.cudaErrorNotReady  # 3 < 5: the stream is held
    os.pwrite(fd, struct.pack("<Q", 5), 0)  # the "other API" signals through the file
    signal = rt.cudaExternalSemaphoreSignalParams()
    signal.params.fence.value = 9
    check(rt.cudaSignalExternalSemaphoresAsync([sem], [signal], 1, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(fd) == 9
    got = np.zeros(n, np.float32)
    check(rt.cudaMemcpy(got, d, n * 4, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    np.testing.assert_array_equal(got, 2 * x)
    # binary semaphores: a signal sets 1, a wait consumes it
    bfd, bsem = _semaphore(BINARY)
    check(rt.cudaSignalExternalSemaphoresAsync([bsem], [rt.cudaExternalSemaphoreSignalParams()], 1, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(bfd) == 1
    check(rt.cudaWaitExternalSemaphoresAsync([bsem], [rt.cudaExternalSemaphoreWaitParams()], 1, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(bfd) == 0
    # bad input
    assert rt.cudaSignalExternalSemaphoresAsync([12345], [signal], 1, s)[0] == E.cudaErrorInvalidResourceHandle
    assert rt.cudaSignalExternalSemaphoresAsync([sem], [wait], 1, s)[0] == E.cudaErrorInvalidValue
    assert rt.cudaSignalExternalSemaphoresAsync([sem], [], 1, s)[0] == E.cudaErrorInvalidValue
    desc = rt.cudaExternalSemaphoreHandleDesc()
    desc.type = rt.cudaExternalSemaphoreHandleType.cudaExternalSemaphoreHandleTypeD3D12Fence
    assert rt.cudaImportExternalSemaphore(desc)[0] == E.cudaErrorNotSupported
    empty = os.memfd_create("empty")
    desc.type, desc.handle.fd = TIMELINE, empty
    assert rt.cudaImportExternalSemaphore(desc)[0] == E.cudaErrorInvalidValue  # no room for the value
    os.close(empty)
    for h in (sem, bsem):
        check(rt.cudaDestroyExternalSemaphore(h))
    assert rt.cudaDestroyExternalSemaphore(sem)[0] == E.cudaErrorInvalidResourceHandle
    os.close(fd), os.close(bfd)
    check(rt.cudaStreamDestroy(s))
    check(rt.cudaFree(d))


def test_semaphore_graph_nodes():
    fd, sem = _semaphore(TIMELINE, 0)
    g = check(rt.cudaGraphCreate(0))
    p = rt.cudaExternalSemaphoreSignalParams()
    p.params.fence.value = 42
    params = rt.cudaExternalSemaphoreSignalNodeParams()
    params.extSemArray, params.paramsArray, params.numExtSems = [sem], [p], 1
    sig = check(rt.cudaGraphAddExternalSemaphoresSignalNode(g, None, 0, params))
    wp = rt.cudaExternalSemaphoreWaitParams()
    wp.params.fence.value = 42
    wparams = rt.cudaExternalSemaphoreWaitNodeParams()
    wparams.extSemArray, wparams.paramsArray, wparams.numExtSems = [sem], [wp], 1
    wait = check(rt.cudaGraphAddExternalSemaphoresWaitNode(g, [sig], 1, wparams))
    assert check(rt.cudaGraphNodeGetType(wait)) == rt.cudaGraphNodeType.cudaGraphNodeTypeExtSemaphoreWait
    got = check(rt.cudaGraphExternalSemaphoresSignalNodeGetParams(sig))
    assert got.numExtSems == 1 and int(got.extSemArray[0]) == int(sem)
    assert got.paramsArray[0].params.fence.value == 42
    assert rt.cudaGraphExternalSemaphoresWaitNodeGetParams(sig)[0] == E.cudaErrorInvalidValue  # wrong kind
    exe = check(rt.cudaGraphInstantiate(g, 0))
    s = check(rt.cudaStreamCreate())
    check(rt.cudaGraphLaunch(exe, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(fd) == 42
    p.params.fence.value = 50
    check(rt.cudaGraphExecExternalSemaphoresSignalNodeSetParams(exe, sig, params))
    wp.params.fence.value = 50
    check(rt.cudaGraphExecExternalSemaphoresWaitNodeSetParams(exe, wait, wparams))
    check(rt.cudaGraphLaunch(exe, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(fd) == 50
    p.params.fence.value = 60
    check(rt.cudaGraphExternalSemaphoresSignalNodeSetParams(sig, params))
    assert check(rt.cudaGraphExternalSemaphoresSignalNodeGetParams(sig)).paramsArray[0].params.fence.value == 60
    check(rt.cudaGraphExternalSemaphoresWaitNodeSetParams(wait, wparams))
    # captured: a signal on a capturing stream becomes a node
    check(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    p.params.fence.value = 77
    check(rt.cudaSignalExternalSemaphoresAsync([sem], [p], 1, s))
    cg = check(rt.cudaStreamEndCapture(s))
    assert _value(fd) == 50  # not run yet
    cexe = check(rt.cudaGraphInstantiate(cg, 0))
    check(rt.cudaGraphLaunch(cexe, s))
    check(rt.cudaStreamSynchronize(s))
    assert _value(fd) == 77
    for e in (exe, cexe):
        check(rt.cudaGraphExecDestroy(e))
    check(rt.cudaGraphDestroy(g)), check(rt.cudaGraphDestroy(cg))
    check(rt.cudaDestroyExternalSemaphore(sem))
    check(rt.cudaStreamDestroy(s))
    os.close(fd)


def test_layouts_match_cuda_bindings():
    real = pytest.importorskip("cuda.bindings.runtime")
    for name in ("cudaExternalMemoryHandleDesc", "cudaExternalMemoryBufferDesc", "cudaExternalSemaphoreHandleDesc",
                 "cudaExternalSemaphoreSignalParams", "cudaExternalSemaphoreWaitParams"):
        theirs = {a for a in dir(getattr(real, name)()) if not a.startswith("_") and a != "getPtr"}
        assert theirs <= set(dir(getattr(rt, name)())), name
        assert rt.sizeof(getattr(rt, name)) == real.sizeof(getattr(real, name)), name
