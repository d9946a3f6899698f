"""cuBLASLt descriptors on the stack (cublasLt*Init(&opaque), &opaque as the handle, as NVIDIA's
CUDALibrarySamples write them): the handle types point to the opaque structs in C and C++, and a
DGEMM through them equals numpy's."""

from __future__ import annotations

import os
import pathlib
import subprocess

import numpy as np

from cumetal.capi.build import build_program

PROGRAM = pathlib.Path(__file__).parent / "programs" / "cublaslt_stack_descs.cu"


def test_stack_descriptors_matmul(tmp_path: pathlib.Path) -> None:
    exe = tmp_path / "stack_descs"
    build_program([str(PROGRAM)], str(exe), libraries=["cublas", "cublasLt"])
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120, check=False)
    out = dict(ln.split(" ", 1) for ln in proc.stdout.splitlines() if " " in ln)
    assert proc.returncode == 0 and out.get("done") == "1", proc.stdout + proc.stderr
    assert out["found"] == "1"
    # CUBLASLT_MATMUL_TILE_16x16 is 5 (NVIDIA's LtDgemmPresetAlgo sample states it); 51 cluster shapes + AUTO
    assert out["tile16x16"] == "5 cluster_end 52"
    m, n, k = 5, 3, 4
    a = (0.25 * np.arange(m * k) - 2.0).reshape(m, k)  # stored k x m column-major = m x k row-major
    b = (1.0 + 0.5 * np.arange(k * n)).reshape(n, k).T
    c = np.arange(m * n, dtype=float).reshape(n, m).T
    want = 1.5 * (a @ b) - 0.5 * c
    np.testing.assert_allclose([float(v) for v in out["D"].split()], want.T.ravel(), rtol=1e-15)


def test_opaque_pointer_is_the_handle_in_c(tmp_path: pathlib.Path) -> None:
    from cumetal.capi.library import c_compiler
    from cumetal.cudacxx import include_dir

    src = tmp_path / "h.c"
    src.write_text("#include <cublasLt.h>\n"
                   "int main(void) {\n"
                   "    cublasLtMatmulDescOpaque_t o; cublasLtMatmulDesc_t d = &o;\n"
                   "    cublasLtMatrixLayoutOpaque_t l; cublasLtMatrixLayout_t ld = &l;\n"
                   "    cublasLtMatmulPreferenceOpaque_t p; cublasLtMatmulPreference_t pd = &p;\n"
                   "    cublasLtMatrixTransformDescOpaque_t t; cublasLtMatrixTransformDesc_t td = &t;\n"
                   "    cublasLtEmulationDescOpaque_t e; cublasLtEmulationDesc_t ed = &e;\n"
                   "    return d == 0 || ld == 0 || pd == 0 || td == 0 || ed == 0;\n}\n")
    for lang in ("c", "c++"):
        strict = ["-Wall", "-Werror"] if lang == "c" else ["-Wno-attributes"]
        cmd = [*c_compiler(), "-x", lang, "-fsyntax-only", *strict, "-I", str(include_dir()), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
