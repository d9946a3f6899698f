"""Every clean-room header parses on its own, in host (--cuda-host-only) and device compilation,
in C++11, 14, 17 and 20, with cuda_runtime.h force-included as nvcc does."""

from __future__ import annotations

import subprocess

import pytest

from cumetal.cudacxx import include_dir
from cumetal.cudacxx.toolchain import find_clang

HEADERS = [
    "cuda_runtime.h", "device_launch_parameters.h", "vector_types.h", "vector_functions.h", "host_defines.h",
    "builtin_types.h", "cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h", "cooperative_groups.h", "cooperative_groups/reduce.h",
    "cooperative_groups/scan.h", "cooperative_groups/memcpy_async.h", "cuda/barrier", "cuda/pipeline",
    "cuda_pipeline.h", "cuda_pipeline_primitives.h", "cuda/std/cstdint", "cuda/std/cstddef", "cuda/std/climits",
    "cuda/std/type_traits", "cuda/std/limits", "cuda/std/utility", "crt/host_defines.h", "cuda/atomic",
    "cuda/std/atomic", "mma.h", "nv/target", "device_functions.h", "sm_32_intrinsics.h", "sm_60_atomic_functions.h",
    "texture_fetch_functions.h", "math_functions.h", "crt/device_functions.h",
]
BASE = ["-x", "cuda", "-nocudainc", "-nocudalib", "-Xclang", "-target-sdk-version=12.0", "-Wno-unknown-cuda-version",
        "--cuda-gpu-arch=sm_80", "-fsyntax-only", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter",
        "-Wno-unused-function", "-Wno-unused-const-variable", "-Wno-unused-variable"]


def _clang(source: str, args: list[str], tmp_path) -> subprocess.CompletedProcess:
    src = tmp_path / "t.cu"
    src.write_text(source)
    return subprocess.run(find_clang().command([*BASE, *args, "-I", str(include_dir()), "-include", "cuda_runtime.h",
                                                str(src)]), capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("std", ["c++11", "c++14", "c++17", "c++20"])
@pytest.mark.parametrize("side", ["--cuda-host-only", "--cuda-device-only"])
def test_all_headers_together(side, std, tmp_path):
    source = "".join(f"#include <{h}>\n" for h in HEADERS) + "int cumetal_probe;\n"
    proc = _clang(source, [side, f"-std={std}"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]


# the headers that include more than cuda_runtime.h already brings
STANDALONE = ["cuda_fp16.h", "cuda_bf16.h", "cuda_fp8.h", "cuda_fp6.h", "cuda_fp4.h", "cooperative_groups/reduce.h", "cooperative_groups/scan.h",
              "cooperative_groups/memcpy_async.h", "cuda/barrier", "cuda/pipeline", "cuda/std/utility",
              "cuda/atomic", "mma.h"]


@pytest.mark.parametrize("header", STANDALONE)
def test_each_header_alone_in_host_code(header, tmp_path):
    proc = _clang(f"#include <{header}>\nint main() {{ return 0; }}\n", ["--cuda-host-only", "-std=c++11"], tmp_path)
    assert proc.returncode == 0, proc.stderr[-3000:]
