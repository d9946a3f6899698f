"""Graph memory nodes (allocation/free nodes, and cudaMallocAsync/cudaFreeAsync captured into a
graph): fixed addresses across launches, the allocated/free life cycle CUDA defines, attributes."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.runtime.conftest import check

from cumetal import runtime as rt

E = rt.cudaError_t
N = 256


def _alloc_params(size: int) -> rt.cudaMemAllocNodeParams:
    p = rt.cudaMemAllocNodeParams()
    p.poolProps.allocType = rt.cudaMemAllocationType.cudaMemAllocationTypePinned
    p.poolProps.location.type = rt.cudaMemLocationType.cudaMemLocationTypeDevice
    p.poolProps.location.id = 0
    p.bytesize = size
    return p


def _memset(dst: int, value: int) -> rt.cudaMemsetParams:
    p = rt.cudaMemsetParams()
    p.dst, p.value, p.elementSize, p.width, p.height = dst, value, 4, N, 1
    return p


def _fill_and_copy_graph(with_free: bool, out: np.ndarray, value: int = 5):
    graph = check(rt.cudaGraphCreate(0))
    params = _alloc_params(4 * N)
    alloc = check(rt.cudaGraphAddMemAllocNode(graph, None, 0, params))
    dptr = params.dptr
    assert dptr != 0
    fill = check(rt.cudaGraphAddMemsetNode(graph, [alloc], 1, _memset(dptr, value)))
    copy = check(rt.cudaGraphAddMemcpyNode1D(graph, [fill], 1, out.ctypes.data, dptr, out.nbytes,
                                             rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    if with_free:
        check(rt.cudaGraphAddMemFreeNode(graph, [copy], 1, dptr))
    return graph, alloc, dptr


def test_allocation_freed_in_the_graph_is_reused_at_the_same_address():
    out = np.zeros(N, np.uint32)
    graph, alloc, dptr = _fill_and_copy_graph(True, out)
    got = check(rt.cudaGraphMemAllocNodeGetParams(alloc))
    assert (got.dptr, got.bytesize) == (dptr, 4 * N)
    exe = check(rt.cudaGraphInstantiate(graph, 0))
    stream = check(rt.cudaStreamCreate())
    for _ in range(3):  # the same fixed address every launch; no "still allocated" error
        out[:] = 0
        check(rt.cudaGraphLaunch(exe, stream))
        check(rt.cudaStreamSynchronize(stream))
        assert (out == 5).all()
    A = rt.cudaGraphMemAttributeType
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrUsedMemCurrent)) == 0
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrUsedMemHigh)) == 4 * N
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrReservedMemCurrent)) == 4 * N
    check(rt.cudaDeviceSetGraphMemAttribute(0, A.cudaGraphMemAttrUsedMemHigh, 0))
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrUsedMemHigh)) == 0
    assert rt.cudaDeviceSetGraphMemAttribute(0, A.cudaGraphMemAttrUsedMemCurrent, 0)[0] == E.cudaErrorInvalidValue
    check(rt.cudaGraphExecDestroy(exe))
    check(rt.cudaGraphDestroy(graph))
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrReservedMemCurrent)) == 0
    check(rt.cudaDeviceGraphMemTrim(0))


def test_allocation_outliving_the_graph_must_be_freed_before_the_next_launch():
    out = np.zeros(N, np.uint32)
    graph, _alloc, dptr = _fill_and_copy_graph(False, out, value=9)
    exe = check(rt.cudaGraphInstantiate(graph, 0))
    check(rt.cudaGraphLaunch(exe, 0))
    check(rt.cudaDeviceSynchronize())
    # still allocated after the launch: stream work may use it, then cudaFree releases it
    host = np.zeros(N, np.uint32)
    check(rt.cudaMemcpy(host.ctypes.data, dptr, host.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost))
    assert (host == 9).all()
    assert rt.cudaGraphLaunch(exe, 0)[0] == E.cudaErrorInvalidValue
    rt.cudaGetLastError()
    check(rt.cudaFree(dptr))
    assert rt.cudaFree(dptr)[0] == E.cudaErrorInvalidValue  # not allocated any more
    rt.cudaGetLastError()
    check(rt.cudaGraphLaunch(exe, 0))  # allocated again at the same address
    check(rt.cudaFreeAsync(dptr, 0))
    check(rt.cudaDeviceSynchronize())
    # AutoFreeOnLaunch: the next launch frees what the previous one left allocated
    auto = check(rt.cudaGraphInstantiateWithFlags(
        graph, rt.cudaGraphInstantiateFlags.cudaGraphInstantiateFlagAutoFreeOnLaunch))
    for _ in range(2):
        check(rt.cudaGraphLaunch(auto, 0))
    check(rt.cudaDeviceSynchronize())
    check(rt.cudaGraphDestroy(graph))
    check(rt.cudaFree(dptr))  # the graph is gone: this returns the memory to the device


def test_bad_memory_nodes_and_restrictions():
    graph = check(rt.cudaGraphCreate(0))
    bad = _alloc_params(64)
    bad.poolProps.allocType = rt.cudaMemAllocationType.cudaMemAllocationTypeManaged
    assert rt.cudaGraphAddMemAllocNode(graph, None, 0, bad)[0] == E.cudaErrorInvalidValue
    ordinary = check(rt.cudaMalloc(64))
    assert rt.cudaGraphAddMemFreeNode(graph, None, 0, ordinary)[0] == E.cudaErrorInvalidValue
    p = _alloc_params(64)
    check(rt.cudaGraphAddMemAllocNode(graph, None, 0, p))
    check(rt.cudaGraphAddMemFreeNode(graph, None, 0, p.dptr))
    assert rt.cudaGraphAddMemFreeNode(graph, None, 0, p.dptr)[0] == E.cudaErrorInvalidValue  # twice
    assert rt.cudaGraphClone(graph)[0] == E.cudaErrorNotSupported
    parent = check(rt.cudaGraphCreate(0))
    assert rt.cudaGraphAddChildGraphNode(parent, None, 0, graph)[0] == E.cudaErrorNotSupported
    rt.cudaGetLastError()
    check(rt.cudaFree(ordinary))


def test_malloc_and_free_async_in_a_capture_become_memory_nodes():
    stream = check(rt.cudaStreamCreate())
    out = np.zeros(N, np.uint32)
    check(rt.cudaStreamBeginCapture(stream, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    dptr = check(rt.cudaMallocAsync(4 * N, stream))
    check(rt.cudaMemsetAsync(dptr, 0x11, 4 * N, stream))
    check(rt.cudaMemcpyAsync(out.ctypes.data, dptr, out.nbytes, rt.cudaMemcpyKind.cudaMemcpyDeviceToHost, stream))
    check(rt.cudaFreeAsync(dptr, stream))
    graph = check(rt.cudaStreamEndCapture(stream))
    assert not out.any()  # nothing ran during capture
    nodes, count = check(rt.cudaGraphGetNodes(graph, 8))
    kinds = [check(rt.cudaGraphNodeGetType(n)) for n in nodes]
    T = rt.cudaGraphNodeType
    assert count == 4 and kinds[0] == T.cudaGraphNodeTypeMemAlloc and kinds[-1] == T.cudaGraphNodeTypeMemFree
    assert check(rt.cudaGraphMemFreeNodeGetParams(nodes[-1])) == dptr
    exe = check(rt.cudaGraphInstantiate(graph, 0))
    for _ in range(2):
        out[:] = 0
        check(rt.cudaGraphLaunch(exe, stream))
        check(rt.cudaStreamSynchronize(stream))
        assert (out == 0x11111111).all()


def test_c_struct_address_gets_the_allocation_address():
    graph = check(rt.cudaGraphCreate(0))
    c = rt.cudaMemAllocNodeParams._C()
    assert ctypes.sizeof(c) == 120 and ctypes.sizeof(rt.cudaMemPoolProps._C) == 88  # CUDA 13's layouts
    c.poolProps.allocType = int(rt.cudaMemAllocationType.cudaMemAllocationTypePinned)
    c.poolProps.location.type = int(rt.cudaMemLocationType.cudaMemLocationTypeDevice)
    c.bytesize = 128
    check(rt.cudaGraphAddMemAllocNode(graph, None, 0, ctypes.addressof(c)))
    assert c.dptr
    # as on CUDA, physical memory is reserved at the first launch, not when the node is made
    assert check(rt.cudaDeviceGetGraphMemAttribute(
        0, rt.cudaGraphMemAttributeType.cudaGraphMemAttrReservedMemCurrent)) == 0


def test_executable_graph_keeps_its_allocations_after_the_graph_is_destroyed():
    out = np.zeros(N, np.uint32)
    graph, _alloc, dptr = _fill_and_copy_graph(True, out, value=3)
    exe = check(rt.cudaGraphInstantiate(graph, 0))
    check(rt.cudaGraphDestroy(graph))  # NVIDIA's graphMemoryFootprint sample does this
    for _ in range(2):
        out[:] = 0
        check(rt.cudaGraphLaunch(exe, 0))
        check(rt.cudaDeviceSynchronize())
        assert (out == 3).all()
    A = rt.cudaGraphMemAttributeType
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrReservedMemCurrent)) == 4 * N
    check(rt.cudaGraphExecDestroy(exe))
    assert check(rt.cudaDeviceGetGraphMemAttribute(0, A.cudaGraphMemAttrReservedMemCurrent)) == 0
