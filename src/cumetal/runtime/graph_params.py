"""The generic graph-node parameter struct ``cudaGraphNodeParams`` (CUDA 12.2+) and the per-kind
"V2" structs in its union, laid out as CUDA 13's C declarations (checked against cuda-bindings'
structs byte by byte: ``tests/runtime/test_runtime_conditional_graphs.py``), plus
``cudaGraphInstantiateParams``. Python code uses them as in cuda-python (``p.type``,
``p.kernel.gridDim.x``, ``p.conditional.phGraph_out[0]``); the C library passes the address of the
caller's struct, read with ``from_address``. ``python -m cumetal.capi.gen_headers`` writes their C
declarations into ``cumetal/host_graph_types.h``.
"""

from __future__ import annotations

import ctypes
from typing import Any, ClassVar

from cumetal.runtime import enums as E
from cumetal.runtime.types import (
    _CudaMemcpy3DParms,
    _Dim3,
    _field_property,
    _install_fields,
    _Struct,
    cudaMemcpy3DParms,
    dim3,
)

c_int, c_uint, c_size_t, c_void_p = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t, ctypes.c_void_p


class _KernelNodeParamsV2(ctypes.Structure):
    _fields_ = [("func", c_void_p), ("gridDim", _Dim3), ("blockDim", _Dim3), ("sharedMemBytes", c_uint),
                ("kernelParams", c_void_p), ("extra", c_void_p), ("ctx", c_void_p), ("functionType", c_int)]


@_install_fields
class cudaKernelNodeParamsV2(_Struct):  # noqa: N801 - CUDA's names
    _layout_ = _KernelNodeParamsV2
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"gridDim": dim3, "blockDim": dim3}
    _enums_: ClassVar[dict] = {"functionType": E.cudaKernelFunctionType}
    __slots__ = ()


class _MemcpyNodeParams(ctypes.Structure):
    _fields_ = [("flags", c_int), ("reserved", c_int), ("ctx", c_void_p), ("copyParams", _CudaMemcpy3DParms)]


@_install_fields
class cudaMemcpyNodeParams(_Struct):  # noqa: N801
    _layout_ = _MemcpyNodeParams
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"copyParams": cudaMemcpy3DParms}
    __slots__ = ()


class _MemsetParamsV2(ctypes.Structure):
    _fields_ = [("dst", c_void_p), ("pitch", c_size_t), ("value", c_uint), ("elementSize", c_uint),
                ("width", c_size_t), ("height", c_size_t), ("ctx", c_void_p)]


@_install_fields
class cudaMemsetParamsV2(_Struct):  # noqa: N801
    _layout_ = _MemsetParamsV2
    __slots__ = ()


class _HostNodeParamsV2(ctypes.Structure):
    _fields_ = [("fn", c_void_p), ("userData", c_void_p), ("syncMode", c_uint), ("ctx", c_void_p)]


@_install_fields
class cudaHostNodeParamsV2(_Struct):  # noqa: N801
    _layout_ = _HostNodeParamsV2
    __slots__ = ()


class _ChildGraphNodeParams(ctypes.Structure):
    _fields_ = [("graph", c_void_p), ("ownership", c_int)]


@_install_fields
class cudaChildGraphNodeParams(_Struct):  # noqa: N801
    _layout_ = _ChildGraphNodeParams
    _enums_: ClassVar[dict] = {"ownership": E.cudaGraphChildGraphNodeOwnership}
    __slots__ = ()


class _EventRecordNodeParams(ctypes.Structure):
    _fields_ = [("event", c_void_p), ("ctx", c_void_p)]


@_install_fields
class cudaEventRecordNodeParams(_Struct):  # noqa: N801
    _layout_ = _EventRecordNodeParams
    __slots__ = ()


class _EventWaitNodeParams(ctypes.Structure):
    _fields_ = [("event", c_void_p)]


@_install_fields
class cudaEventWaitNodeParams(_Struct):  # noqa: N801
    _layout_ = _EventWaitNodeParams
    __slots__ = ()


def _alloc_layout() -> type[ctypes.Structure]:
    from cumetal.runtime.graph_memory import cudaMemAllocNodeParams

    return cudaMemAllocNodeParams._C  # the V2 struct has the same layout


class _MemFreeNodeParams(ctypes.Structure):
    _fields_ = [("dptr", c_void_p)]


