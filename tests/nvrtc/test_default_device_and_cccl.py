"""NVRTC's ``-default-device`` with library headers, and NVRTC with NVIDIA's own CCCL headers.

``-default-device`` used to wrap the whole program in clang's force-host-device pragma, so a
program including ``<cassert>``/``<new>`` (or NVIDIA's CCCL, which includes them) failed on
re-declarations of the C library's functions; cuda-python's ``global_to_shmem_async_copy`` example
hands NVRTC ``-default-device`` and the ``nvidia-cuda-cccl`` wheel's directory. The kernels here are
our own; results are checked against numpy on the CPU backend.
"""

from __future__ import annotations

import ctypes
import importlib.util
import pathlib
import re

import numpy as np
import pytest
from tests.cccl.cccl_install import cccl_include
from tests.nvrtc.test_nvrtc_programs import R, compile_program, program_log, ptx_of

from cumetal.nvrtc.default_device import BEGIN, END, default_device_source

LIBRARY_INCLUDES = """\
#include <cassert>
#include <new>
#include <cstdio>
int twice(int v) { assert(v < 1000); return 2 * v; }
struct Acc { int v; int add(int x) { return v += x; } };
extern "C" __global__ void k(int *p) {
    Acc *a = new (p + 1) Acc{p[0]};
    a->add(twice(p[0]));
}
"""


def test_default_device_with_c_library_and_placement_new_headers(device):
    prog, err = compile_program(LIBRARY_INCLUDES, options=["-default-device", "-arch=sm_80"])
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    d = device.to_device(np.array([21, 0], np.int32))
    device.run(device.function(ptx_of(prog), "k"), 1, 1, [(d, None)])
    np.testing.assert_array_equal(device.from_device(d, np.zeros(2, np.int32)), [21, 63])


def test_default_device_keeps_line_numbers_and_in_memory_headers_device():
    headers = {"util.h": "#pragma once\n#include <cstdint>\ninline int32_t thrice(int32_t v) { return 3 * v; }\n"}
    src = '#include <util.h>\n#include "util.h"\n\nextern "C" __global__ void k(int *p) { p[0] = thrice(p[0]); }\n' \
          "int bad = ;\n"
    prog, err = compile_program(src, "lines.cu", options=["-default-device"], headers=headers)
    assert err == R.NVRTC_ERROR_COMPILATION
    log = program_log(prog)
    # the only error is the one on line 5: thrice (in-memory header, unannotated) is a device function
    assert re.findall(r"^(\S+?):(\d+):\d+: error", log, re.M) == [("lines.cu", "5")], log


def test_default_device_source_lifts_the_pragma_only_around_library_includes():
    out = default_device_source('#include <cstdio>\n#include "mine.h"\n#include <mem.h>\nint f();\n',
                                frozenset({"mem.h"}))
    lines = out.splitlines()
    assert lines[:2] == [BEGIN, "#line 1"] and lines[-1] == END
    at = lines.index("#include <cstdio>")
    assert lines[at - 2:at + 3] == [END, "#line 1", "#include <cstdio>", BEGIN, "#line 2"]
    for own in ('#include "mine.h"', "#include <mem.h>"):  # the program's own headers stay inside
        i = lines.index(own)
        assert lines[i - 1] not in (END, BEGIN) and lines[i + 1] not in (END, BEGIN)
    assert lines.count(BEGIN) == lines.count(END) == 2


def _cccl_and_cudart_dirs() -> list[pathlib.Path] | None:
    """What cuda.pathfinder answers for "cccl" and "cudart" with NVIDIA's wheels installed."""
    cccl = cccl_include()
    if cccl is None:
        return None
    dirs = [cccl]
    if importlib.util.find_spec("nvidia") is not None and (cccl.parent / "cuda_runtime.h").is_file():
        dirs.insert(0, cccl.parent)  # nvidia/cu13/include: NVIDIA's cuda_runtime.h, which must not win
    return dirs


