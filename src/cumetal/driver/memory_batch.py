"""Batched and attributed copies (CUDA 12.8+/13.x), peer 3D copies, and batched prefetch/discard.

``cuMemcpyBatchAsync`` and ``cuMemcpy3DBatchAsync`` are what ``cuda.core.utils.copy_batch`` calls.
On unified memory every copy is a memmove ordered on the stream, so the batch is its copies in
order; the attributes are validated as CUDA validates them (every copy needs a valid source access
order; ``attrsIdxs`` starts at 0 and increases; the legacy NULL stream is refused) and otherwise
are hints with nothing to act on. There is no graph-node form of these calls in CUDA, so a
capturing stream is refused with ``CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED``.

``cuMemcpy3DPeer(Async)``: one device, so a peer copy between two contexts is an ordinary 3D copy.
Batched prefetch/discard check their ranges (nothing migrates on unified memory); a discard
leaves the contents as they are, which is one of the values CUDA allows ("undefined").
"""

from __future__ import annotations

from typing import Any

from cumetal.driver.enums import CU_STREAM_LEGACY, CUresult
from cumetal.driver.enums_more import CUmemcpy3DOperandType, CUmemcpySrcAccessOrder, CUstreamCaptureStatus
from cumetal.driver.errors import CudaError, api
from cumetal.driver.handles import CUcontext, CUstream
from cumetal.driver.handles_more import CUDA_MEMCPY3D, CUmemLocation, _Struct
from cumetal.driver.memory import _any_side, _copy, _size
from cumetal.driver.memory_more import _location, _managed, copy_3d
from cumetal.driver.state import STATE, handle_value

R = CUresult
_ORDERS = {int(CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_STREAM),
           int(CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_DURING_API_CALL),
           int(CUmemcpySrcAccessOrder.CU_MEMCPY_SRC_ACCESS_ORDER_ANY)}


class CUmemcpyAttributes(_Struct):
    _fields = {"srcAccessOrder": 0, "srcLocHint": CUmemLocation, "dstLocHint": CUmemLocation, "flags": 0}


class CUoffset3D(_Struct):
    _fields = {"x": 0, "y": 0, "z": 0}


class CUextent3D(_Struct):
    _fields = {"width": 0, "height": 0, "depth": 0}


class _OperandPtr(_Struct):
    _fields = {"ptr": 0, "rowLength": 0, "layerHeight": 0, "locHint": CUmemLocation}


class _OperandArray(_Struct):
    _fields = {"array": None, "offset": CUoffset3D}


class _OperandUnion(_Struct):
    _fields = {"ptr": _OperandPtr, "array": _OperandArray}


class CUmemcpy3DOperand(_Struct):
    _fields = {"type": 0, "op": _OperandUnion}


class CUDA_MEMCPY3D_BATCH_OP(_Struct):  # noqa: N801
    _fields = {"src": CUmemcpy3DOperand, "dst": CUmemcpy3DOperand, "extent": CUextent3D, "srcAccessOrder": 0,
               "flags": 0}


class CUDA_MEMCPY3D_PEER(CUDA_MEMCPY3D):  # noqa: N801
    _fields = {**CUDA_MEMCPY3D._fields, "srcContext": 0, "dstContext": 0}


def _batch_stream(hStream: Any) -> Any:  # noqa: N803
    """The stream of a batched copy: a real stream, not capturing (CUDA has no node for these)."""
    h = handle_value(hStream, CUstream, "hStream")
    if h in (0, int(CU_STREAM_LEGACY)):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "batched copies do not take the legacy NULL stream "
                        "(use a created stream or CU_STREAM_PER_THREAD)")
    from cumetal.driver.graphs import cuStreamIsCapturing

    err, status = cuStreamIsCapturing(hStream)
    if err != R.CUDA_SUCCESS:
        raise CudaError(err, "hStream is not a stream of this context")
    if status != CUstreamCaptureStatus.CU_STREAM_CAPTURE_STATUS_NONE:
        raise CudaError(R.CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED, "a batched copy cannot be captured into a graph")
    return hStream


def _order(value: Any, what: str) -> int:
    v = _size(value, what)
    if v not in _ORDERS:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {v} is not a valid CUmemcpySrcAccessOrder")
    return v


def _hint(loc: Any, what: str) -> None:
    """A location hint: absent (type 0) or a device/host location."""
    if loc is not None and int(getattr(loc, "type", 0) or 0):
        try:
            _location(loc)
        except CudaError as e:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: {e.message}") from None


def _check_attrs(attr: Any, what: str) -> None:
    if attr is None:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} is missing")
    _order(attr.srcAccessOrder, f"{what}.srcAccessOrder")
    _hint(getattr(attr, "srcLocHint", None), f"{what}.srcLocHint")
    _hint(getattr(attr, "dstLocHint", None), f"{what}.dstLocHint")
    if _size(getattr(attr, "flags", 0) or 0, f"{what}.flags") & ~1:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}.flags: only CU_MEMCPY_FLAG_PREFER_OVERLAP_WITH_COMPUTE")


