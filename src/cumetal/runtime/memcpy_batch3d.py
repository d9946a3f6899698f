"""CUDA 13's 3D batch copies: ``cudaMemcpy3DBatchAsync`` and ``cudaMemcpy3DWithAttributesAsync``
(``cudaMemcpy3DBatchOp`` with pointer or CUDA-array operands). Each operation becomes the
``cudaMemcpy3DParms`` copy it describes (widths in elements: 1 byte for pointer-to-pointer copies,
the array's element size when an array is involved; a zero row length or layer height means tightly
packed) and runs in stream order, one after another."""

from __future__ import annotations

import ctypes
import enum
from ctypes import c_int, c_size_t, c_uint, c_void_p
from typing import Any, ClassVar

from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import (
    cudaError_t,
    cudaMemcpy3DOperandType,
    cudaMemcpyKind,
    cudaMemcpySrcAccessOrder,
)
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.state import RUNTIME
from cumetal.runtime.types import (
    _CudaExtent,
    _CudaMemLocation,
    _install_fields,
    _Struct,
    cudaExtent,
    cudaMemcpy3DParms,
    cudaMemLocation,
    cudaPitchedPtr,
    cudaPos,
)

E = cudaError_t
OT = cudaMemcpy3DOperandType


class _Offset3D(ctypes.Structure):
    _fields_ = [("x", c_size_t), ("y", c_size_t), ("z", c_size_t)]


class _PtrOperand(ctypes.Structure):
    _fields_ = [("ptr", c_void_p), ("rowLength", c_size_t), ("layerHeight", c_size_t), ("locHint", _CudaMemLocation)]


class _ArrayOperand(ctypes.Structure):
    _fields_ = [("array", c_void_p), ("offset", _Offset3D)]


class _OperandUnion(ctypes.Union):
    _fields_ = [("ptr", _PtrOperand), ("array", _ArrayOperand)]


class _Operand(ctypes.Structure):
    _fields_ = [("type", c_int), ("op", _OperandUnion)]


class _BatchOp(ctypes.Structure):
    _fields_ = [("src", _Operand), ("dst", _Operand), ("extent", _CudaExtent), ("srcAccessOrder", c_int),
                ("flags", c_uint)]


@_install_fields
class cudaOffset3D(_Struct):  # noqa: N801
    _layout_ = _Offset3D
    __slots__ = ()


@_install_fields
class _ptr_view(_Struct):  # noqa: N801
    _layout_ = _PtrOperand
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"locHint": cudaMemLocation}
    __slots__ = ()


@_install_fields
class _array_view(_Struct):  # noqa: N801
    _layout_ = _ArrayOperand
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"offset": cudaOffset3D}
    __slots__ = ()


@_install_fields
class _op_view(_Struct):  # noqa: N801
    _layout_ = _OperandUnion
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"ptr": _ptr_view, "array": _array_view}
    __slots__ = ()


@_install_fields
class cudaMemcpy3DOperand(_Struct):  # noqa: N801
    _layout_ = _Operand
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"op": _op_view}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"type": OT}
    __slots__ = ()


@_install_fields
class cudaMemcpy3DBatchOp(_Struct):  # noqa: N801
    _layout_ = _BatchOp
    _nested_: ClassVar[dict[str, type[_Struct]]] = {"src": cudaMemcpy3DOperand, "dst": cudaMemcpy3DOperand,
                                                   "extent": cudaExtent}
    _enums_: ClassVar[dict[str, type[enum.IntEnum]]] = {"srcAccessOrder": cudaMemcpySrcAccessOrder}
    __slots__ = ()


def _elem(c: _Operand) -> int | None:
    if int(c.type) != OT.cudaMemcpyOperandTypeArray:
        return None
    from cumetal.runtime.textures import _array

    return _array(c.op.array.array).fmt.elem


