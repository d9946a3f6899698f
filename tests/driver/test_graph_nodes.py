"""Driver-API graph node queries and updates (get/set parameters, instantiated-graph updates,
enabling, edges, clones, ids, DOT, capture into an existing graph), checked by replaying the graphs
and reading the memory they write."""

from __future__ import annotations

import numpy as np
from tests.driver.conftest import check

from cumetal import driver as cu

R = cu.CUresult
N = 64


def _memset(dst: int, value: int) -> cu.CUDA_MEMSET_NODE_PARAMS:
    p = cu.CUDA_MEMSET_NODE_PARAMS()
    p.dst, p.value, p.elementSize, p.width, p.height = dst, value, 4, N, 1
    return p


def _to_host(src: int, out: np.ndarray) -> cu.CUDA_MEMCPY3D:
    p = cu.CUDA_MEMCPY3D()
    p.srcMemoryType, p.srcDevice = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE, src
    p.dstMemoryType, p.dstHost = cu.CUmemorytype.CU_MEMORYTYPE_HOST, out
    p.WidthInBytes, p.Height, p.Depth = out.nbytes, 1, 1
    return p


def _replay(exe, stream) -> None:
    check(cu.cuGraphLaunch(exe, stream))
    check(cu.cuStreamSynchronize(stream))


def test_node_parameters_read_back_change_and_replay(ctx):
    stream = check(cu.cuStreamCreate(0))
    d = check(cu.cuMemAlloc(4 * N))
    out = np.zeros(N, np.uint32)
    graph = check(cu.cuGraphCreate(0))
    fill = check(cu.cuGraphAddMemsetNode(graph, None, 0, _memset(d, 7), ctx))
    copy = check(cu.cuGraphAddMemcpyNode(graph, [fill], 1, _to_host(d, out), ctx))
    seen: list[str] = []
    host = cu.CUDA_HOST_NODE_PARAMS()
    host.fn, host.userData = lambda data: seen.append(data), "first"
    hnode = check(cu.cuGraphAddHostNode(graph, [copy], 1, host))

    got = check(cu.cuGraphMemsetNodeGetParams(fill))
    assert (int(got.dst), got.value, got.elementSize, got.width, got.height) == (int(d), 7, 4, N, 1)
    cp = check(cu.cuGraphMemcpyNodeGetParams(copy))
    assert cp.WidthInBytes == 4 * N and int(cp.srcDevice) == int(d) and int(cp.dstDevice) == out.ctypes.data
    assert check(cu.cuGraphHostNodeGetParams(hnode)).userData == "first"

    check(cu.cuGraphMemsetNodeSetParams(fill, _memset(d, 9)))
    exe = check(cu.cuGraphInstantiate(graph, 0))
    _replay(exe, stream)
    assert (out == 9).all() and seen == ["first"]

    # an instantiated graph takes new parameters without touching the graph it came from
    check(cu.cuGraphExecMemsetNodeSetParams(exe, fill, _memset(d, 11), ctx))
    other = np.zeros(N, np.uint32)
    check(cu.cuGraphExecMemcpyNodeSetParams(exe, copy, _to_host(d, other), ctx))
    host2 = cu.CUDA_HOST_NODE_PARAMS()
    host2.fn, host2.userData = lambda data: seen.append(data), "second"
    check(cu.cuGraphExecHostNodeSetParams(exe, hnode, host2))
    _replay(exe, stream)
    assert (other == 11).all() and (out == 9).all() and seen == ["first", "second"]
    assert check(cu.cuGraphMemsetNodeGetParams(fill)).value == 9

    # a disabled memset node is skipped
    check(cu.cuGraphNodeSetEnabled(exe, fill, 0))
    assert check(cu.cuGraphNodeGetEnabled(exe, fill)) == 0
    check(cu.cuMemsetD32(d, 5, N))
    _replay(exe, stream)
    assert (other == 5).all()

    # wrong node kinds are CUDA_ERROR_INVALID_VALUE
    assert cu.cuGraphMemsetNodeGetParams(copy)[0] == R.CUDA_ERROR_INVALID_VALUE
    assert cu.cuGraphHostNodeSetParams(fill, host2)[0] == R.CUDA_ERROR_INVALID_VALUE
    check(cu.cuGraphExecDestroy(exe))
    check(cu.cuGraphDestroy(graph))
    check(cu.cuMemFree(d))