PIPELINE_GEMV = """
#include <cuda/barrier>
#include <cuda/pipeline>
#include <cooperative_groups.h>
namespace cg = cooperative_groups;
// y[row] = sum_j A[row, j] * x[j]; x staged through shared memory in tiles by cuda::memcpy_async,
// double-buffered with a block-scoped pipeline, and (kernel 2) a cuda::barrier
constexpr int TILE = 64;
extern "C" __global__ void gemv_pipeline(const float *A, const float *x, float *y, int n) {
    __shared__ alignas(16) float xs[2][TILE];
    __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
    auto block = cg::this_thread_block();
    auto pipe = cuda::make_pipeline(block, &state);
    int row = blockIdx.x * blockDim.x + threadIdx.x;
    float acc = 0.0f;
    int tiles = n / TILE;
    for (int fetch = 0, t = 0; t < tiles; ++t) {
        for (; fetch < tiles && fetch < t + 2; ++fetch) {
            pipe.producer_acquire();
            cuda::memcpy_async(block, xs[fetch % 2], x + fetch * TILE, cuda::aligned_size_t<16>(TILE * sizeof(float)), pipe);
            pipe.producer_commit();
        }
        pipe.consumer_wait();
        for (int j = 0; j < TILE; ++j) acc += A[row * n + t * TILE + j] * xs[t % 2][j];
        pipe.consumer_release();
    }
    y[row] = acc;
}
extern "C" __global__ void scale_barrier(const float *x, float *y, float s) {
    __shared__ alignas(16) float xs[TILE];
    __shared__ cuda::barrier<cuda::thread_scope_block> bar;
    auto block = cg::this_thread_block();
    if (block.thread_rank() == 0) init(&bar, block.size());
    block.sync();
    cuda::memcpy_async(block, xs, x + blockIdx.x * TILE, sizeof(float) * TILE, bar);
    bar.arrive_and_wait();
    y[blockIdx.x * TILE + threadIdx.x] = s * xs[TILE - 1 - threadIdx.x];
}
"""


def _with_nvidia_cudart() -> bool:
    dirs = _cccl_and_cudart_dirs()
    return dirs is not None and len(dirs) == 2


# Without NVIDIA's cudart headers beside CCCL (nvidia-cuda-runtime's wheel), CCCL's
# cuda::pipeline_shared_state / cuda::barrier keep constructors that clang refuses on __shared__
# variables under CuMetal's headers: a known gap (docs/python.md), so the test needs both wheels.
@pytest.mark.skipif(not _with_nvidia_cudart(), reason="NVIDIA's CCCL and cudart header wheels are not both installed")
def test_nvrtc_with_nvidias_cccl_headers_and_default_device(device):
    opts = ["--fmad=false", "--gpu-architecture=sm_90", "--std=c++17", "-default-device"]
    opts += [f"--include-path={d}" for d in _cccl_and_cudart_dirs()]
    prog, err = compile_program(PIPELINE_GEMV, "gemv.cu", opts)
    assert err == R.NVRTC_SUCCESS, program_log(prog)
    ptx = ptx_of(prog)
    rng = np.random.default_rng(3)
    n, rows = 256, 64
    a = rng.random((rows, n), dtype=np.float32)
    x = rng.random(n, dtype=np.float32)
    da, dx, dy = device.to_device(a), device.to_device(x), device.to_device(np.zeros(rows, np.float32))
    device.run(device.function(ptx, "gemv_pipeline"), rows // 32, 32, [(da, None), (dx, None), (dy, None),
                                                                       (n, ctypes.c_int)])
    ref = np.zeros(rows, np.float32)
    for j in range(n):  # the kernel's order of additions (no fma: --fmad=false)
        ref = ref + a[:, j] * x[j]
    np.testing.assert_array_equal(device.from_device(dy, ref), ref)
    dz = device.to_device(np.zeros(n, np.float32))
    device.run(device.function(ptx, "scale_barrier"), n // 64, 64, [(dx, None), (dz, None), (2.0, ctypes.c_float)])
    np.testing.assert_array_equal(device.from_device(dz, x), 2 * x.reshape(-1, 64)[:, ::-1].reshape(-1))
