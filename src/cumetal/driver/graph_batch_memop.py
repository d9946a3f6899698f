"""Batch memory-operation graph nodes (``cuGraphAddBatchMemOpNode`` and its parameter calls).

The node runs ``cuStreamBatchMemOp``'s operations (waits, writes, flushes, barriers: checked when
the parameters are given) in stream order when the graph runs. The shared graph implementation
(``cumetal.runtime.graphs``, which has no such node type in the Runtime API) holds it as a host
node; the driver remembers which nodes are batch nodes, so ``cuGraphNodeGetType`` reports
``CU_GRAPH_NODE_TYPE_BATCH_MEM_OP`` and the batch calls refuse other nodes. A clone of the graph
(``cuGraphClone``) sees its copies as host nodes.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.enums import CUresult
from cumetal.driver.enums_more import CUgraphNodeType
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles_more import _Struct
from cumetal.driver.state import STATE

R = CUresult
T = CUgraphNodeType
BATCH_NODES: dict[int, Any] = {}  # node handle -> the CUDA_BATCH_MEM_OP_NODE_PARAMS it was given


class CUDA_BATCH_MEM_OP_NODE_PARAMS(_Struct):  # noqa: N801
    _fields = {"ctx": 0, "count": 0, "paramArray": None, "flags": 0}


def _host_params(nodeParams: Any) -> tuple:  # noqa: N803
    from cumetal.driver.streams_more import batch_ops

    if nodeParams is None or not hasattr(nodeParams, "paramArray"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "nodeParams must be a CUDA_BATCH_MEM_OP_NODE_PARAMS")
    if int(nodeParams.ctx or 0):
        STATE.context(nodeParams.ctx)
    ops = batch_ops(nodeParams.count, nodeParams.paramArray, nodeParams.flags)
    if not ops:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive")

    def run(_data: Any) -> None:
        for op in ops:
            op()

    return (run, None)


def _batch_node(hNode: Any) -> int:  # noqa: N803
    h = int(hNode) if hNode is not None else 0
    if h not in BATCH_NODES:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"node 0x{h:x} is not a batch memory-operation node")
    return h


@api(1)
def cuGraphAddBatchMemOpNode(hGraph: Any, dependencies: Any, numDependencies: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.graphs import _add

    STATE.require_init()
    node = _add(hGraph, dependencies, numDependencies, T.CU_GRAPH_NODE_TYPE_HOST, _host_params(nodeParams))
    BATCH_NODES[int(node)] = nodeParams
    return (node,)


@api(1)
def cuGraphBatchMemOpNodeGetParams(hNode: Any) -> tuple:  # noqa: N802, N803
    STATE.require_init()
    return (BATCH_NODES[_batch_node(hNode)],)


@api(0)
def cuGraphBatchMemOpNodeSetParams(hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    from cumetal.driver.graph_nodes import _typed

    STATE.require_init()
    h = _batch_node(hNode)
    _typed(hNode, T.CU_GRAPH_NODE_TYPE_HOST).params = _host_params(nodeParams)
    BATCH_NODES[h] = nodeParams
    return ()


@api(0)
def cuGraphExecBatchMemOpNodeSetParams(hGraphExec: Any, hNode: Any, nodeParams: Any) -> tuple:  # noqa: N802, N803
    """Only the instantiated graph changes; the node keeps its own parameters."""
    from cumetal.driver.graph_nodes import _exec_step

    STATE.require_init()
    _batch_node(hNode)
    _exec_step(hGraphExec, hNode, T.CU_GRAPH_NODE_TYPE_HOST).params = _host_params(nodeParams)
    return ()
