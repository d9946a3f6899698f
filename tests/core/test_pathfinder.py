"""cumetal.pathfinder: cuda.pathfinder's header lookup answered with CuMetal's headers, so that
cuda-python's example helpers (which pass those directories to NVRTC) work without NVIDIA's wheels."""

from __future__ import annotations

from pathlib import Path

import pytest

from cumetal import nvrtc, pathfinder
from cumetal.cudacxx import include_dir


def test_shipped_libraries_point_at_cumetals_headers():
    for lib, header in (("cudart", "cuda_runtime.h"), ("cccl", "cuda/pipeline"), ("curand", "curand.h"),
                        ("nvrtc", "nvrtc.h")):
        d = pathfinder.find_nvidia_header_directory(lib)
        assert d is not None and Path(d) == include_dir() and (Path(d) / header).is_file(), lib


def test_libraries_cumetal_lacks_and_unknown_names():
    assert pathfinder.find_nvidia_header_directory("cufft") is None
    assert pathfinder.find_nvidia_header_directory("cusparse") is None
    with pytest.raises(RuntimeError, match="libname"):
        pathfinder.find_nvidia_header_directory("not-a-library")


def test_nvrtc_compiles_with_the_directories_the_examples_pass():
    src = (b"#include <cuda/pipeline>\n#include <cooperative_groups.h>\n"
           b'extern "C" __global__ void k(int *p) { p[0] = cooperative_groups::this_thread_block().size(); }\n')
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [b"--gpu-architecture=compute_80"]
    opts += [b"-I" + pathfinder.find_nvidia_header_directory(lib).encode() for lib in ("cudart", "cccl")]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
