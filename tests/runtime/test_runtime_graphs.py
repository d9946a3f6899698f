"""CUDA graphs: explicit construction, stream capture with fork/join, instantiation and launch."""

from __future__ import annotations

import ctypes

import numpy as np
from tests.runtime.conftest import D2H, H2D, check, download, kernel, upload

from cumetal import runtime as rt

E = rt.cudaError_t
T = rt.cudaGraphNodeType
P3 = (ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int)


def _kparams(func, n, a, b, c):
    p = rt.cudaKernelNodeParams()
    p.func = func
    p.gridDim = rt.dim3(x=(n + 255) // 256)
    p.blockDim = rt.dim3(x=256)
    p.kernelParams = ((a, b, c, n), P3)
    return p


def test_explicit_graph_runs_in_dependency_order_every_launch(lib):
    n = 1000
    x = np.random.default_rng(3).standard_normal(n).astype(np.float32)
    dx, dy = upload(np.zeros(n, np.float32)), check(rt.cudaMalloc(n * 4))
    out = np.zeros(n, np.float32)
    seen = []
    g = check(rt.cudaGraphCreate(0))
    ms = rt.cudaMemsetParams()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = dy, 0, 4, n, 1
    memset = check(rt.cudaGraphAddMemsetNode(g, None, 0, ms))
    up = check(rt.cudaGraphAddMemcpyNode1D(g, None, 0, dx, x, n * 4, H2D))
    f = kernel(lib, "vector_add")
    k1 = check(rt.cudaGraphAddKernelNode(g, [memset, up], 2, _kparams(f, n, dx, dx, dy)))  # y = 2x
    k2 = check(rt.cudaGraphAddKernelNode(g, [k1], 1, _kparams(f, n, dy, dx, dy)))  # y = 3x
    p3 = rt.cudaMemcpy3DParms()
    p3.srcPtr = rt.make_cudaPitchedPtr(dy, n * 4, n, 1)
    p3.dstPtr = rt.make_cudaPitchedPtr(out.ctypes.data, n * 4, n, 1)
    p3.extent = rt.make_cudaExtent(n * 4, 1, 1)
    p3.kind = D2H
    down = check(rt.cudaGraphAddMemcpyNode(g, [k2], 1, p3))
    hp = rt.cudaHostNodeParams()
    hp.fn, hp.userData = seen.append, "done"
    check(rt.cudaGraphAddHostNode(g, [down], 1, hp))
    assert check(rt.cudaGraphGetNodes(g)) == ([], 6)
    assert len(check(rt.cudaGraphGetRootNodes(g, 6))[0]) == 2
    assert check(rt.cudaGraphNodeGetType(k2)) == T.cudaGraphNodeTypeKernel
    assert check(rt.cudaGraphNodeGetDependencies(k1, 5))[1] == 2
    ex = check(rt.cudaGraphInstantiate(g, 0))
    clone_ex = check(rt.cudaGraphInstantiate(check(rt.cudaGraphClone(g)), 0))
    s = check(rt.cudaStreamCreate())
    for graph_exec in (ex, clone_ex, ex):
        out[:] = 0
        check(rt.cudaGraphLaunch(graph_exec, s))
        check(rt.cudaStreamSynchronize(s))
        np.testing.assert_allclose(out, 3 * x, rtol=1e-6)
    assert seen == ["done"] * 3
    # new kernel arguments for one node of the executable graph: y = 2x then y = y + y = 4x
    check(rt.cudaGraphExecKernelNodeSetParams(ex, k2, _kparams(f, n, dy, dy, dy)))
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    np.testing.assert_allclose(out, 4 * x, rtol=1e-6)
    check(rt.cudaGraphExecDestroy(ex))
    assert rt.cudaGraphLaunch(ex, s) == (E.cudaErrorInvalidValue,)
    check(rt.cudaGraphDestroy(g))


def test_child_graphs_and_cycles(lib):
    d = check(rt.cudaMalloc(16))
    child = check(rt.cudaGraphCreate(0))
    ms = rt.cudaMemsetParams()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = d, 0x01020304, 4, 4, 1
    check(rt.cudaGraphAddMemsetNode(child, None, 0, ms))
    parent = check(rt.cudaGraphCreate(0))
    a = check(rt.cudaGraphAddEmptyNode(parent, None, 0))
    c = check(rt.cudaGraphAddChildGraphNode(parent, [a], 1, child))
    assert rt.cudaGraphAddDependencies(parent, [c], [a], None, 1) == (E.cudaErrorInvalidValue,)  # a cycle
    check(rt.cudaGraphLaunch(check(rt.cudaGraphInstantiate(parent, 0)), 0))
    check(rt.cudaDeviceSynchronize())
    assert (download(d, np.zeros(4, np.uint32)) == 0x01020304).all()
    bad = rt.cudaMemsetParams()
    bad.dst, bad.elementSize, bad.width = d, 3, 1
    assert rt.cudaGraphAddMemsetNode(parent, None, 0, bad)[0] == E.cudaErrorInvalidValue
    f = kernel(lib, "vector_add")
    p = _kparams(f, 4, d, d, d)
    p.blockDim = rt.dim3(x=4096)
    assert rt.cudaGraphAddKernelNode(parent, None, 0, p)[0] == E.cudaErrorInvalidConfiguration


def test_stream_capture_with_fork_and_join(lib):
    """The shape of NVIDIA's simpleCudaGraphs capture: fork to two streams through an event, join back."""
    n = 512
    x = np.arange(n, dtype=np.float32)
    dx, dy = check(rt.cudaMalloc(n * 4)), check(rt.cudaMalloc(n * 4))
    out = np.zeros(n, np.float32)
    s1, s2, s3 = (check(rt.cudaStreamCreate()) for _ in range(3))
    fork, e2, e3 = (check(rt.cudaEventCreate()) for _ in range(3))
    f = kernel(lib, "vector_add")
    check(rt.cudaStreamBeginCapture(s1, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    assert check(rt.cudaStreamIsCapturing(s1)) == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive
    check(rt.cudaEventRecord(fork, s1))
    check(rt.cudaStreamWaitEvent(s2, fork, 0))
    check(rt.cudaStreamWaitEvent(s3, fork, 0))
    check(rt.cudaMemcpyAsync(dx, x, n * 4, H2D, s2))
    check(rt.cudaEventRecord(e2, s2))
    check(rt.cudaMemsetAsync(dy, 0, n * 4, s3))
    check(rt.cudaEventRecord(e3, s3))
    check(rt.cudaStreamWaitEvent(s1, e2, 0))
    check(rt.cudaStreamWaitEvent(s1, e3, 0))
    check(rt.cudaLaunchKernel(f, (2,), (256,), ((dx, dx, dy, n), P3), 0, s1))
    check(rt.cudaMemcpyAsync(out, dy, n * 4, D2H, s1))
    assert rt.cudaStreamSynchronize(s1) == (E.cudaErrorStreamCaptureUnsupported,)
    graph = check(rt.cudaStreamEndCapture(s1))
    assert check(rt.cudaStreamIsCapturing(s2)) == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone
    assert check(rt.cudaGraphGetNodes(graph))[1] == 4  # memcpy, memset, kernel, memcpy
    assert (out == 0).all()  # nothing ran during the capture
    ex = check(rt.cudaGraphInstantiate(graph, 0))
    for _ in range(2):
        out[:] = 0
        check(rt.cudaGraphLaunch(ex, s3))
        check(rt.cudaStreamSynchronize(s3))
        np.testing.assert_array_equal(out, 2 * x)
    assert rt.cudaStreamEndCapture(s1)[0] == E.cudaErrorIllegalState
    assert rt.cudaStreamBeginCapture(0, 0) == (E.cudaErrorStreamCaptureUnsupported,)


def test_driver_launches_are_captured_and_kernel_nodes_added(lib):
    """cuda-python programs mix the APIs: cuLaunchKernel into a capture, cuGraphAddKernelNode."""
    from cumetal import driver as cu

    n = 64
    d = upload(np.ones(n, np.float32))
    f = kernel(lib, "vector_add")
    fn = check(rt.cudaGetFuncBySymbol(f))  # the driver CUfunction of the kernel
    s = check(rt.cudaStreamCreate())
    check(rt.cudaStreamBeginCapture(s, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    assert cu.cuLaunchKernel(fn, 1, 1, 1, n, 1, 1, 0, s, ((d, d, d, n), P3), 0) == (cu.CUresult.CUDA_SUCCESS,)
    graph = check(rt.cudaStreamEndCapture(s))
    assert (download(d, np.zeros(n, np.float32)) == 1).all()  # captured, not run
    p = cu.CUDA_KERNEL_NODE_PARAMS()
    p.func = fn
    p.blockDimX = n
    p.kernelParams = ((d, d, d, n), P3)
    last = check(rt.cudaGraphGetRootNodes(graph, 1))[0]
    err, node = cu.cuGraphAddKernelNode(graph, last, 1, p)
    assert err == cu.CUresult.CUDA_SUCCESS and check(rt.cudaGraphNodeGetType(node)) == T.cudaGraphNodeTypeKernel
    check(rt.cudaGraphLaunch(check(rt.cudaGraphInstantiate(graph, 0)), s))
    check(rt.cudaStreamSynchronize(s))
    assert (download(d, np.zeros(n, np.float32)) == 4).all()  # doubled twice
    p.kernelParams = ((d, d, n), P3[:2] + (ctypes.c_int,))
    assert cu.cuGraphAddKernelNode(graph, None, 0, p)[0] == cu.CUresult.CUDA_ERROR_INVALID_VALUE


def test_node_parameters_updates_and_enable(lib, tmp_path):
    d = check(rt.cudaMalloc(64))
    g = check(rt.cudaGraphCreate(0))
    ms = rt.cudaMemsetParams()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = d, 7, 1, 64, 1
    fill = check(rt.cudaGraphAddMemsetNode(g, None, 0, ms))
    got = check(rt.cudaGraphMemsetNodeGetParams(fill))
    assert (got.dst, got.value, got.elementSize, got.width) == (d, 7, 1, 64)
    out = np.zeros(64, np.uint8)
    cp = check(rt.cudaGraphAddMemcpyNode1D(g, [fill], 1, out, d, 64, D2H))
    assert check(rt.cudaGraphMemcpyNodeGetParams(cp)).extent.width == 64
    seen = []
    hp = rt.cudaHostNodeParams()
    hp.fn, hp.userData = seen.append, 1
    host = check(rt.cudaGraphAddHostNode(g, [cp], 1, hp))
    assert check(rt.cudaGraphHostNodeGetParams(host)).userData == 1
    frm, to, _data, count = check(rt.cudaGraphGetEdges(g, 8))
    assert count == 2 and [int(x) for x in to] == [int(cp), int(host)] and [int(x) for x in frm] == [int(fill), int(cp)]
    assert check(rt.cudaGraphGetEdges(g))[3] == 2
    assert check(rt.cudaGraphNodeGetContainingGraph(host)) == g
    assert check(rt.cudaGraphNodeGetLocalId(host)) == 2
    clone = check(rt.cudaGraphClone(g))
    twin = check(rt.cudaGraphNodeFindInClone(cp, clone))
    assert check(rt.cudaGraphNodeGetType(twin)) == T.cudaGraphNodeTypeMemcpy and twin != cp
    ex = check(rt.cudaGraphInstantiate(g, 0))
    s = check(rt.cudaStreamCreate())
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 7).all() and seen == [1]
    # update the instantiated graph: another fill value, another host argument; then disable the fill
    ms.value = 9
    check(rt.cudaGraphExecMemsetNodeSetParams(ex, fill, ms))
    hp.userData = 2
    check(rt.cudaGraphExecHostNodeSetParams(ex, host, hp))
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 9).all() and seen == [1, 2]
    check(rt.cudaMemset(d, 3, 64))
    check(rt.cudaGraphNodeSetEnabled(ex, fill, 0))
    assert check(rt.cudaGraphNodeGetEnabled(ex, fill)) == 0
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 3).all()  # the fill was skipped
    assert rt.cudaGraphNodeSetEnabled(ex, host, 0) == (E.cudaErrorInvalidValue,)  # host nodes cannot be disabled
    assert rt.cudaGraphExecMemsetNodeSetParams(ex, cp, ms) == (E.cudaErrorInvalidValue,)
    check(rt.cudaGraphRemoveDependencies(g, [cp], [host], None, 1))
    assert check(rt.cudaGraphNodeGetDependencies(host))[1] == 0
    dot = tmp_path / "g.dot"
    check(rt.cudaGraphDebugDotPrint(g, str(dot), 0))
    text = dot.read_text()
    assert text.startswith("digraph") and "MEMSET" in text and text.count("->") == 1  # NVIDIA's layout


def test_capture_info_dependencies_capture_to_graph_and_exec_update(lib):
    n = 32
    d = check(rt.cudaMalloc(n * 4))
    out = np.zeros(n, np.uint32)
    s = check(rt.cudaStreamCreate())
    assert check(rt.cudaStreamGetCaptureInfo(s))[0] == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusNone
    g = check(rt.cudaGraphCreate(0))
    root = check(rt.cudaGraphAddEmptyNode(g, None, 0))
    check(rt.cudaStreamBeginCaptureToGraph(s, g, [root], None, 1, rt.cudaStreamCaptureMode.cudaStreamCaptureModeGlobal))
    status, ident, graph, deps, _data, ndeps = check(rt.cudaStreamGetCaptureInfo(s))
    assert status == rt.cudaStreamCaptureStatus.cudaStreamCaptureStatusActive and graph == g
    assert ident and ndeps == 1 and int(deps[0]) == int(root)
    check(rt.cudaMemsetAsync(d, 5, n * 4, s))
    fill = check(rt.cudaStreamGetCaptureInfo(s))[3][0]
    check(rt.cudaStreamUpdateCaptureDependencies(s, [root], None, 1, rt.cudaStreamUpdateCaptureDependenciesFlags.cudaStreamSetCaptureDependencies))
    check(rt.cudaMemcpyAsync(out, d, n * 4, D2H, s))  # depends on the root only now
    assert check(rt.cudaStreamEndCapture(s)) == g
    copy = check(rt.cudaGraphNodeGetDependentNodes(root, 4))[0]
    assert len(copy) == 2 and int(fill) in [int(x) for x in copy]
    check(rt.cudaGraphAddDependencies(g, [fill], [copy[1]], None, 1))  # order the copy after the fill again
    ex = check(rt.cudaGraphInstantiate(g, 0))
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 0x05050505).all()
    # the same topology with another fill value updates the executable graph in place
    g2 = check(rt.cudaGraphClone(g))
    ms = rt.cudaMemsetParams()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height = d, 6, 1, n * 4, 1
    check(rt.cudaGraphMemsetNodeSetParams(check(rt.cudaGraphNodeFindInClone(fill, g2)), ms))
    info = check(rt.cudaGraphExecUpdate(ex, g2))
    assert info.result == rt.cudaGraphExecUpdateResult.cudaGraphExecUpdateSuccess
    check(rt.cudaGraphLaunch(ex, s))
    check(rt.cudaStreamSynchronize(s))
    assert (out == 0x06060606).all()
    check(rt.cudaGraphAddEmptyNode(g2, None, 0))  # another topology: refused, nothing changes
    assert rt.cudaGraphExecUpdate(ex, g2)[0] == E.cudaErrorGraphExecUpdateFailure


def test_peer_3d_copy_and_batch_copies():
    src = upload(np.arange(64, dtype=np.uint8))
    dst = check(rt.cudaMalloc(64))
    p = rt.cudaMemcpy3DPeerParms()
    p.srcPtr = rt.make_cudaPitchedPtr(src, 16, 16, 4)
    p.dstPtr = rt.make_cudaPitchedPtr(dst, 16, 16, 4)
    p.extent = rt.make_cudaExtent(16, 4, 1)
    check(rt.cudaMemcpy3DPeer(p))
    np.testing.assert_array_equal(download(dst, np.zeros(64, np.uint8)), np.arange(64))
    p.dstDevice = 1
    assert rt.cudaMemcpy3DPeerAsync(p, 0) == (E.cudaErrorInvalidDevice,)
    s = check(rt.cudaStreamCreate())
    outs = [np.zeros(8, np.uint8) for _ in range(3)]
    check(rt.cudaMemcpyBatchAsync(outs, [src, src + 8, src + 16], [8, 8, 8], 3, None, None, 0, s))
    check(rt.cudaStreamSynchronize(s))
    assert [o.tolist() for o in outs] == [list(range(0, 8)), list(range(8, 16)), list(range(16, 24))]
    assert rt.cudaMemcpyBatchAsync(outs, [src], [8], 3, None, None, 0, s) == (E.cudaErrorInvalidValue,)


def test_node_parameters_given_as_c_struct_addresses():
    """What libcumetal passes: the addresses of the caller's C structs."""
    d = check(rt.cudaMalloc(16))
    g = check(rt.cudaGraphCreate(0))
    ms = rt.cudaMemsetParams._C(dst=d, pitch=0, value=0xAB, elementSize=1, width=16, height=1)
    fill = check(rt.cudaGraphAddMemsetNode(g, None, 0, ctypes.addressof(ms)))
    hit = ctypes.c_int(0)

    @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    def bump(data):
        ctypes.c_int.from_address(data).value += 1

    hp = rt.cudaHostNodeParams._C(fn=ctypes.cast(bump, ctypes.c_void_p).value, userData=ctypes.addressof(hit))
    check(rt.cudaGraphAddHostNode(g, [fill], 1, ctypes.addressof(hp)))
    out = np.zeros(16, np.uint8)
    p3 = rt.cudaMemcpy3DParms()
    p3.srcPtr = rt.make_cudaPitchedPtr(d, 16, 16, 1)
    p3.dstPtr = rt.make_cudaPitchedPtr(out.ctypes.data, 16, 16, 1)
    p3.extent = rt.make_cudaExtent(16, 1, 1)
    p3.kind = D2H
    check(rt.cudaGraphAddMemcpyNode(g, [fill], 1, p3.getPtr()))
    check(rt.cudaGraphLaunch(check(rt.cudaGraphInstantiate(g, 0)), 0))
    check(rt.cudaDeviceSynchronize())
    assert (out == 0xAB).all() and hit.value == 1