def _seq(value: Any, count: int, what: str) -> list:
    items = list(value) if value is not None else []
    if len(items) < count:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what} has {len(items)} entries, count is {count}")
    return items[:count]


@api(0)
def cuMemcpyBatchAsync(dsts: Any, srcs: Any, sizes: Any, count: Any, attrs: Any, attrsIdxs: Any,  # noqa: N802, N803
                       numAttrs: Any, hStream: Any) -> tuple:
    ctx = STATE.current()
    n = _size(count, "count")
    k = _size(numAttrs, "numAttrs")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive")
    if not 1 <= k <= n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numAttrs must be 1..count ({n}), got {k}")
    d_list, s_list = _seq(dsts, n, "dsts"), _seq(srcs, n, "srcs")
    n_list = [_size(v, f"sizes[{i}]") for i, v in enumerate(_seq(sizes, n, "sizes"))]
    a_list, idx = _seq(attrs, k, "attrs"), [_size(v, "attrsIdxs") for v in _seq(attrsIdxs, k, "attrsIdxs")]
    if idx[0] != 0 or any(b <= a for a, b in zip(idx, idx[1:], strict=False)) or idx[-1] >= n:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"attrsIdxs {idx} must start at 0, increase, and stay below {n}")
    for j, a in enumerate(a_list):
        _check_attrs(a, f"attrs[{j}]")
    stream = _batch_stream(hStream)
    plans = [(_any_side(d_list[i], n_list[i], f"dsts[{i}]", writable=True),
              _any_side(s_list[i], n_list[i], f"srcs[{i}]", writable=False), n_list[i]) for i in range(n)]
    for dst, src, size in plans:  # every range is checked before any copy runs
        _copy(ctx, stream, dst, src, size, sync=False)
    return ()


@api(0)
def cuMemcpyWithAttributesAsync(dst: Any, src: Any, size: Any, attr: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    n = _size(size, "size")
    _check_attrs(attr, "attr")
    stream = _batch_stream(hStream)
    d = _any_side(dst, n, "dst", writable=True)
    s = _any_side(src, n, "src", writable=False)
    _copy(ctx, stream, d, s, n, sync=False)
    return ()


def _operand_into(p: CUDA_MEMCPY3D, prefix: str, operand: Any, extent: Any, what: str) -> int:
    """Fill one side of a CUDA_MEMCPY3D from a CUmemcpy3DOperand; returns the element size."""
    kind = _size(getattr(operand, "type", 0) or 0, f"{what}.type")
    if kind == CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_POINTER:
        op = operand.op.ptr
        row = _size(op.rowLength or 0, f"{what}.rowLength") or int(extent.width)
        layer = _size(op.layerHeight or 0, f"{what}.layerHeight") or int(extent.height)
        if row < int(extent.width) or layer < int(extent.height):
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}: rowLength/layerHeight smaller than the extent")
        ref = _any_side(op.ptr, 0, f"{what}.ptr", writable=prefix == "dst")
        setattr(p, f"{prefix}MemoryType", 4)  # CU_MEMORYTYPE_UNIFIED: one address space
        setattr(p, f"{prefix}Device", ref.address)
        setattr(p, f"{prefix}Host", ref.address)
        setattr(p, f"{prefix}Pitch", row)
        setattr(p, f"{prefix}Height", layer)
        return 1
    if kind == CUmemcpy3DOperandType.CU_MEMCPY_OPERAND_TYPE_ARRAY:
        from cumetal.driver.arrays import lookup

        arr = lookup(operand.op.array.array, f"{what}.array")
        off = operand.op.array.offset
        elem = arr.fmt.elem
        setattr(p, f"{prefix}MemoryType", 3)  # CU_MEMORYTYPE_ARRAY
        setattr(p, f"{prefix}Array", operand.op.array.array)
        setattr(p, f"{prefix}XInBytes", _size(off.x, f"{what}.offset.x") * elem)
        setattr(p, f"{prefix}Y", _size(off.y, f"{what}.offset.y"))
        setattr(p, f"{prefix}Z", _size(off.z, f"{what}.offset.z"))
        return elem
    raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"{what}.type {kind} is not a CUmemcpy3DOperandType")


