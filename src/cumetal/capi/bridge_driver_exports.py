"""The Python side of ``capi/csrc/cm_driver_exports.c`` (``drv_<name>``, conventions of
:mod:`cumetal.capi.bridge_driver`): the C structs of ``cumetal/host_driver_more.h`` read with ctypes
(through ``_safe_bytes``, so a bad pointer is an error code, not a crash) and handed to
``cumetal.driver``."""

from __future__ import annotations

import ctypes
from typing import Any

from cumetal import driver as cu
from cumetal.capi.bridge import _pool_attr_ctype, _safe_bytes
from cumetal.capi.bridge_driver import _c_int, _c_ptr, _c_u64, _guard, _null, _outs, _simple

__all__ = ["drv_cuLaunchKernelEx", "drv_cuKernelGetName", "drv_cuStreamGetCtx_v2", "drv_cuGraphKernelNodeSetAttribute",
           "drv_cuMemGetDefaultMemPool", "drv_cuMemPoolCreate", "drv_cuMemPoolGetAccess", "drv_cuMemPoolGetAttribute",
           "drv_cuMemPoolSetAccess", "drv_cuMemPoolSetAttribute", "drv_cuGreenCtxCreate", "drv_cuGreenCtxDestroy",
           "drv_cuGreenCtxGetId", "drv_cuCtxFromGreenCtx", "drv_cuTensorMapEncodeTiled", "drv_cuGraphAddKernelNode",
           "drv_cuMemcpyBatchAsync"]


class _Dim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class _AttrValue(ctypes.Union):  # CUlaunchAttributeValue: the members CuMetal's launches read
    _fields_ = [("pad", ctypes.c_char * 64), ("cooperative", ctypes.c_int), ("clusterDim", _Dim),
                ("programmaticStreamSerializationAllowed", ctypes.c_int), ("priority", ctypes.c_int),
                ("sharedMemCarveout", ctypes.c_uint)]


class _Attr(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("value", _AttrValue)]


class _Config(ctypes.Structure):
    _fields_ = [("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint), ("gridDimZ", ctypes.c_uint),
                ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint), ("blockDimZ", ctypes.c_uint),
                ("sharedMemBytes", ctypes.c_uint), ("hStream", ctypes.c_void_p), ("attrs", ctypes.c_void_p),
                ("numAttrs", ctypes.c_uint)]


class _Location(ctypes.Structure):
    _fields_ = [("type", ctypes.c_int), ("id", ctypes.c_int)]


class _PoolProps(ctypes.Structure):
    _fields_ = [("allocType", ctypes.c_int), ("handleTypes", ctypes.c_int), ("location", _Location),
                ("win32SecurityAttributes", ctypes.c_void_p), ("maxSize", ctypes.c_size_t),
                ("usage", ctypes.c_ushort), ("reserved", ctypes.c_ubyte * 54)]


class _AccessDesc(ctypes.Structure):
    _fields_ = [("location", _Location), ("flags", ctypes.c_int)]


class _KernelNodeParams(ctypes.Structure):  # CUDA_KERNEL_NODE_PARAMS (v2 layout)
    _fields_ = [("func", ctypes.c_void_p), ("gridDimX", ctypes.c_uint), ("gridDimY", ctypes.c_uint),
                ("gridDimZ", ctypes.c_uint), ("blockDimX", ctypes.c_uint), ("blockDimY", ctypes.c_uint),
                ("blockDimZ", ctypes.c_uint), ("sharedMemBytes", ctypes.c_uint), ("kernelParams", ctypes.c_void_p),
                ("extra", ctypes.c_void_p), ("kern", ctypes.c_void_p), ("ctx", ctypes.c_void_p)]


class _CopyAttributes(ctypes.Structure):  # CUmemcpyAttributes
    _fields_ = [("srcAccessOrder", ctypes.c_int), ("srcLocHint", _Location), ("dstLocHint", _Location),
                ("flags", ctypes.c_uint)]


assert ctypes.sizeof(_CopyAttributes) == 24
assert ctypes.sizeof(_Attr) == 72 and ctypes.sizeof(_Config) == 56 and ctypes.sizeof(_PoolProps) == 88
assert ctypes.sizeof(_AccessDesc) == 12 and ctypes.sizeof(_KernelNodeParams) == 72


def _read(ctype: Any, address: int, count: int = 1) -> Any:
    """``count`` C structs at ``address`` (a copy), or None when the memory cannot be read."""
    if not address or count > 1 << 16:
        return None
    data = _safe_bytes(address, ctypes.sizeof(ctype) * count)
    if data is None:
        return None
    return (ctype * count).from_buffer_copy(data) if count != 1 else ctype.from_buffer_copy(data)


def _attr_value(c: _AttrValue, into: Any) -> Any:
    into.cooperative, into.priority = c.cooperative, c.priority
    into.clusterDim.x, into.clusterDim.y, into.clusterDim.z = c.clusterDim.x, c.clusterDim.y, c.clusterDim.z
    into.programmaticStreamSerializationAllowed = c.programmaticStreamSerializationAllowed
    into.sharedMemCarveout = c.sharedMemCarveout
    return into