def _params(op: Any, i: int) -> cudaMemcpy3DParms:
    if isinstance(op, int) and not isinstance(op, bool) and 0 < op < 2**64:
        op = cudaMemcpy3DBatchOp.from_address(op)
    if not isinstance(op, cudaMemcpy3DBatchOp):
        raise RtError(E.cudaErrorInvalidValue, f"opList[{i}] must be a cudaMemcpy3DBatchOp")
    c = op._c
    w, h, d = int(c.extent.width), int(c.extent.height), int(c.extent.depth)
    if not (w and h and d):
        raise RtError(E.cudaErrorInvalidValue, f"opList[{i}]: extent {w}x{h}x{d} must not be zero")
    order = int(c.srcAccessOrder)
    if order not in {int(m) for m in cudaMemcpySrcAccessOrder} or order == cudaMemcpySrcAccessOrder.cudaMemcpySrcAccessOrderInvalid:
        raise RtError(E.cudaErrorInvalidValue, f"opList[{i}]: srcAccessOrder {order} is not valid")
    sizes = [s for s in (_elem(c.src), _elem(c.dst)) if s is not None]
    if len(sizes) == 2 and sizes[0] != sizes[1]:
        raise RtError(E.cudaErrorInvalidValue, f"opList[{i}]: the arrays' element sizes differ ({sizes[0]}, {sizes[1]})")
    elem = sizes[0] if sizes else 1
    p = cudaMemcpy3DParms()
    p.kind = cudaMemcpyKind.cudaMemcpyDefault
    p.extent = cudaExtent(width=w, height=h, depth=d)
    for side, o in (("src", c.src), ("dst", c.dst)):
        kind = int(o.type)
        if kind == OT.cudaMemcpyOperandTypeArray:
            off = o.op.array.offset
            setattr(p, side + "Array", int(o.op.array.array or 0))
            setattr(p, side + "Pos", cudaPos(x=int(off.x), y=int(off.y), z=int(off.z)))
        elif kind == OT.cudaMemcpyOperandTypePointer:
            q = o.op.ptr
            row, layer = int(q.rowLength), int(q.layerHeight)
            if (row and row < w) or (layer and layer < h) or not q.ptr:
                raise RtError(E.cudaErrorInvalidValue, f"opList[{i}].{side}: rowLength {row} / layerHeight {layer} "
                              f"below the extent {w}x{h}, or a NULL pointer")
            pitch = (row or w) * elem
            setattr(p, side + "Ptr", cudaPitchedPtr(ptr=int(q.ptr), pitch=pitch, xsize=pitch, ysize=layer or h))
        else:
            raise RtError(E.cudaErrorInvalidValue, f"opList[{i}].{side}.type {kind} is not a cudaMemcpy3DOperandType")
    return p


def _run(ops: list[Any], flags: Any, stream: Any) -> None:
    from cumetal.runtime.memory_nd import copy_3d

    if int_arg(flags, "flags", hi=2**64) != 0:
        raise RtError(E.cudaErrorInvalidValue, "flags must be 0")
    h = RUNTIME.stream_handle(stream)
    if h == 0 and int(stream or 0) in (0, 1):
        raise RtError(E.cudaErrorInvalidValue, "3D batch copies cannot use the legacy default stream")
    params = [_params(op, i) for i, op in enumerate(ops)]  # all checked before any is enqueued
    for p in params:
        copy_3d(p, stream, False)


@rt_api(0)
def cudaMemcpy3DBatchAsync(numOps: Any, opList: Any, flags: Any, stream: Any) -> tuple:  # noqa: N802, N803
    n = int_arg(numOps, "numOps", hi=2**32)
    if isinstance(opList, int) and not isinstance(opList, bool):  # C: an array of numOps structs
        if n and not 0 < opList < 2**64:
            raise RtError(E.cudaErrorInvalidValue, "opList is NULL")
        ops = [opList + k * cudaMemcpy3DBatchOp.sizeof() for k in range(n)]
    else:
        ops = list(opList or [])
        if len(ops) < n:
            raise RtError(E.cudaErrorInvalidValue, f"numOps={n} but {len(ops)} operations given")
    if n == 0:
        raise RtError(E.cudaErrorInvalidValue, "numOps must not be 0")
    _run(ops[:n], flags, stream)
    return ()


@rt_api(0)
def cudaMemcpy3DWithAttributesAsync(op: Any, flags: Any, stream: Any) -> tuple:  # noqa: N802
    _run([op], flags, stream)
    return ()
