"""C programs of our own built with ``cumetalc … -lcublas -lcublasLt`` and run on the CPU backend;
each prints checks computed against double-precision references in the program itself."""

from __future__ import annotations

import os
import pathlib
import subprocess

import pytest

from cumetal.capi.build import build_program

PROGRAMS = pathlib.Path(__file__).parent / "programs"


def _run(tmp_path: pathlib.Path, name: str, libs: list[str]) -> dict[str, str]:
    exe = tmp_path / name
    build_program([str(PROGRAMS / f"{name}.cu")], str(exe), libraries=libs)
    env = dict(os.environ, CUMETAL_BACKEND="cpu", CUMETAL_QUIET="1")
    proc = subprocess.run([str(exe)], capture_output=True, text=True, env=env, timeout=120, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    out = {}
    for line in proc.stdout.splitlines():
        key, _, value = line.partition(" ")
        out[key] = value
    assert out.get("done") == "1", proc.stdout
    return out


def test_cublas_program(tmp_path: pathlib.Path) -> None:
    out = _run(tmp_path, "cublas_basic", ["cublas"])
    assert out["version"] == "130000"
    for ta in "NT":
        for tb in "NT":
            assert float(out[f"sgemm_{ta}{tb}_maxerr"]) < 1e-5
            assert out[f"sgemm_{ta}{tb}_untouched"] == "1"  # rows past m in C (ldc > m) are not written
    assert float(out["sgemm_device_alpha_maxerr"]) < 1e-5
    assert float(out["sdot_device_err"]) < 1e-5 and float(out["sdot_host_err"]) < 1e-5
    assert float(out["saxpy_nrm2_err"]) < 1e-5
    assert out["isamax_ok"] == "1"
    assert float(out["gemmex_f16_maxerr"]) < 1e-5
    assert out["bad_lda"] == "CUBLAS_STATUS_INVALID_VALUE"
    assert out["bad_dims"] == "CUBLAS_STATUS_INVALID_VALUE"
    assert out["bad_handle"] == "CUBLAS_STATUS_NOT_INITIALIZED"
    assert out["bad_pointer"] == "CUBLAS_STATUS_INVALID_VALUE"


def test_cublaslt_program(tmp_path: pathlib.Path) -> None:
    out = _run(tmp_path, "cublaslt_basic", ["cublas", "cublasLt"])
    assert out["gelu_bias"].startswith("found=1") and float(out["gelu_bias"].split()[-1]) < 1e-5
    assert out["bias"].startswith("found=1") and float(out["bias"].split()[-1]) < 1e-5
    assert out["dgelu_without_aux"] == "7"  # CUBLAS_STATUS_INVALID_VALUE: no EPILOGUE_AUX_POINTER


@pytest.mark.parametrize("header", ["cublas_v2.h", "cublasLt.h", "cuComplex.h"])
def test_headers_compile_as_c_and_cxx(tmp_path: pathlib.Path, header: str) -> None:
    from cumetal.capi.library import c_compiler
    from cumetal.cudacxx import include_dir

    src = tmp_path / "h.c"
    src.write_text(f"#include <{header}>\nint main(void) {{ return 0; }}\n")
    for lang in ("c", "c++"):
        # C++: the shared vector_types.h carries __host__ __device__ attributes a host compiler ignores
        strict = ["-Wall", "-Werror"] if lang == "c" else ["-Wno-attributes"]
        cmd = [*c_compiler(), "-x", lang, "-fsyntax-only", *strict, "-I", str(include_dir()), str(src)]
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