def _batch_op_copy(op: Any, i: int) -> CUDA_MEMCPY3D:
    ext = op.extent
    w, h, d = (_size(getattr(ext, f), f"opList[{i}].extent.{f}") for f in ("width", "height", "depth"))
    if 0 in (w, h, d):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"opList[{i}].extent has a zero dimension")
    _order(op.srcAccessOrder, f"opList[{i}].srcAccessOrder")
    p = CUDA_MEMCPY3D()
    es = _operand_into(p, "src", op.src, ext, f"opList[{i}].src")
    ed = _operand_into(p, "dst", op.dst, ext, f"opList[{i}].dst")
    if es != 1 and ed != 1 and es != ed:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"opList[{i}]: the two arrays' element sizes differ")
    elem = max(es, ed)
    for prefix in ("src", "dst"):  # pointer pitches are in elements of the copy
        if getattr(p, f"{prefix}MemoryType") == 4:
            setattr(p, f"{prefix}Pitch", getattr(p, f"{prefix}Pitch") * elem)
    p.WidthInBytes, p.Height, p.Depth = w * elem, h, d
    return p


@api(0)
def cuMemcpy3DBatchAsync(numOps: Any, opList: Any, flags: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    n = _size(numOps, "numOps")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "numOps must be positive")
    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    stream = _batch_stream(hStream)
    copies = [_batch_op_copy(op, i) for i, op in enumerate(_seq(opList, n, "opList"))]
    for p in copies:
        copy_3d(p, stream, sync=False, three_d=True)
    return ()


@api(0)
def cuMemcpy3DWithAttributesAsync(op: Any, flags: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    STATE.current()
    if _size(flags, "flags"):
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "flags must be 0")
    stream = _batch_stream(hStream)
    copy_3d(_batch_op_copy(op, 0), stream, sync=False, three_d=True)
    return ()


def _peer_contexts(p: Any) -> None:
    for side in ("srcContext", "dstContext"):
        h = handle_value(getattr(p, side, 0) or 0, CUcontext, side)
        if h:
            STATE.context(h)  # CUDA_ERROR_INVALID_CONTEXT unless live


@api(0)
def cuMemcpy3DPeer(pCopy: Any) -> tuple:  # noqa: N802, N803
    """One device: both contexts share its memory, so this is cuMemcpy3D."""
    _peer_contexts(pCopy)
    copy_3d(pCopy, 0, sync=True, three_d=True)
    return ()


@api(0)
def cuMemcpy3DPeerAsync(pCopy: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    _peer_contexts(pCopy)
    copy_3d(pCopy, hStream, sync=False, three_d=True)
    return ()


# ---------------------------------------------------------------- batched prefetch / discard
def _ranges(dptrs: Any, sizes: Any, count: Any) -> list[tuple[Any, int]]:
    n = _size(count, "count")
    if n == 0:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "count must be positive")
    ptrs, lens = _seq(dptrs, n, "dptrs"), [_size(v, "sizes") for v in _seq(sizes, n, "sizes")]
    for i, (p, s) in enumerate(zip(ptrs, lens, strict=True)):
        try:
            _managed(p, s)
        except CudaError as e:
            raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"range {i}: {e.message}") from None
    return list(zip(ptrs, lens, strict=True))


def _locations(locs: Any, idxs: Any, num: Any, count: int) -> None:
    k = _size(num, "numPrefetchLocs")
    if not 1 <= k <= count:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, f"numPrefetchLocs must be 1..count ({count})")
    for loc in _seq(locs, k, "prefetchLocs"):
        _location(loc)
    idx = [_size(v, "prefetchLocIdxs") for v in _seq(idxs, k, "prefetchLocIdxs")]
    if idx[0] != 0 or any(b <= a for a, b in zip(idx, idx[1:], strict=False)) or idx[-1] >= count:
        raise CudaError(R.CUDA_ERROR_INVALID_VALUE, "prefetchLocIdxs must start at 0, increase, and stay below count")


@api(0)
def cuMemPrefetchBatchAsync(dptrs: Any, sizes: Any, count: Any, prefetchLocs: Any, prefetchLocIdxs: Any,  # noqa: N802, N803
                            numPrefetchLocs: Any, flags: Any, hStream: Any) -> tuple:
    ctx = STATE.current()
    ranges = _ranges(dptrs, sizes, count)
    _locations(prefetchLocs, prefetchLocIdxs, numPrefetchLocs, len(ranges))
    _size(flags, "flags")
    STATE.stream(hStream, ctx)
    return ()


@api(0)
def cuMemDiscardBatchAsync(dptrs: Any, sizes: Any, count: Any, flags: Any, hStream: Any) -> tuple:  # noqa: N802, N803
    ctx = STATE.current()
    _ranges(dptrs, sizes, count)
    _size(flags, "flags")
    STATE.stream(hStream, ctx)
    return ()


@api(0)
def cuMemDiscardAndPrefetchBatchAsync(dptrs: Any, sizes: Any, count: Any, prefetchLocs: Any,  # noqa: N802, N803
                                      prefetchLocIdxs: Any, numPrefetchLocs: Any, flags: Any, hStream: Any) -> tuple:
    ctx = STATE.current()
    ranges = _ranges(dptrs, sizes, count)
    _locations(prefetchLocs, prefetchLocIdxs, numPrefetchLocs, len(ranges))
    _size(flags, "flags")
    STATE.stream(hStream, ctx)
    return ()