def test_event_nodes_child_graphs_edges_clones_and_ids(ctx, tmp_path):
    graph = check(cu.cuGraphCreate(0))
    ev1, ev2 = check(cu.cuEventCreate(0)), check(cu.cuEventCreate(0))
    rec = check(cu.cuGraphAddEventRecordNode(graph, None, 0, ev1))
    wait = check(cu.cuGraphAddEventWaitNode(graph, [rec], 1, ev1))
    assert int(check(cu.cuGraphEventRecordNodeGetEvent(rec))) == int(ev1)
    check(cu.cuGraphEventRecordNodeSetEvent(rec, ev2))
    check(cu.cuGraphEventWaitNodeSetEvent(wait, ev2))
    assert int(check(cu.cuGraphEventWaitNodeGetEvent(wait))) == int(ev2)

    child = check(cu.cuGraphCreate(0))
    check(cu.cuGraphAddEmptyNode(child, None, 0))
    cnode = check(cu.cuGraphAddChildGraphNode(graph, [wait], 1, child))
    inner = check(cu.cuGraphChildGraphNodeGetGraph(cnode))
    assert check(cu.cuGraphGetNodes(inner)) == ([], 1)

    src, dst, _data, n = check(cu.cuGraphGetEdges(graph, 8))
    assert n == 2 and {(int(a), int(b)) for a, b in zip(src, dst, strict=True)} == {
        (int(rec), int(wait)), (int(wait), int(cnode))}
    assert check(cu.cuGraphGetEdges(graph))[3] == 2
    check(cu.cuGraphRemoveDependencies(graph, [wait], [cnode], None, 1))
    assert check(cu.cuGraphGetEdges(graph))[3] == 1
    assert cu.cuGraphRemoveDependencies(graph, [wait], [cnode], None, 1)[0] == R.CUDA_ERROR_INVALID_VALUE

    clone = check(cu.cuGraphClone(graph))
    twin = check(cu.cuGraphNodeFindInClone(wait, clone))
    assert int(twin) != int(wait)
    assert int(check(cu.cuGraphNodeGetContainingGraph(twin))) == int(clone)
    assert check(cu.cuGraphNodeGetLocalId(wait)) == 1
    assert check(cu.cuGraphGetId(graph)) != check(cu.cuGraphGetId(clone))

    exe = check(cu.cuGraphInstantiate(graph, 0))
    assert check(cu.cuGraphExecGetFlags(exe)) == 0
    assert isinstance(check(cu.cuGraphExecGetId(exe)), int)
    dot = tmp_path / "g.dot"
    check(cu.cuGraphDebugDotPrint(graph, str(dot).encode(), 0))
    text = dot.read_text()
    assert text.startswith("digraph") and text.count("->") == 1 and text.count('"];') >= 3  # NVIDIA's layout
    check(cu.cuGraphExecDestroy(exe))


def test_capture_into_an_existing_graph(ctx):
    stream = check(cu.cuStreamCreate(0))
    d = check(cu.cuMemAlloc(4 * N))
    graph = check(cu.cuGraphCreate(0))
    first = check(cu.cuGraphAddMemsetNode(graph, None, 0, _memset(d, 3), ctx))
    check(cu.cuStreamBeginCaptureToGraph(stream, graph, [first], None, 1,
                                         cu.CUstreamCaptureMode.CU_STREAM_CAPTURE_MODE_GLOBAL))
    seen: list[int] = []
    check(cu.cuLaunchHostFunc(stream, lambda _: seen.append(int(np.ctypeslib.as_array(
        (np.ctypeslib.ctypes.c_uint32 * N).from_address(int(d)))[0])), None))
    check(cu.cuStreamUpdateCaptureDependencies(stream, [first], None, 1, 1))  # set: the next node follows `first`
    captured = check(cu.cuStreamEndCapture(stream))
    assert int(captured) == int(graph)
    assert check(cu.cuGraphGetNodes(graph)) == ([], 2)
    src, dst, _data, n = check(cu.cuGraphGetEdges(graph, 4))
    assert n == 1 and int(src[0]) == int(first)
    exe = check(cu.cuGraphInstantiate(graph, 0))
    _replay(exe, stream)
    assert seen == [3]
    check(cu.cuMemFree(d))


def test_memory_nodes_through_the_driver(ctx):
    stream = check(cu.cuStreamCreate(0))
    graph = check(cu.cuGraphCreate(0))
    p = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    p.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    p.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    p.bytesize = 4 * N
    alloc = check(cu.cuGraphAddMemAllocNode(graph, None, 0, p))
    assert int(p.dptr) != 0
    out = np.zeros(N, np.uint32)
    fill = check(cu.cuGraphAddMemsetNode(graph, [alloc], 1, _memset(p.dptr, 21), ctx))
    copy = check(cu.cuGraphAddMemcpyNode(graph, [fill], 1, _to_host(p.dptr, out), ctx))
    free = check(cu.cuGraphAddMemFreeNode(graph, [copy], 1, p.dptr))
    got = check(cu.cuGraphMemAllocNodeGetParams(alloc))
    assert (int(got.dptr), got.bytesize) == (int(p.dptr), 4 * N)
    assert int(check(cu.cuGraphMemFreeNodeGetParams(free))) == int(p.dptr)
    exe = check(cu.cuGraphInstantiate(graph, 0))
    for _ in range(2):  # freed inside the graph: every launch allocates again at the same address
        out[:] = 0
        _replay(exe, stream)
        assert (out == 21).all()
    A = cu.CUgraphMem_attribute
    assert int(check(cu.cuDeviceGetGraphMemAttribute(0, A.CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT))) == 4 * N
    assert int(check(cu.cuDeviceGetGraphMemAttribute(0, A.CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT))) == 0
    check(cu.cuDeviceSetGraphMemAttribute(0, A.CU_GRAPH_MEM_ATTR_USED_MEM_HIGH, 0))
    check(cu.cuDeviceGraphMemTrim(0))
    assert cu.cuGraphAddMemFreeNode(graph, None, 0, p.dptr)[0] == R.CUDA_ERROR_INVALID_VALUE  # freed twice
    check(cu.cuGraphExecDestroy(exe))
    check(cu.cuGraphDestroy(graph))
