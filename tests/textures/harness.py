"""Shared helpers of the texture tests: run the golden configurations through CuMetal (driver API
level: a CUDA array or linear/pitched memory, a texture object, a PTX fetch kernel)."""

from __future__ import annotations

import ctypes
import json
from functools import cache
from pathlib import Path

import numpy as np
from tests.textures.ptx_kernels import fetch_kernel, gather_kernel

from cumetal import driver as cu
from cumetal.driver import arrays, textures

GOLDEN = Path(__file__).parent / "golden"
FORMATS = {  # name -> (bits, channels, kind: 0 unsigned 1 signed 2 float)
    "u8x1": (8, 1, 0), "u8x4": (8, 4, 0), "s8x2": (8, 2, 1), "u16x1": (16, 1, 0), "s16x1": (16, 1, 1),
    "f16x1": (16, 1, 2), "f16x4": (16, 4, 2), "f32x1": (32, 1, 2), "f32x4": (32, 4, 2),
}
ADDR = {"wrap": 0, "clamp": 1, "mirror": 2, "border": 3}
PTX_GEOM = {"1d": "1d", "2d": "2d", "3d": "3d", "1dl": "a1d", "2dl": "a2d", "pitch2d": "2d", "fetch": "1d",
            "gather": "2d", "cube": "cube"}


@cache
def goldens(name: str = "texture_goldens.npz") -> tuple[dict, list[dict]]:
    z = np.load(GOLDEN / name)
    data = {k: z[k] for k in z.files}
    return data, json.loads(bytes(data["meta"]))


def check(res: tuple) -> tuple:
    assert res[0] == cu.CUresult.CUDA_SUCCESS, res
    return res[1:]


_PRIMARY: list = []  # the primary context retained once (a test file run after others may find none current)
_KERNELS: dict[tuple, object] = {}


def context() -> int:
    """The primary context, made current (every call: another test file in this process may have
    reset it or left another context current)."""
    check(cu.cuInit(0))
    (dev,) = check(cu.cuDeviceGet(0))
    if not _PRIMARY or cu.cuCtxSetCurrent(_PRIMARY[0])[0] != cu.CUresult.CUDA_SUCCESS:
        (ctx,) = check(cu.cuDevicePrimaryCtxRetain(dev))
        _PRIMARY[:] = [ctx]
        check(cu.cuCtxSetCurrent(ctx))
    return _PRIMARY[0]


def kernel(source: str, name: str) -> object:
    """The kernel, loaded once per context and again when its module is gone (a primary-context reset
    by another test file destroys it)."""
    key = (int(context()), source, name)
    fn = _KERNELS.get(key)
    attr = cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK
    if fn is None or cu.cuFuncGetAttribute(attr, fn)[0] != cu.CUresult.CUDA_SUCCESS:
        (mod,) = check(cu.cuModuleLoadData(source.encode()))
        (fn,) = check(cu.cuModuleGetFunction(mod, name.encode()))
        _KERNELS[key] = fn
    return fn


def device_buffer(data: bytes | np.ndarray) -> int:
    raw = bytes(np.ascontiguousarray(data).view(np.uint8)) if isinstance(data, np.ndarray) else data
    (p,) = check(cu.cuMemAlloc(max(len(raw), 1)))
    if raw:
        check(cu.cuMemcpyHtoD(p, raw, len(raw)))
    return int(p)


def launch(fn: object, handle: int, coords: np.ndarray, out_bytes: int, n: int | None = None) -> np.ndarray:
    n = len(coords) if n is None else n
    c = device_buffer(np.ascontiguousarray(coords, np.float32) if coords.dtype != np.int32 else coords)
    o = device_buffer(bytes(out_bytes))
    args = ((handle, c, o, n), (ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint64, ctypes.c_uint32))
    check(cu.cuLaunchKernel(fn, (n + 127) // 128, 1, 1, 128, 1, 1, 0, 0, args, None))
    check(cu.cuCtxSynchronize())
    host = bytearray(out_bytes)
    check(cu.cuMemcpyDtoH(host, o, out_bytes))
    check(cu.cuMemFree(c))
    check(cu.cuMemFree(o))
    return np.frombuffer(bytes(host), np.uint8)


def make_texture(m: dict, data: np.ndarray) -> tuple[int, list]:
    """A texture object for golden configuration ``m``; returns (handle, things to free)."""
    context()
    bits, nch, kind = FORMATS[m["fmt"]]
    fmt = arrays.channel_format(*[bits if i < nch else 0 for i in range(4)], kind)
    w, h, d = m["size"]
    geom = m["geom"]
    raw = bytes(data)
    frees: list = []
    if geom == "fetch":
        base = device_buffer(raw)
        frees.append(("mem", base))
        res = textures.Resource(textures.RES_LINEAR, fmt, base, len(raw) // fmt.elem)
    elif geom == "pitch2d":
        pitch = 64
        host = np.zeros((h, pitch), np.uint8)
        host[:, : w * fmt.elem] = np.frombuffer(raw, np.uint8).reshape(h, w * fmt.elem)
        base = device_buffer(host)
        frees.append(("mem", base))
        res = textures.Resource(textures.RES_PITCH2D, fmt, base, w, h, 0, pitch)
    else:
        ext = {"1d": (w, 0, 0, 0), "2d": (w, h, 0, 0), "gather": (w, h, 0, arrays.TEXTURE_GATHER),
               "cube": (w, h, 6, arrays.CUBEMAP), "3d": (w, h, d, 0), "1dl": (w, 0, d, arrays.LAYERED),
               "2dl": (w, h, d, arrays.LAYERED)}[geom]
        arr = arrays.create_array(fmt, *ext)
        frees.append(("array", arr.address))
        check(cu.cuMemcpyHtoD(arr.address, raw, len(raw)))
        res = textures.array_resource(arr)
    smp = textures.Sampling((ADDR[m["addr"]],) * 3, m["filter"] == "linear", m["read"] == "normalized",
                            bool(m["norm"]), tuple(m["border"]))
    obj = textures.create_object(res, smp)
    frees.append(("tex", obj.handle))
    return obj.handle, frees


def release(frees: list) -> None:
    for kind, h in reversed(frees):
        if kind == "tex":
            textures.destroy_object(h, surface=False)
        elif kind == "array":
            arrays.destroy_array(h)
        else:
            check(cu.cuMemFree(h))


def run_config(i: int) -> np.ndarray:
    """CuMetal's four result words per coordinate for golden configuration ``i`` (N x 4 uint32)."""
    data, meta = goldens()
    m = meta[i]
    coords = data[f"c{i}_coords"]
    kind = FORMATS[m["fmt"]][2]
    dtype = "f32" if (m["read"] == "normalized" or kind == 2) else ("s32" if kind == 1 else "u32")
    geom = m["geom"]
    handle, frees = make_texture(m, data[f"c{i}_data"])
    try:
        if geom == "gather":  # one kernel per component (coordinate 3 holds it)
            out = np.zeros((len(coords), 4), np.uint32)
            for comp in range(4):
                rows = np.where(coords[:, 3] == comp)[0]
                if len(rows):
                    fn = kernel(gather_kernel("rgba"[comp], dtype), "gather")
                    out[rows] = launch(fn, handle, coords[rows], 16 * len(rows)).view(np.uint32).reshape(-1, 4)
            return out
        fn = kernel(fetch_kernel(PTX_GEOM[geom], dtype, int_coords=geom == "fetch"), "fetch")
        out = launch(fn, handle, coords, 16 * len(coords))
    finally:
        release(frees)
    return out.view(np.uint32).reshape(-1, 4)