def _location(address: int) -> Any:
    c = _read(_Location, address)
    if c is None:
        return None
    loc = cu.CUmemLocation()
    loc.type, loc.id = c.type, c.id
    return loc


@_guard
def drv_cuLaunchKernelEx(config: int, f: int, params: int, extra: int) -> int:  # noqa: N802
    c = _read(_Config, config)
    if c is None:
        return _null("config")
    attrs = []
    if c.numAttrs:
        raw = _read(_Attr, c.attrs or 0, c.numAttrs)
        if raw is None:
            return _null("config->attrs")
        for a in raw if c.numAttrs != 1 else [raw]:
            attr = cu.CUlaunchAttribute()
            attr.id = a.id
            _attr_value(a.value, attr.value)
            attrs.append(attr)
    cfg = cu.CUlaunchConfig()
    cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ = c.gridDimX, c.gridDimY, c.gridDimZ
    cfg.blockDimX, cfg.blockDimY, cfg.blockDimZ = c.blockDimX, c.blockDimY, c.blockDimZ
    cfg.sharedMemBytes, cfg.hStream = c.sharedMemBytes, c.hStream or 0
    cfg.attrs, cfg.numAttrs = attrs, len(attrs)
    return _simple("cuLaunchKernelEx", cfg, f, params or None, extra or None)


_names: dict[int, ctypes.Array] = {}  # kernel -> its name, kept alive for the caller (as CUDA's)


@_guard
def drv_cuKernelGetName(p: int, kernel: int) -> int:  # noqa: N802
    if not p:
        return _null("name")
    err, name = cu.cuKernelGetName(kernel or None)
    if int(err) == 0:
        buf = _names.setdefault(kernel, ctypes.create_string_buffer(bytes(name)))
        _c_ptr.from_address(p).value = ctypes.addressof(buf)
    return int(err)


@_guard
def drv_cuStreamGetCtx_v2(stream: int, p_ctx: int, p_green: int) -> int:  # noqa: N802
    if not p_ctx or not p_green:
        return _null("pCtx" if not p_ctx else "pGreenCtx")
    err, *handles = cu.cuStreamGetCtx_v2(stream)
    return _outs((err, *(int(h or 0) for h in handles)), (_c_ptr, p_ctx), (_c_ptr, p_green))


@_guard
def drv_cuGraphKernelNodeSetAttribute(node: int, attr: int, value: int) -> int:  # noqa: N802
    c = _read(_AttrValue, value)
    if c is None:
        return _null("value")
    return _simple("cuGraphKernelNodeSetAttribute", node, attr, _attr_value(c, cu.CUkernelNodeAttrValue()))


@_guard
def drv_cuMemGetDefaultMemPool(p: int, location: int, kind: int) -> int:  # noqa: N802
    loc = _location(location)
    if not p or loc is None:
        return _null("pool_out" if not p else "location")
    return _outs(cu.cuMemGetDefaultMemPool(loc, kind), (_c_ptr, p))


@_guard
def drv_cuMemPoolCreate(p: int, props: int) -> int:  # noqa: N802
    c = _read(_PoolProps, props)
    if not p or c is None:
        return _null("pool" if not p else "poolProps")
    pp = cu.CUmemPoolProps()
    pp.allocType, pp.handleTypes, pp.maxSize, pp.usage = c.allocType, c.handleTypes, c.maxSize, c.usage
    pp.location.type, pp.location.id = c.location.type, c.location.id
    return _outs(cu.cuMemPoolCreate(pp), (_c_ptr, p))


@_guard
def drv_cuMemPoolGetAccess(p: int, pool: int, location: int) -> int:  # noqa: N802
    loc = _location(location)
    if not p or loc is None:
        return _null("flags" if not p else "location")
    return _outs(cu.cuMemPoolGetAccess(pool, loc), (_c_int, p))


@_guard
def drv_cuMemPoolSetAccess(pool: int, descs: int, count: int) -> int:  # noqa: N802
    raw = _read(_AccessDesc, descs, count) if count else []
    if raw is None:
        return _null("map")
    out = []
    for c in raw if count != 1 else [raw]:
        d = cu.CUmemAccessDesc()
        d.location.type, d.location.id, d.flags = c.location.type, c.location.id, c.flags
        out.append(d)
    return _simple("cuMemPoolSetAccess", pool, out, count)


@_guard
def drv_cuMemPoolGetAttribute(pool: int, attr: int, value: int) -> int:  # noqa: N802
    return _outs(cu.cuMemPoolGetAttribute(pool, attr), (_pool_attr_ctype(attr), value)) if value else _null("value")


@_guard
def drv_cuMemPoolSetAttribute(pool: int, attr: int, value: int) -> int:  # noqa: N802
    ctype = _pool_attr_ctype(attr)
    raw = _read(ctype, value)
    return _simple("cuMemPoolSetAttribute", pool, attr, raw.value) if raw is not None else _null("value")


