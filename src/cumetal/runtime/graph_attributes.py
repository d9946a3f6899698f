"""Kernel-node launch attributes (``cudaGraphKernelNodeGet/SetAttribute``, ``CopyAttributes``) and
node tools ids.

A kernel node keeps the attributes set on it (cloned with its graph, copied by
``CopyAttributes``). As for streams (docs/runtime-api.md), the access-policy window, priority,
synchronisation policy, memory-sync domains and shared-memory carveout are stored and returned and
change nothing on CuMetal's devices. Attributes that would change how the node runs and that the
node launch does not implement are refused with ``cudaErrorNotSupported`` rather than ignored:
a cluster dimension other than 1×1×1, a device-updatable node, and a cooperative node whose grid has
more than one block (``cudaErrorCooperativeLaunchTooLarge``, as for ``cudaLaunchCooperativeKernel``).
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

from cumetal.runtime.device import enum_arg
from cumetal.runtime.enums import cudaError_t, cudaGraphNodeType, cudaLaunchAttributeID
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.graphs import _node
from cumetal.runtime.streams import cudaLaunchAttributeValue

E = cudaError_t
A = cudaLaunchAttributeID
cudaKernelNodeAttrValue = cudaLaunchAttributeValue  # noqa: N816 - cuda-python's alias

# attribute -> the value member it uses
_MEMBERS = {A.cudaLaunchAttributeAccessPolicyWindow: "accessPolicyWindow",
            A.cudaLaunchAttributeCooperative: "cooperative",
            A.cudaLaunchAttributeSynchronizationPolicy: "syncPolicy",
            A.cudaLaunchAttributeClusterDimension: "clusterDim",
            A.cudaLaunchAttributeClusterSchedulingPolicyPreference: "clusterSchedulingPolicyPreference",
            A.cudaLaunchAttributePriority: "priority",
            A.cudaLaunchAttributeMemSyncDomainMap: "memSyncDomainMap",
            A.cudaLaunchAttributeMemSyncDomain: "memSyncDomain",
            A.cudaLaunchAttributeDeviceUpdatableKernelNode: "deviceUpdatableKernelNode",
            A.cudaLaunchAttributePreferredSharedMemoryCarveout: "sharedMemCarveout"}
_attrs: dict[int, dict[A, Any]] = {}  # kernel node -> attributes set on it


def _kernel_node(node: Any) -> Any:
    n = _node(node)
    if n.kind != cudaGraphNodeType.cudaGraphNodeTypeKernel:
        raise RtError(E.cudaErrorInvalidValue, f"the node is a {n.kind.name}, not a kernel node")
    return n


def _attr(attr: Any) -> A:
    a = A(int(enum_arg(attr, A, "attr")))
    if a not in _MEMBERS:
        raise RtError(E.cudaErrorInvalidValue, f"{a.name} is not a kernel node attribute")
    return a


def _default(a: A) -> Any:
    value = cudaLaunchAttributeValue()
    if a == A.cudaLaunchAttributeClusterDimension:
        return SimpleNamespace(x=1, y=1, z=1)
    return copy.deepcopy(getattr(value, _MEMBERS[a], 0))


@rt_api(1)
def cudaGraphKernelNodeGetAttribute(hNode: Any, attr: Any) -> tuple:  # noqa: N802, N803
    n, a = _kernel_node(hNode), _attr(attr)
    value = cudaLaunchAttributeValue()
    member = _MEMBERS[a]
    setattr(value, member, copy.deepcopy(_attrs.get(n.handle, {}).get(a, _default(a))))
    return (value,)


@rt_api(0)
def cudaGraphKernelNodeSetAttribute(hNode: Any, attr: Any, value: Any) -> tuple:  # noqa: N802, N803
    n, a = _kernel_node(hNode), _attr(attr)
    member = _MEMBERS[a]
    if value is None or not hasattr(value, member):
        raise RtError(E.cudaErrorInvalidValue, f"value must be a cudaKernelNodeAttrValue with .{member}")
    v = getattr(value, member)
    if a == A.cudaLaunchAttributeClusterDimension:
        dims = tuple(int(getattr(v, c, 1) or 1) for c in "xyz")
        if dims != (1, 1, 1):
            raise RtError(E.cudaErrorNotSupported, "cluster dimensions on a graph kernel node are not supported "
                          "(launch the kernel with cudaLaunchKernelEx)")
        v = SimpleNamespace(x=1, y=1, z=1)
    elif a == A.cudaLaunchAttributeCooperative and int(v or 0):
        _fh, grid, _block, _shared, _packed = n.params
        if grid[0] * grid[1] * grid[2] > 1:
            raise RtError(E.cudaErrorCooperativeLaunchTooLarge, "a cooperative grid of more than one block cannot "
                          "be resident at once on CuMetal's devices")
    elif a == A.cudaLaunchAttributeDeviceUpdatableKernelNode and int(getattr(v, "deviceUpdatable", v) or 0):
        raise RtError(E.cudaErrorNotSupported, "device-updatable kernel nodes are not supported")
    _attrs.setdefault(n.handle, {})[a] = copy.deepcopy(v)
    return ()


@rt_api(0)
def cudaGraphKernelNodeCopyAttributes(hDst: Any, hSrc: Any) -> tuple:  # noqa: N802, N803
    dst, src = _kernel_node(hDst), _kernel_node(hSrc)
    _attrs[dst.handle] = copy.deepcopy(_attrs.get(src.handle, {}))
    return ()


def node_cloned(old: int, new: int) -> None:
    if old in _attrs:
        _attrs[new] = copy.deepcopy(_attrs[old])


@rt_api(1)
def cudaGraphNodeGetToolsId(hNode: Any) -> tuple:  # noqa: N802, N803
    """A process-unique id of the node (what profiling tools would see)."""
    return (_node(hNode).handle,)


def reset() -> None:
    _attrs.clear()
