"""cuGraphDebugDotPrint against NVIDIA's own output: the graph of scripts/make_graph_dot_goldens.py
(every node kind CuMetal records) printed under each CUgraphDebugDot_flags value must give the text
an H100's driver wrote, apart from addresses, handles, graph ids and topoId values."""

from __future__ import annotations

import ctypes
import json
import re
from pathlib import Path

import pytest
from tests.driver.conftest import check

from cumetal import driver as cu
from cumetal import runtime  # noqa: F401 - graphs come with the runtime

GOLDEN = json.loads((Path(__file__).parent / "data" / "graph_dot_h100.json").read_text())
PTX = (Path(__file__).resolve().parents[2] / "scripts" / "make_graph_dot_goldens.py").read_text()
PTX = PTX.split('PTX = b"""', 1)[1].split('"""', 1)[0].encode()


def _normalize(text: str) -> str:
    """Addresses, handles and topological ids vary by run; graph ids are renumbered by appearance."""
    text = re.sub(r"0x[0-9A-F]{16}", "0xADDR", text)
    text = re.sub(r"topoId: \d+", "topoId: N", text)
    ids: dict[str, str] = {}
    return re.sub(r"(graph|cluster)_(\d+)", lambda m: f"{m.group(1)}_G{ids.setdefault(m.group(2), str(len(ids)))}",
                  text)


@pytest.fixture
def dot_graph(ctx):
    keep: list = []
    graph = check(cu.cuGraphCreate(0))
    mod = check(cu.cuModuleLoadData(PTX))
    fn = check(cu.cuModuleGetFunction(mod, b"scale"))
    dptr = check(cu.cuMemAlloc(4096))
    host = (ctypes.c_float * 256)()
    ms = cu.CUDA_MEMSET_NODE_PARAMS()
    ms.dst, ms.value, ms.elementSize, ms.width, ms.height, ms.pitch = dptr, 0, 4, 256, 1, 0
    memset = check(cu.cuGraphAddMemsetNode(graph, None, 0, ms, ctx))
    cp = cu.CUDA_MEMCPY3D()
    cp.srcMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_HOST
    cp.srcHost = ctypes.addressof(host)
    cp.dstMemoryType = cu.CUmemorytype.CU_MEMORYTYPE_DEVICE
    cp.dstDevice = dptr
    cp.WidthInBytes, cp.Height, cp.Depth = 1024, 1, 1
    memcpy = check(cu.cuGraphAddMemcpyNode(graph, [memset], 1, cp, ctx))
    kp = cu.CUDA_KERNEL_NODE_PARAMS()
    kp.func = fn
    kp.gridDimX = kp.gridDimY = kp.gridDimZ = 1
    kp.blockDimX, kp.blockDimY, kp.blockDimZ = 256, 1, 1
    kp.sharedMemBytes = 0
    kp.kernelParams = ((dptr, 2.0, 256), (ctypes.c_void_p, ctypes.c_float, ctypes.c_uint))
    kernel = check(cu.cuGraphAddKernelNode(graph, [memcpy], 1, kp))
    cb = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda _p: None)
    hp = cu.CUDA_HOST_NODE_PARAMS()
    hp.fn, hp.userData = cb, 0
    check(cu.cuGraphAddHostNode(graph, [kernel], 1, hp))
    ev = check(cu.cuEventCreate(0))
    record = check(cu.cuGraphAddEventRecordNode(graph, [kernel], 1, ev))
    wait = check(cu.cuGraphAddEventWaitNode(graph, [record], 1, ev))
    child = check(cu.cuGraphCreate(0))
    check(cu.cuGraphAddEmptyNode(child, None, 0))
    child_node = check(cu.cuGraphAddChildGraphNode(graph, [kernel], 1, child))
    empty = check(cu.cuGraphAddEmptyNode(graph, [child_node, wait], 2))
    ap = cu.CUDA_MEM_ALLOC_NODE_PARAMS()
    ap.poolProps.allocType = cu.CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED
    ap.poolProps.location.type = cu.CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE
    ap.poolProps.location.id = 0
    ap.bytesize = 1 << 20
    alloc = check(cu.cuGraphAddMemAllocNode(graph, [empty], 1, ap))
    check(cu.cuGraphAddMemFreeNode(graph, [alloc], 1, ap.dptr))
    keep += [host, cb, mod]
    yield graph
    check(cu.cuGraphDestroy(graph))
    check(cu.cuGraphDestroy(child))
    check(cu.cuEventDestroy(ev))
    check(cu.cuMemFree(dptr))


