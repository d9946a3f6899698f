"""A directory of NVIDIA's toolkit headers on the include path (``-I$CUDA_HOME/include`` in a
Makefile, cuda.pathfinder's answer in cuda-python's examples): CuMetal's own headers answer for the
CUDA names, anything CuMetal lacks still comes from that directory (cudacxx/include_order.py)."""

from __future__ import annotations

import subprocess
import sys

PROGRAM = r"""
#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cstdio>
#include <toolkit_only.h>
__global__ void ranks(int *p) { p[threadIdx.x] = cooperative_groups::this_thread_block().thread_rank() * TOOLKIT_ONLY; }
int main() {
    int *d, h[32];
    cudaMalloc(&d, sizeof h);
    ranks<<<1, 32>>>(d);
    cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost);
    std::printf("%d %d\n", h[1], h[31]);
    return 0;
}
"""


def _fake_toolkit(root):
    """NVIDIA-named headers that cannot be used (they need the toolkit's crt/ internals) and one
    header only the toolkit has."""
    inc = root / "toolkit" / "include"
    inc.mkdir(parents=True)
    for name in ("cuda_runtime.h", "cuda_runtime_api.h", "cooperative_groups.h", "vector_types.h"):
        (inc / name).write_text('#include "crt/host_config.h"\n#error "NVIDIA header used"\n')
    (inc / "toolkit_only.h").write_text("#define TOOLKIT_ONLY 3\n")
    return inc


def test_toolkit_include_dir_does_not_shadow_cumetals_headers(tmp_path):
    inc = _fake_toolkit(tmp_path)
    src = tmp_path / "ranks.cu"
    src.write_text(PROGRAM)
    exe = tmp_path / "ranks"
    build = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "-I", str(inc), str(src),
                            "-o", str(exe)], capture_output=True, text=True, timeout=600)
    assert build.returncode == 0, build.stderr[-3000:]
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert run.stdout.split() == ["3", "93"]


def test_nvrtc_with_a_toolkit_include_dir(tmp_path):
    from cumetal import nvrtc

    inc = _fake_toolkit(tmp_path)
    src = b"#include <cooperative_groups.h>\n#include <toolkit_only.h>\n" \
          b'extern "C" __global__ void k(int *p) { p[0] = TOOLKIT_ONLY; }\n'
    err, prog = nvrtc.nvrtcCreateProgram(src, b"k.cu", 0, [], [])
    assert err == nvrtc.nvrtcResult.NVRTC_SUCCESS
    opts = [b"--gpu-architecture=compute_80", b"-I" + str(inc).encode()]
    err, = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
    if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
        _, size = nvrtc.nvrtcGetProgramLogSize(prog)
        log = b" " * size
        nvrtc.nvrtcGetProgramLog(prog, log)
        raise AssertionError(log.decode(errors="replace")[-2000:])
    _, size = nvrtc.nvrtcGetPTXSize(prog)
    ptx = b" " * size
    nvrtc.nvrtcGetPTX(prog, ptx)
    assert b", 3;" in ptx  # TOOLKIT_ONLY came from the toolkit directory