class _ConditionalNodeParams(ctypes.Structure):
    _fields_ = [("handle", ctypes.c_uint64), ("type", c_int), ("size", c_uint),
                ("phGraph_out", ctypes.POINTER(c_void_p)), ("ctx", c_void_p)]


@_install_fields
class cudaConditionalNodeParams(_Struct):  # noqa: N801
    """``handle`` (from cudaGraphConditionalHandleCreate), ``type`` (IF, WHILE, SWITCH), ``size``
    (body graphs: 1 for WHILE, 1 or 2 for IF, any for SWITCH); ``phGraph_out`` is written by
    ``cudaGraphAddNode``: the body graphs, owned by the node."""

    _layout_ = _ConditionalNodeParams
    _enums_: ClassVar[dict] = {"type": E.cudaGraphConditionalNodeType}
    __slots__ = ()


def _body_graphs(self: cudaConditionalNodeParams) -> list:
    from cumetal.runtime.graphs import cudaGraph_t

    arr = self._c.phGraph_out
    return [cudaGraph_t(arr[i] or 0) for i in range(int(self._c.size))] if arr else []


cudaConditionalNodeParams.phGraph_out = property(_body_graphs)  # type: ignore[attr-defined] - read-only list


class _NodeUnion(ctypes.Union):
    _fields_ = [("reserved1", ctypes.c_longlong * 29), ("kernel", _KernelNodeParamsV2),
                ("memcpy", _MemcpyNodeParams), ("memset", _MemsetParamsV2), ("host", _HostNodeParamsV2),
                ("graph", _ChildGraphNodeParams), ("eventWait", _EventWaitNodeParams),
                ("eventRecord", _EventRecordNodeParams), ("alloc", _alloc_layout()),
                ("free", _MemFreeNodeParams), ("conditional", _ConditionalNodeParams)]


class _GraphNodeParams(ctypes.Structure):
    _anonymous_ = ("_u",)
    _fields_ = [("type", c_int), ("reserved0", c_int * 3), ("_u", _NodeUnion), ("reserved2", ctypes.c_longlong)]


class cudaGraphNodeParams(_Struct):  # noqa: N801
    """``type`` says which union member (``kernel``, ``memcpy``, ``memset``, ``host``, ``graph``,
    ``eventWait``, ``eventRecord``, ``alloc``, ``free``, ``conditional``) describes the node."""

    _layout_ = _GraphNodeParams
    _enums_: ClassVar[dict] = {"type": E.cudaGraphNodeType}
    _nested_: ClassVar[dict[str, type[_Struct]]] = {
        "kernel": cudaKernelNodeParamsV2, "memcpy": cudaMemcpyNodeParams, "memset": cudaMemsetParamsV2,
        "host": cudaHostNodeParamsV2, "graph": cudaChildGraphNodeParams, "eventWait": cudaEventWaitNodeParams,
        "eventRecord": cudaEventRecordNodeParams, "conditional": cudaConditionalNodeParams}
    __slots__ = ()

    def union_address(self) -> int:
        return ctypes.addressof(self._c) + _GraphNodeParams._u.offset


for _name, _ctype in [("type", c_int)] + [(f, t) for f, t in _NodeUnion._fields_ if f in cudaGraphNodeParams._nested_]:
    setattr(cudaGraphNodeParams, _name, _field_property(cudaGraphNodeParams, _name, _ctype))


class _GraphInstantiateParams(ctypes.Structure):
    _fields_ = [("flags", ctypes.c_ulonglong), ("uploadStream", c_void_p), ("errNode_out", c_void_p),
                ("result_out", c_int)]


@_install_fields
class cudaGraphInstantiateParams(_Struct):  # noqa: N801
    _layout_ = _GraphInstantiateParams
    _enums_: ClassVar[dict] = {"result_out": E.cudaGraphInstantiateResult}
    __slots__ = ()


def node_params(p: Any) -> cudaGraphNodeParams:
    """A ``cudaGraphNodeParams`` (Python) or the address of a C one, as a view of that memory."""
    from cumetal.runtime.errors import RtError

    if isinstance(p, cudaGraphNodeParams):
        return p
    if isinstance(p, int) and not isinstance(p, bool) and 0 < p < 2**64:
        return cudaGraphNodeParams.from_address(p)
    raise RtError(E.cudaError_t.cudaErrorInvalidValue, "nodeParams must be a cudaGraphNodeParams")
