"""Surface reads and writes (PTX suld.b/sust.b lowering, cpu backend) against an H100
(golden/surface_goldens.npz): 1D, 2D, 3D and 2D layered surfaces of 1- to 16-byte elements, byte x
coordinates in and out of range, the clamp and zero boundary modes, and out-of-range writes."""

from __future__ import annotations

import numpy as np
import pytest
from tests.textures import harness as H
from tests.textures.ptx_kernels import surface_read_kernel, surface_write_kernel

from cumetal import driver as cu
from cumetal.driver import arrays, textures

DATA, META = H.goldens("surface_goldens.npz")
TYPES = {"u8": (8, 1, 0), "u16": (16, 1, 0), "u32": (32, 1, 0), "f32x2": (32, 2, 2), "f32x4": (32, 4, 2)}
GEOM = {"1d": "1d", "2d": "2d", "3d": "3d", "2dl": "a2d"}


def _surface(m: dict, data: np.ndarray) -> tuple[int, arrays.CudaArray]:
    bits, nch, kind = TYPES[m["type"]]
    fmt = arrays.channel_format(*[bits if i < nch else 0 for i in range(4)], kind)
    w, h, d = m["size"]
    ext = {"1d": (w, 0, 0, 0), "2d": (w, h, 0, 0), "3d": (w, h, d, 0), "2dl": (w, h, d, arrays.LAYERED)}[m["geom"]]
    arr = arrays.create_array(fmt, ext[0], ext[1], ext[2], ext[3] | arrays.SURFACE_LDST)
    H.check(cu.cuMemcpyHtoD(arr.address, bytes(data), len(data)))
    return textures.create_object(textures.array_resource(arr), None).handle, arr


@pytest.mark.parametrize("kind", ["read", "write"])
def test_surfaces_match_nvidia(kind: str) -> None:
    H.context()
    checked = 0
    for i, m in enumerate(META):
        if m["kind"] != kind or f"s{i}_out" not in DATA:
            continue
        mode = "zero" if m["zero"] else "clamp"
        handle, arr = _surface(m, DATA[f"s{i}_data"])
        coords = DATA[f"s{i}_coords"]
        if kind == "read":
            fn = H.kernel(surface_read_kernel(GEOM[m["geom"]], m["elem"], mode), "sread")
            out = H.launch(fn, handle, coords, m["elem"] * len(coords))
        else:
            fn = H.kernel(surface_write_kernel(m["elem"], mode), "swrite")
            vals = H.device_buffer(DATA[f"s{i}_vals"])
            c = H.device_buffer(coords)
            import ctypes

            args = ((handle, c, vals, len(coords)), (ctypes.c_uint64,) * 3 + (ctypes.c_uint32,))
            H.check(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, args, None))
            H.check(cu.cuCtxSynchronize())
            host = bytearray(arr.nbytes)
            H.check(cu.cuMemcpyDtoH(host, arr.address, arr.nbytes))
            out = np.frombuffer(bytes(host), np.uint8)
        assert np.array_equal(out, DATA[f"s{i}_out"]), m
        textures.destroy_object(handle, surface=True)
        arrays.destroy_array(arr.address)
        checked += 1
    assert checked >= 10
