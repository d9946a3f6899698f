"""The texture structs of texture_types.h as a C compiler lays them out equal the ctypes layouts
the runtime fills (cumetal.runtime.textures) and cuda-bindings' sizes (when it is installed)."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from cumetal.cudacxx import include_dir
from cumetal.runtime import textures as T

CC = shutil.which("cc") or shutil.which("gcc")
FIELDS = {
    "cudaChannelFormatDesc": ["x", "w", "f"],
    "cudaResourceDesc": ["resType", "res", "flags"],
    "cudaTextureDesc": ["addressMode", "filterMode", "readMode", "sRGB", "borderColor", "normalizedCoords",
                        "maxAnisotropy", "mipmapFilterMode", "mipmapLevelBias", "maxMipmapLevelClamp",
                        "seamlessCubemap"],
}
UNION = {"res.linear.sizeInBytes": (T._ResLinear, "sizeInBytes"), "res.pitch2D.pitchInBytes": (T._ResPitch2D, "pitchInBytes"),
         "res.pitch2D.desc": (T._ResPitch2D, "desc")}


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_texture_struct_layouts(tmp_path: Path) -> None:
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <cuda_runtime_api.h>", "int main(void) {"]
    expect = []
    for s, fields in FIELDS.items():
        layout = getattr(T, s)._layout_
        lines.append(f'  printf("%zu\\n", sizeof(struct {s}));')
        expect.append(ctypes.sizeof(layout))
        for f in fields:
            lines.append(f'  printf("%zu\\n", offsetof(struct {s}, {f}));')
            expect.append(getattr(layout, f).offset)
    res_offset = T._ResourceDesc.res.offset
    for path, (layout, field) in UNION.items():
        lines.append(f'  printf("%zu\\n", offsetof(struct cudaResourceDesc, {path}));')
        expect.append(res_offset + getattr(layout, field).offset)
    lines += ["  return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-I", str(include_dir()), "-o", str(exe), str(src)],
                   check=True, capture_output=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    assert got == expect


def test_sizes_equal_cuda_bindings() -> None:
    runtime = pytest.importorskip("cuda.bindings.runtime")
    for s in FIELDS:
        assert runtime.sizeof(getattr(runtime, s)) == ctypes.sizeof(getattr(T, s)._layout_), s
