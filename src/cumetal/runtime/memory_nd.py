"""Pitched (2D/3D) allocation, copies and fills, and device symbols.

A 2D/3D copy is one stream-ordered copy per row (one copy when rows are contiguous on both sides);
every device row is checked against its allocation first, so a bad pitch or extent is
``cudaErrorInvalidValue``/``cudaErrorInvalidPitchValue`` before anything is written.
"""

from __future__ import annotations

from typing import Any

from cumetal.driver import memory as dmem
from cumetal.driver import streams as dstreams
from cumetal.runtime.device import int_arg
from cumetal.runtime.enums import cudaError_t, cudaMemcpyKind
from cumetal.runtime.errors import RtError, rt_api
from cumetal.runtime.memory import _norm, address, allocation_of, device_range, fill, memcpy_kind
from cumetal.runtime.state import RUNTIME, VarRec, raw
from cumetal.runtime.types import cudaExtent, cudaMemcpy3DParms, cudaPitchedPtr

E = cudaError_t
K = cudaMemcpyKind
PITCH_ALIGNMENT = 512  # what cudaMallocPitch rounds rows up to (CUDA GPUs use 512 too)
MAX_PITCH = 2**31 - 1


def _align(n: int) -> int:
    return -(-n // PITCH_ALIGNMENT) * PITCH_ALIGNMENT


@rt_api(2)
def cudaMallocPitch(width: Any, height: Any) -> tuple:  # noqa: N802
    w = int_arg(width, "width")
    h = int_arg(height, "height")
    if w == 0 or h == 0:
        return (0, _align(w) if w else 0)
    pitch = _align(w)
    (p,) = raw(dmem.cuMemAlloc)(pitch * h)
    return (int(p), pitch)


@rt_api(1)
def cudaMalloc3D(extent: Any) -> tuple:  # noqa: N802
    if not isinstance(extent, cudaExtent):
        raise RtError(E.cudaErrorInvalidValue, "extent must be a cudaExtent")
    w, h, d = int(extent.width), int(extent.height), int(extent.depth)
    pitch = _align(w) if w else 0
    result = cudaPitchedPtr(ptr=0, pitch=pitch, xsize=w, ysize=h)
    if w and h and d:
        (p,) = raw(dmem.cuMemAlloc)(pitch * h * d)
        result.ptr = int(p)
    return (result,)


def _rows(dst: Any, dpitch: int, src: Any, spitch: int, width: int, rows: list[tuple[int, int]],
          kind: cudaMemcpyKind, stream: Any, sync: bool) -> None:
    """Copy ``width`` bytes for each (dst offset, src offset) row pair."""
    if width == 0 or not rows:
        return
    d, s = _norm(dst), _norm(src)
    from cumetal.driver.host_buffers import host_ref

    dref = host_ref(d, "dst", nbytes=0, writable=True)
    sref = host_ref(s, "src", nbytes=0, writable=False)
    last_d = max(o for o, _ in rows) + width
    last_s = max(o for _, o in rows) + width
    for ref, last, what in ((dref, last_d, "dst"), (sref, last_s, "src")):
        if ref.nbytes is not None and ref.nbytes < last:
            raise RtError(E.cudaErrorInvalidValue, f"{what}: the buffer holds {ref.nbytes} bytes, {last} are needed")
    d_dev = kind in (K.cudaMemcpyHostToDevice, K.cudaMemcpyDeviceToDevice) or (
        kind == K.cudaMemcpyDefault and allocation_of(dref.address) is not None)
    s_dev = kind in (K.cudaMemcpyDeviceToHost, K.cudaMemcpyDeviceToDevice) or (
        kind == K.cudaMemcpyDefault and allocation_of(sref.address) is not None)
    for base, is_dev, what in ((dref.address, d_dev, "dst"), (sref.address, s_dev, "src")):
        if is_dev:
            for do, so in rows:
                device_range(base + (do if what == "dst" else so), width, what)
    h = RUNTIME.stream_handle(stream)
    keep = (dref.owner, sref.owner)
    contiguous = dpitch == width and spitch == width and len(rows) > 1
    spans = [(rows[0][0], rows[0][1], width * len(rows))] if contiguous else [(do, so, width) for do, so in rows]
    for do, so, n in spans:
        raw(dmem.cuMemcpyAsync)(dref.address + do, sref.address + so, n, h)
    if sync:
        raw(dstreams.cuStreamSynchronize)(h)
        return
    if any(o is not None for o in keep):  # host buffers stay alive until the stream has copied them
        from cumetal.driver.host_funcs import enqueue_host_call

        enqueue_host_call(h, lambda: keep)


def copy_2d(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any, stream: Any,
            sync: bool) -> None:
    dp, sp = int_arg(dpitch, "dpitch"), int_arg(spitch, "spitch")
    w, h = int_arg(width, "width"), int_arg(height, "height")
    k = memcpy_kind(kind)
    if dp > MAX_PITCH or sp > MAX_PITCH:
        raise RtError(E.cudaErrorInvalidPitchValue, "pitch exceeds the maximum (2^31-1)")
    if h > 1 and (w > dp or w > sp):
        raise RtError(E.cudaErrorInvalidPitchValue, f"width {w} exceeds dpitch {dp} or spitch {sp}")
    _rows(dst, dp, src, sp, w, [(r * dp, r * sp) for r in range(h)], k, stream, sync)


@rt_api(0, sync=True)
def cudaMemcpy2D(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any) -> tuple:  # noqa: N802
    copy_2d(dst, dpitch, src, spitch, width, height, kind, 0, True)
    return ()


@rt_api(0)
def cudaMemcpy2DAsync(dst: Any, dpitch: Any, src: Any, spitch: Any, width: Any, height: Any, kind: Any,  # noqa: N802
                      stream: Any = 0) -> tuple:
    copy_2d(dst, dpitch, src, spitch, width, height, kind, stream, False)
    return ()


def copy_3d(p: Any, stream: Any, sync: bool) -> None:
    if not isinstance(p, cudaMemcpy3DParms):
        raise RtError(E.cudaErrorInvalidValue, "p must be a cudaMemcpy3DParms")
    if p.srcArray or p.dstArray:  # array ends become pitched pointers into the arrays' storage
        from cumetal.runtime.textures import as_pitched

        p = as_pitched(p)
    k = memcpy_kind(p.kind)
    ext = p.extent
    w, h, d = int(ext.width), int(ext.height), int(ext.depth)
    sp, dp = p.srcPtr, p.dstPtr
    spitch, dpitch = int(sp.pitch), int(dp.pitch)
    if not sp.ptr or not dp.ptr:
        raise RtError(E.cudaErrorInvalidValue, "srcPtr.ptr and dstPtr.ptr must be set")
    if w > spitch or w > dpitch:
        raise RtError(E.cudaErrorInvalidPitchValue, f"extent.width {w} exceeds a pitch ({spitch}, {dpitch})")
    sy, dy = int(sp.ysize) or h, int(dp.ysize) or h
    spos, dpos = p.srcPos, p.dstPos
    rows = []
    for z in range(d):
        for y in range(h):
            rows.append((((dpos.z + z) * dy + dpos.y + y) * dpitch + dpos.x,
                         ((spos.z + z) * sy + spos.y + y) * spitch + spos.x))
    from cumetal.runtime import graphs

    h = RUNTIME.stream_handle(stream)
    if graphs.capturing(h):
        if sync:
            raise RtError(E.cudaErrorStreamCaptureUnsupported, "a synchronous call on a capturing stream")
        graphs.capture_node(h, graphs.T.cudaGraphNodeTypeMemcpy, graphs._copy_3d_params(p))
        return
    _rows(int(dp.ptr), dpitch, int(sp.ptr), spitch, w, rows, k, stream, sync)


@rt_api(0, sync=True)
def cudaMemcpy3D(p: Any) -> tuple:  # noqa: N802
    copy_3d(p, 0, True)
    return ()


@rt_api(0)
def cudaMemcpy3DAsync(p: Any, stream: Any = 0) -> tuple:  # noqa: N802
    copy_3d(p, stream, False)
    return ()


def _peer_as_3d(p: Any) -> cudaMemcpy3DParms:
    from cumetal.runtime.device import device_ordinal
    from cumetal.runtime.types import cudaMemcpy3DPeerParms

    if not isinstance(p, cudaMemcpy3DPeerParms):
        raise RtError(E.cudaErrorInvalidValue, "p must be a cudaMemcpy3DPeerParms")
    device_ordinal(p.srcDevice)
    device_ordinal(p.dstDevice)
    q = cudaMemcpy3DParms()
    q.srcArray, q.srcPos, q.srcPtr = p.srcArray, p.srcPos, p.srcPtr
    q.dstArray, q.dstPos, q.dstPtr = p.dstArray, p.dstPos, p.dstPtr
    q.extent = p.extent
    q.kind = K.cudaMemcpyDefault
    return q


@rt_api(0, sync=True)
def cudaMemcpy3DPeer(p: Any) -> tuple:  # noqa: N802
    """One device: device 0 to device 0 is a 3D copy; other devices are cudaErrorInvalidDevice."""
    copy_3d(_peer_as_3d(p), 0, True)
    return ()


@rt_api(0)
def cudaMemcpy3DPeerAsync(p: Any, stream: Any = 0) -> tuple:  # noqa: N802
    copy_3d(_peer_as_3d(p), stream, False)
    return ()


def fill_2d(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any, stream: Any, sync: bool) -> None:  # noqa: N803
    addr = address(devPtr, "devPtr")
    p, w, h = int_arg(pitch, "pitch"), int_arg(width, "width"), int_arg(height, "height")
    if w == 0 or h == 0:
        return
    if w > p and h > 1:
        raise RtError(E.cudaErrorInvalidPitchValue, f"width {w} exceeds pitch {p}")
    for r in range(h):
        device_range(addr + r * p, w, "devPtr")
    if p == w:
        fill(addr, value, w * h, stream, sync=sync)
        return
    for r in range(h):
        fill(addr + r * p, value, w, stream, sync=False)
    if sync:
        raw(dstreams.cuStreamSynchronize)(RUNTIME.stream_handle(stream))


@rt_api(0, sync=True)
def cudaMemset2D(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any) -> tuple:  # noqa: N802, N803
    fill_2d(devPtr, pitch, value, width, height, 0, True)
    return ()


@rt_api(0)
def cudaMemset2DAsync(devPtr: Any, pitch: Any, value: Any, width: Any, height: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    fill_2d(devPtr, pitch, value, width, height, stream, False)
    return ()


def fill_3d(pitched: Any, value: Any, extent: Any, stream: Any, sync: bool) -> None:
    if not isinstance(pitched, cudaPitchedPtr) or not isinstance(extent, cudaExtent):
        raise RtError(E.cudaErrorInvalidValue, "expected a cudaPitchedPtr and a cudaExtent")
    pitch, ysize = int(pitched.pitch), int(pitched.ysize) or int(extent.height)
    h, d = int(extent.height), int(extent.depth)
    for z in range(d):
        fill_2d(int(pitched.ptr) + z * ysize * pitch, pitch, value, int(extent.width), h, stream, False)
    if sync:
        raw(dstreams.cuStreamSynchronize)(RUNTIME.stream_handle(stream))


@rt_api(0, sync=True)
def cudaMemset3D(pitchedDevPtr: Any, value: Any, extent: Any) -> tuple:  # noqa: N802, N803
    fill_3d(pitchedDevPtr, value, extent, 0, True)
    return ()


@rt_api(0)
def cudaMemset3DAsync(pitchedDevPtr: Any, value: Any, extent: Any, stream: Any = 0) -> tuple:  # noqa: N802, N803
    fill_3d(pitchedDevPtr, value, extent, stream, False)
    return ()


# ---------------------------------------------------------------- symbols
def resolve_symbol(sym: Any) -> tuple[int, int]:
    """``(device address, size)`` of a device variable: a registered host shadow address (what C
    passes: ``cudaMemcpyToSymbol(var, ...)``), or a name (str/bytes) searched in every registered or
    loaded library."""
    if isinstance(sym, bytes | str):
        name = sym.decode() if isinstance(sym, bytes) else sym
        for var in list(RUNTIME.variables.values()):
            if var.name == name:
                return RUNTIME.variable_address(var)
        for lib in list(RUNTIME.libraries.values()):
            try:
                return RUNTIME.variable_address(VarRec(lib, name, 0, False))
            except RtError:
                continue
        raise RtError(E.cudaErrorInvalidSymbol, f"no device variable named '{name}'")
    try:
        key = int(sym)
    except (TypeError, ValueError):
        raise RtError(E.cudaErrorInvalidSymbol, f"symbol: expected a registered variable, got {type(sym).__name__}") from None
    var = RUNTIME.variables.get(key)
    if var is None:
        raise RtError(E.cudaErrorInvalidSymbol, f"0x{key:x} is not a registered device variable")
    return RUNTIME.variable_address(var)


def _symbol_range(sym: Any, count: Any, offset: Any) -> tuple[int, int]:
    addr, size = resolve_symbol(sym)
    n, off = int_arg(count, "count"), int_arg(offset, "offset")
    if off + n > size:
        raise RtError(E.cudaErrorInvalidValue, f"offset {off} + count {n} exceeds the symbol's {size} bytes")
    return addr + off, n


def _to_symbol(sym: Any, src: Any, count: Any, offset: Any, kind: Any, stream: Any, sync: bool) -> None:
    from cumetal.runtime.memory import copy

    k = memcpy_kind(kind)
    if k not in (K.cudaMemcpyHostToDevice, K.cudaMemcpyDeviceToDevice, K.cudaMemcpyDefault):
        raise RtError(E.cudaErrorInvalidMemcpyDirection, f"{k.name} cannot copy to a symbol")
    addr, n = _symbol_range(sym, count, offset)
    copy(addr, src, n, k if k != K.cudaMemcpyDefault else K.cudaMemcpyDefault, stream, sync=sync)


def _from_symbol(dst: Any, sym: Any, count: Any, offset: Any, kind: Any, stream: Any, sync: bool) -> None:
    from cumetal.runtime.memory import copy

    k = memcpy_kind(kind)
    if k not in (K.cudaMemcpyDeviceToHost, K.cudaMemcpyDeviceToDevice, K.cudaMemcpyDefault):
        raise RtError(E.cudaErrorInvalidMemcpyDirection, f"{k.name} cannot copy from a symbol")
    addr, n = _symbol_range(sym, count, offset)
    copy(dst, addr, n, k, stream, sync=sync)


@rt_api(0, sync=True)
def cudaMemcpyToSymbol(symbol: Any, src: Any, count: Any, offset: Any = 0,  # noqa: N802
                       kind: Any = K.cudaMemcpyHostToDevice) -> tuple:
    _to_symbol(symbol, src, count, offset, kind, 0, True)
    return ()


@rt_api(0)
def cudaMemcpyToSymbolAsync(symbol: Any, src: Any, count: Any, offset: Any = 0,  # noqa: N802
                            kind: Any = K.cudaMemcpyHostToDevice, stream: Any = 0) -> tuple:
    _to_symbol(symbol, src, count, offset, kind, stream, False)
    return ()


@rt_api(0, sync=True)
def cudaMemcpyFromSymbol(dst: Any, symbol: Any, count: Any, offset: Any = 0,  # noqa: N802
                         kind: Any = K.cudaMemcpyDeviceToHost) -> tuple:
    _from_symbol(dst, symbol, count, offset, kind, 0, True)
    return ()


@rt_api(0)
def cudaMemcpyFromSymbolAsync(dst: Any, symbol: Any, count: Any, offset: Any = 0,  # noqa: N802
                              kind: Any = K.cudaMemcpyDeviceToHost, stream: Any = 0) -> tuple:
    _from_symbol(dst, symbol, count, offset, kind, stream, False)
    return ()


@rt_api(1)
def cudaGetSymbolAddress(symbol: Any) -> tuple:  # noqa: N802
    return (resolve_symbol(symbol)[0],)


@rt_api(1)
def cudaGetSymbolSize(symbol: Any) -> tuple:  # noqa: N802
    return (resolve_symbol(symbol)[1],)
