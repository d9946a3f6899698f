"""The host API headers: the generated parts equal a fresh generation from the Python tables, the
struct layouts C compilers see equal the ctypes layouts the runtime fills, and the headers compile
as C and C++."""

from __future__ import annotations

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from cumetal.capi import gen_headers
from cumetal.cudacxx import include_dir
from cumetal.runtime import types as T

CC = shutil.which("cc") or shutil.which("gcc")
STRUCTS = ["cudaDeviceProp", "cudaPointerAttributes", "cudaFuncAttributes", "cudaMemcpy3DParms", "cudaPitchedPtr",
           "cudaExtent", "cudaPos", "cudaMemLocation"]
FIELDS = {"cudaDeviceProp": ["totalGlobalMem", "maxThreadsDim", "multiProcessorCount", "l2CacheSize",
                             "sharedMemPerBlockOptin", "hostNumaMultinodeIpcSupported", "reserved"],
          "cudaMemcpy3DParms": ["srcPtr", "dstArray", "extent", "kind"],
          "cudaFuncAttributes": ["maxThreadsPerBlock", "sharedMemoryMode"]}


def test_generated_headers_are_current() -> None:
    for rel, text in gen_headers.generated().items():
        assert (include_dir() / rel).read_text() == text, f"{rel} is stale: run python -m cumetal.capi.gen_headers"


@pytest.mark.skipif(CC is None, reason="no C compiler")
def test_c_layouts_match_ctypes(tmp_path: Path) -> None:
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <cuda_runtime_api.h>", "#include <cuda.h>",
             "int main(void) {"]
    expect = []
    for s in STRUCTS:
        lines.append(f'  printf("%zu\\n", sizeof(struct {s}));')
        expect.append(ctypes.sizeof(getattr(T, s)._layout_))
        for f in FIELDS.get(s, []):
            lines.append(f'  printf("%zu\\n", offsetof(struct {s}, {f}));')
            expect.append(getattr(getattr(T, s)._layout_, f).offset)
    lines += ["  return 0;", "}"]
    src = tmp_path / "layout.c"
    src.write_text("\n".join(lines) + "\n")
    exe = tmp_path / "layout"
    subprocess.run([CC, "-std=c11", "-Wall", "-Werror", "-I", str(include_dir()), "-o", str(exe), str(src)],
                   check=True, capture_output=True)
    got = [int(x) for x in subprocess.run([str(exe)], capture_output=True, text=True, check=True).stdout.split()]
    assert got == expect


@pytest.mark.skipif(shutil.which("c++") is None, reason="no C++ compiler")
def test_headers_compile_as_plain_cxx(tmp_path: Path) -> None:
    src = tmp_path / "x.cpp"
    src.write_text("#include <cuda_runtime_api.h>\n#include <cuda.h>\n#include <cuda_profiler_api.h>\n"
                   "int f(float **p) { cudaStream_t s = cudaStreamPerThread; (void)s;\n"
                   "  return cudaMalloc(p, 4) + cudaMallocManaged(p, 4) + (int)CUDA_ERROR_INVALID_VALUE; }\n")
    subprocess.run(["c++", "-std=c++17", "-Wall", "-Werror", "-fsyntax-only", "-I", str(include_dir()), str(src)],
                   check=True, capture_output=True)
