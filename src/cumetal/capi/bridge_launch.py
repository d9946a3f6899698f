"""The C ABI's launch-with-attributes and stream-attribute calls (``capi/csrc/cm_launch.c``): the C
structs of ``cumetal/host_launch_api.h`` read with ctypes and handed to ``cumetal.runtime``."""

from __future__ import annotations

import ctypes
from types import SimpleNamespace
from typing import Any

from cumetal import runtime as rt
from cumetal.capi.bridge import _guard, _invalid, _simple


class _Window(ctypes.Structure):
    _fields_ = [("base_ptr", ctypes.c_void_p), ("num_bytes", ctypes.c_size_t), ("hitRatio", ctypes.c_float),
                ("hitProp", ctypes.c_int), ("missProp", ctypes.c_int)]


class _Dim(ctypes.Structure):
    _fields_ = [("x", ctypes.c_uint), ("y", ctypes.c_uint), ("z", ctypes.c_uint)]


class _SyncMap(ctypes.Structure):
    _fields_ = [("default_", ctypes.c_ubyte), ("remote", ctypes.c_ubyte)]


class _Value(ctypes.Union):
    _fields_ = [("pad", ctypes.c_char * 64), ("accessPolicyWindow", _Window), ("cooperative", ctypes.c_int),
                ("syncPolicy", ctypes.c_int), ("clusterDim", _Dim), ("priority", ctypes.c_int),
                ("memSyncDomainMap", _SyncMap), ("memSyncDomain", ctypes.c_int),
                ("sharedMemCarveout", ctypes.c_uint)]


class _Attribute(ctypes.Structure):
    _fields_ = [("id", ctypes.c_int), ("pad", ctypes.c_char * 4), ("val", _Value)]


class _Config(ctypes.Structure):
    _fields_ = [("gridDim", _Dim), ("blockDim", _Dim), ("dynamicSmemBytes", ctypes.c_size_t),
                ("stream", ctypes.c_void_p), ("attrs", ctypes.c_void_p), ("numAttrs", ctypes.c_uint)]


assert ctypes.sizeof(_Value) == 64 and ctypes.sizeof(_Attribute) == 72 and ctypes.sizeof(_Config) == 56


def _dim(d: _Dim) -> tuple[int, int, int]:
    return (d.x, d.y, d.z)


@_guard()
def cudaLaunchKernelExC(config: int, func: int, args: int) -> int:  # noqa: N802
    if not config:
        return _invalid("config")
    c = _Config.from_address(config)
    attrs = []
    if c.numAttrs:
        if not c.attrs:
            return _invalid("config->attrs")
        for a in (_Attribute * c.numAttrs).from_address(c.attrs):
            val = SimpleNamespace(clusterDim=SimpleNamespace(x=a.val.clusterDim.x, y=a.val.clusterDim.y,
                                                             z=a.val.clusterDim.z),
                                  cooperative=a.val.cooperative)
            attrs.append(SimpleNamespace(id=a.id, val=val))
    cfg = SimpleNamespace(gridDim=_dim(c.gridDim), blockDim=_dim(c.blockDim), dynamicSmemBytes=c.dynamicSmemBytes,
                          stream=int(c.stream or 0), attrs=attrs, numAttrs=len(attrs))
    return int(rt.cudaLaunchKernelEx(cfg, func, args or None)[0])


@_guard()
def cudaLaunchKernelPlanned(func: int, grid: tuple, block: tuple, args: int, shared: int, stream: int,  # noqa: N802
                            api: int) -> int:
    """``cudaLaunchKernel`` from C when libcumetal had no plan for it (capi/csrc/cm_native_launch.c):
    the launch through ``cumetal.runtime``, then, when it succeeded, a plan for its next launches."""
    from cumetal.devices import native_launch

    epoch = native_launch.epoch(api)  # (before the launch: whatever happens during it makes the plan stale)
    err = int(rt.cudaLaunchKernel(func, grid, block, args or None, shared, stream)[0])
    if err == 0 and epoch:
        native_launch.arm(api, epoch, func, grid, block, shared, stream)
    return err


@_guard()
def drv_cuLaunchKernelPlanned(f: int, gx: int, gy: int, gz: int, bx: int, by: int, bz: int, shared: int,  # noqa: N802
                              stream: int, params: int, extra: int, api: int) -> int:
    """``cuLaunchKernel`` from C when libcumetal had no plan for it: as ``cudaLaunchKernelPlanned``."""
    from cumetal.capi.bridge_driver import drv_cuLaunchKernel
    from cumetal.devices import native_launch

    epoch = native_launch.epoch(api)
    err = int(drv_cuLaunchKernel(f, gx, gy, gz, bx, by, bz, shared, stream, params, extra))
    if err == 0 and epoch and not extra:
        native_launch.arm(api, epoch, f, (gx, gy, gz), (bx, by, bz), shared, stream, driver=True)
    return err


def _python_value(attr: int, c: _Value) -> Any:
    v = rt.cudaLaunchAttributeValue()
    w = v.accessPolicyWindow
    w.base_ptr, w.num_bytes, w.hitRatio = int(c.accessPolicyWindow.base_ptr or 0), c.accessPolicyWindow.num_bytes, \
        c.accessPolicyWindow.hitRatio
    w.hitProp, w.missProp = c.accessPolicyWindow.hitProp, c.accessPolicyWindow.missProp
    v.syncPolicy, v.priority, v.memSyncDomain = c.syncPolicy, c.priority, c.memSyncDomain
    v.memSyncDomainMap = SimpleNamespace(default_=c.memSyncDomainMap.default_, remote=c.memSyncDomainMap.remote)
    return v


@_guard()
def cudaStreamSetAttribute(stream: int, attr: int, value: int) -> int:  # noqa: N802
    if not value:
        return _invalid("value")
    return _simple("cudaStreamSetAttribute", stream, attr, _python_value(attr, _Value.from_address(value)))


@_guard()
def cudaStreamGetAttribute(stream: int, attr: int, out: int) -> int:  # noqa: N802
    if not out:
        return _invalid("value_out")
    result = rt.cudaStreamGetAttribute(stream, attr)
    if int(result[0]) == 0:
        v, c = result[1], _Value.from_address(out)
        ctypes.memset(out, 0, 64)
        name = {1: "accessPolicyWindow", 3: "syncPolicy", 8: "priority", 9: "memSyncDomainMap",
                10: "memSyncDomain"}.get(attr)
        if name == "accessPolicyWindow":
            w = v.accessPolicyWindow
            c.accessPolicyWindow = _Window(int(w.base_ptr or 0) or None, int(w.num_bytes), float(w.hitRatio),
                                           int(w.hitProp), int(w.missProp))
        elif name == "memSyncDomainMap":
            m = v.memSyncDomainMap
            c.memSyncDomainMap = _SyncMap(int(getattr(m, "default_", 0) or 0), int(getattr(m, "remote", 0) or 0))
        elif name is not None:
            setattr(c, name, int(getattr(v, name) or 0))
    return int(result[0])


@_guard()
def cudaStreamCopyAttributes(dst: int, src: int) -> int:  # noqa: N802
    return _simple("cudaStreamCopyAttributes", dst, src)


__all__ = ["cudaLaunchKernelExC", "cudaLaunchKernelPlanned", "drv_cuLaunchKernelPlanned", "cudaStreamCopyAttributes", "cudaStreamGetAttribute", "cudaStreamSetAttribute"]