_FLAGS = list(GOLDEN["dot"])  # each flag alone, none, and all together (RUNTIME_TYPES: the memcpy's runtime form)


@pytest.mark.parametrize("flags", _FLAGS)
def test_dot_text_is_nvidias_for_each_flag(dot_graph, tmp_path, flags: str) -> None:
    path = tmp_path / "g.dot"
    check(cu.cuGraphDebugDotPrint(dot_graph, str(path).encode(), int(flags)))
    assert _normalize(path.read_text()) == _normalize(GOLDEN["dot"][flags])


def test_topology_ids_are_topological(dot_graph, tmp_path) -> None:
    path = tmp_path / "g.dot"
    check(cu.cuGraphDebugDotPrint(dot_graph, str(path).encode(), 16384))
    text = path.read_text()
    topo = {int(i): int(t) for i, t in re.findall(r'label="(\d+) \(topoId: (\d+)\)', text)}
    for src, dst in re.findall(r'"graph_\d+_node_(\d+)" -> "graph_\d+_node_(\d+)"', text):
        assert topo[int(src)] < topo[int(dst)]


def test_dot_print_to_an_unwritable_path_is_an_error(dot_graph) -> None:
    err, = cu.cuGraphDebugDotPrint(dot_graph, b"/nonexistent-dir/g.dot", 0)
    assert err != cu.CUresult.CUDA_SUCCESS


def test_graph_types_have_cuda_pythons_names(ctx, tmp_path) -> None:
    """The generic node-parameter structures, edge data and CUhostFn under cuda-bindings' names: a host
    node built from them through cuGraphAddNode runs its C function, and a child-graph node shows in DOT."""
    nv = pytest.importorskip("cuda.bindings.driver")
    names = ["CUDA_CHILD_GRAPH_NODE_PARAMS", "CUDA_EVENT_RECORD_NODE_PARAMS", "CUDA_EVENT_WAIT_NODE_PARAMS",
             "CUDA_MEM_FREE_NODE_PARAMS", "CUDA_MEMCPY_NODE_PARAMS", "CUDA_CONDITIONAL_NODE_PARAMS",
             "CUDA_KERNEL_NODE_PARAMS_v3", "CUDA_HOST_NODE_PARAMS_v2", "CUDA_MEMSET_NODE_PARAMS_v2", "CUgraphEdgeData",
             "CUhostFn", "CUgraphNodeParams_st", "CUgraphEdgeData_st", "CUDA_CHILD_GRAPH_NODE_PARAMS_st"]
    for name in names:
        assert hasattr(nv, name) and isinstance(getattr(cu, name), type), name
    assert {"from_port", "to_port", "type"} <= set(vars(cu.CUgraphEdgeData()))
    hits = []
    cb = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(lambda p: hits.append(p))
    graph = check(cu.cuGraphCreate(0))
    params = cu.CUgraphNodeParams()
    params.type = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_HOST
    params.host.fn = cu.CUhostFn(ctypes.cast(cb, ctypes.c_void_p).value)
    params.host.userData = 7
    host = check(cu.cuGraphAddNode(graph, None, None, 0, params))
    child = check(cu.cuGraphCreate(0))
    params = cu.CUgraphNodeParams()
    params.type = cu.CUgraphNodeType.CU_GRAPH_NODE_TYPE_GRAPH
    params.graph.graph = child
    check(cu.cuGraphAddNode(graph, [host], [cu.CUgraphEdgeData()], 1, params))
    exe = check(cu.cuGraphInstantiate(graph, 0))
    check(cu.cuGraphLaunch(exe, None))
    check(cu.cuCtxSynchronize())
    assert hits == [7]
    dot = tmp_path / "g.dot"
    check(cu.cuGraphDebugDotPrint(graph, str(dot).encode(), 0))
    assert "HOST" in dot.read_text() and dot.read_text().count("subgraph cluster_") == 2
    for h in (exe,):
        check(cu.cuGraphExecDestroy(h))
    check(cu.cuGraphDestroy(graph))
    check(cu.cuGraphDestroy(child))