@_guard
def drv_cuGreenCtxCreate(p: int, desc: int, dev: int, flags: int) -> int:  # noqa: N802
    return _outs(cu.cuGreenCtxCreate(desc, dev, flags), (_c_ptr, p)) if p else _null("phCtx")


@_guard
def drv_cuGreenCtxDestroy(ctx: int) -> int:  # noqa: N802
    return _simple("cuGreenCtxDestroy", ctx)


@_guard
def drv_cuGreenCtxGetId(ctx: int, p: int) -> int:  # noqa: N802
    return _outs(cu.cuGreenCtxGetId(ctx), (_c_u64, p)) if p else _null("greenCtxId")


@_guard
def drv_cuCtxFromGreenCtx(p: int, ctx: int) -> int:  # noqa: N802
    return _outs(cu.cuCtxFromGreenCtx(ctx), (_c_ptr, p)) if p else _null("pContext")


@_guard
def drv_cuTensorMapEncodeTiled(p: int, dtype: int, rank: int, address: int, dims: int, strides: int, box: int,  # noqa: N802, PLR0913
                               elem_strides: int, interleave: int, swizzle: int, l2: int, oob: int) -> int:
    if not p:
        return _null("tensorMap")
    if not 1 <= rank <= 5:
        return int(cu.CUresult.CUDA_ERROR_INVALID_VALUE)
    g = _read(ctypes.c_uint64, dims, rank)
    s = _read(ctypes.c_uint64, strides, rank - 1) if rank > 1 else ([0] if strides else None)  # rank 1: unread
    b = _read(ctypes.c_uint32, box, rank)
    e = _read(ctypes.c_uint32, elem_strides, rank)
    if g is None or s is None or b is None or e is None:
        return _null("globalDim/globalStrides/boxDim/elementStrides")
    as_list = (lambda a: [a.value] if isinstance(a, ctypes._SimpleCData) else list(a))  # noqa: E731
    err, tmap = cu.cuTensorMapEncodeTiled(dtype, rank, address, as_list(g), as_list(s) if rank > 1 else s,
                                          as_list(b), as_list(e), interleave, swizzle, l2, oob)
    if int(err) == 0:
        ctypes.memmove(p, tmap.getPtr(), 128)
    return int(err)


@_guard
def drv_cuGraphAddKernelNode(p: int, graph: int, deps: int, n: int, params: int) -> int:  # noqa: N802
    c = _read(_KernelNodeParams, params)
    if not p or c is None:
        return _null("phGraphNode" if not p else "nodeParams")
    dep_list = []
    if n:
        raw = _read(ctypes.c_void_p, deps, n)
        if raw is None:
            return _null("dependencies")
        dep_list = [raw.value] if n == 1 else [int(d or 0) for d in raw]
    np_ = cu.CUDA_KERNEL_NODE_PARAMS()
    np_.func, np_.kern, np_.ctx = c.func or 0, c.kern or 0, c.ctx or 0
    np_.gridDimX, np_.gridDimY, np_.gridDimZ = c.gridDimX, c.gridDimY, c.gridDimZ
    np_.blockDimX, np_.blockDimY, np_.blockDimZ = c.blockDimX, c.blockDimY, c.blockDimZ
    np_.sharedMemBytes, np_.kernelParams, np_.extra = c.sharedMemBytes, c.kernelParams or None, c.extra or None
    return _outs(cu.cuGraphAddKernelNode(graph, dep_list, n, np_), (_c_ptr, p))


def _ints(ctype: Any, address: int, count: int) -> list[int] | None:
    raw = _read(ctype, address, count)
    if raw is None:
        return None
    return [int(raw.value)] if count == 1 else [int(v) for v in raw]


@_guard
def drv_cuMemcpyBatchAsync(dsts: int, srcs: int, sizes: int, count: int, attrs: int, idxs: int,  # noqa: N802, PLR0913
                           n_attrs: int, stream: int) -> int:
    if not count or not n_attrs:
        return _simple("cuMemcpyBatchAsync", [], [], [], count, [], [], n_attrs, stream)  # the driver's message
    d, s, n = _ints(ctypes.c_uint64, dsts, count), _ints(ctypes.c_uint64, srcs, count), _ints(ctypes.c_size_t, sizes, count)
    raw, ix = _read(_CopyAttributes, attrs, n_attrs), _ints(ctypes.c_size_t, idxs, n_attrs)
    if d is None or s is None or n is None or raw is None or ix is None:
        return _null("dsts/srcs/sizes/attrs/attrsIdxs")
    py_attrs = []
    for c in raw if n_attrs != 1 else [raw]:
        a = cu.CUmemcpyAttributes()
        a.srcAccessOrder, a.flags = c.srcAccessOrder, c.flags
        a.srcLocHint.type, a.srcLocHint.id = c.srcLocHint.type, c.srcLocHint.id
        a.dstLocHint.type, a.dstLocHint.id = c.dstLocHint.type, c.dstLocHint.id
        py_attrs.append(a)
    return _simple("cuMemcpyBatchAsync", d, s, n, count, py_attrs, ix, n_attrs, stream)
