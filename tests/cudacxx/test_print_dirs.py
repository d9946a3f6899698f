"""``cumetalc --print-include-dir`` / ``--print-cuda-path``: where CuMetal's CUDA headers are, for
programs that find CUDA's headers as ``$CUDA_PATH/include`` (cuda-samples' NVRTC samples do)."""

from __future__ import annotations

import io
import pathlib

from cumetal.cudacxx import include_dir
from cumetal.nvrtc import nvrtcCompileProgram, nvrtcCreateProgram, nvrtcResult
from cumetal.tools.cumetalc import main


def _run(*args: str) -> str:
    out, err = io.StringIO(), io.StringIO()
    assert main(list(args), out=out, err=err) == 0, err.getvalue()
    return out.getvalue().strip()


def test_print_include_dir_and_cuda_path():
    inc = pathlib.Path(_run("--print-include-dir"))
    assert inc == include_dir() and (inc / "cuda_runtime.h").is_file()
    cuda_path = pathlib.Path(_run("--print-cuda-path"))
    assert (cuda_path / "include" / "cooperative_groups.h").is_file()


def test_nvrtc_with_include_from_cuda_path():
    """What matrixMul_nvrtc does: -I$CUDA_PATH/include and #include <cooperative_groups.h>."""
    src = (b"#include <cooperative_groups.h>\n"
           b'extern "C" __global__ void k(int *o) { o[cooperative_groups::this_thread_block().thread_rank()] = 1; }\n')
    err, prog = nvrtcCreateProgram(src, b"mm.cu", 0, [], [])
    assert err == nvrtcResult.NVRTC_SUCCESS
    opt = b"--include-path=" + (pathlib.Path(_run("--print-cuda-path")) / "include").as_posix().encode()
    (err,) = nvrtcCompileProgram(prog, 1, [opt])
    assert err == nvrtcResult.NVRTC_SUCCESS
