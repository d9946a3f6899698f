"""Relocatable device code (-rdc=true: translation units linked with llvmlite) and NVRTC-style
in-memory headers, run on the CPU backend against numpy."""

from __future__ import annotations

import io
import pathlib

import numpy as np
from functional_harness import I32, ok

from cumetal import driver as cu
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.tools.cumetalc import main as cumetalc

INPUTS = pathlib.Path(__file__).resolve().parents[1] / "tools" / "cuda_inputs"


def test_rdc_linked_module_runs(gpu, tmp_path):
    out = tmp_path / "linked.ptx"
    err = io.StringIO()
    code = cumetalc(["-rdc=true", str(INPUTS / "rdc_main.cu"), str(INPUTS / "rdc_lib.cu"), "-ptx", "-o", str(out)],
                    out=io.StringIO(), err=err)
    assert code == 0, err.getvalue()
    mod = ok(cu.cuModuleLoadData(out.read_bytes()))
    gpu.modules["linked"] = mod
    n = 300
    x = np.arange(-150, 150, dtype=np.int32)
    d_x, d_y = gpu.to_device(x), gpu.zeros(n, np.int32)
    gpu.run(gpu.function(mod, "use_lib"), (3,), (128,), [(d_x, None), (d_y, None), (n, I32)])
    assert np.array_equal(gpu.from_device(d_y, n, np.int32), x * x - 3 * x + 1000)
    bias, size = ok(cu.cuModuleGetGlobal(mod, b"lib_bias"))
    assert size == 4 and gpu.from_device(bias, 1, np.int32)[0] == 1000


def test_in_memory_headers(gpu):
    src = '#include "cfg/consts.h"\n#include <lib.cuh>\nextern "C" __global__ void k(int *o) { o[threadIdx.x] = f(K); }\n'
    headers = {"cfg/consts.h": "#define K 6\n", "lib.cuh": "__device__ inline int f(int v) { return v * 7; }\n"}
    ptx = compile_to_ptx(src, "prog.cu", headers=headers).ptx
    mod = ok(cu.cuModuleLoadData(ptx.encode()))
    gpu.modules["mem"] = mod
    d = gpu.zeros(8, np.int32)
    gpu.run(gpu.function(mod, "k"), (1,), (8,), [(d, None)])
    assert gpu.from_device(d, 8, np.int32).tolist() == [42] * 8


def test_missing_kernel_error_suggests_the_mangled_name_without_listing_every_kernel(gpu, capfd):
    src = "".join(f'extern "C" __global__ void k{i}(int *p) {{ p[0] = {i}; }}\n' for i in range(40))
    src += "__global__ void vadd(float *p) { p[0] += 1.0f; }\n"
    mod = gpu.load(src, "many.cu")
    capfd.readouterr()
    err, _ = cu.cuModuleGetFunction(mod, b"vadd")
    assert err == cu.CUresult.CUDA_ERROR_NOT_FOUND
    message = capfd.readouterr().err
    assert "did you mean '_Z4vaddPf'?" in message and "41 kernel(s)" in message
    assert "k17" not in message
    assert cu.cuModuleGetFunction(mod, b"_Z4vaddPf")[0] == cu.CUresult.CUDA_SUCCESS


STD_SOURCE = """#include <cstdio>
#include <cstdint>
#include <climits>
#include <type_traits>
#include <utility>
template <typename T> __device__ T twice(T v) { static_assert(std::is_arithmetic<T>::value, ""); return v + v; }
extern "C" __global__ void k(int64_t *o) { o[0] = twice<int64_t>(INT_MAX); printf("%d\\n", 1); }
"""


def test_standard_headers_are_bundled_and_hermetic():
    """With the default stdlib="bundled", <cstdio>, <cstdint>, <type_traits>… come from the ziglang
    wheel (libc++ and musl): nothing from the host system is read, so no SDK is needed and the PTX is
    the same on every machine; "system" uses clang's own search path and gives the same PTX."""
    from cumetal.cudacxx import include_dir
    from cumetal.cudacxx.options import CudaOptions
    from cumetal.cudacxx.toolchain import find_clang

    bundled = compile_to_ptx(STD_SOURCE, "std.cu", CudaOptions(stdlib="bundled"), use_cache=False)
    wheel = find_clang().resource_dir
    assert wheel is not None
    outside = [d for d in bundled.dependencies
               if not (pathlib.Path(d).is_relative_to(wheel) or pathlib.Path(d).is_relative_to(include_dir()))]
    assert outside == []
    assert any("libcxx" in d for d in bundled.dependencies)
    assert "4294967294" in bundled.ptx
    from cumetal.cudacxx.compile import CudaCompileError

    try:  # a machine without system C++ headers (a Mac without Xcode) has no "system" to compare with
        system = compile_to_ptx(STD_SOURCE, "std.cu", CudaOptions(stdlib="system"), use_cache=False)
    except CudaCompileError:
        return
    assert system.ptx == bundled.ptx


def test_char_is_signed_as_on_nvidia_x86_hosts(gpu):
    """Host properties reach device code: char is signed with nvcc on x86-64 Linux (and on macOS),
    whatever machine CuMetal runs on."""
    mod = gpu.load('extern "C" __global__ void k(int *o, char c) { o[0] = c < 0; o[1] = (int)c; }\n', "char.cu")
    d = gpu.zeros(2, np.int32)
    gpu.run(gpu.function(mod, "k"), (1,), (1,), [(d, None), (b"\xff", __import__("ctypes").c_char)])
    assert gpu.from_device(d, 2, np.int32).tolist() == [1, -1]
