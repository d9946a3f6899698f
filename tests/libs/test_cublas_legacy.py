"""cuBLAS's legacy API (cublas.h) in a program of our own built with ``cumetalc … -lcublas`` and run on
the CPU backend (tests/libs/programs/cublas_legacy.cu computes its checks against double-precision
references), and the rule that cublas.h and cublas_v2.h cannot be included together."""

from __future__ import annotations

import pathlib
import subprocess

import pytest
from tests.libs.test_cublas_programs import _run

from cumetal.capi.library import c_compiler
from cumetal.cudacxx import include_dir


def test_legacy_program(tmp_path: pathlib.Path) -> None:
    out = _run(tmp_path, "cublas_legacy", ["cublas"])
    assert out["before_init"] == "CUBLAS_STATUS_NOT_INITIALIZED"
    assert out["alloc_before_init"] == "CUBLAS_STATUS_NOT_INITIALIZED"
    assert out["init"] == out["alloc"] == "CUBLAS_STATUS_SUCCESS"
    assert out["version"] == "130000"
    assert out["alloc_bad"] == "CUBLAS_STATUS_INVALID_VALUE"
    assert out["sgemm_status"] == "CUBLAS_STATUS_SUCCESS"
    assert float(out["sgemm_maxerr"]) < 1e-5
    assert float(out["sdot_err"]) < 1e-5 and float(out["snrm2_err"]) < 1e-5
    assert out["isamax_ok"] == "1"
    assert float(out["strsm_resid"]) < 1e-4
    assert float(out["zdotc_err"]) < 1e-12 and float(out["zaxpy_err"]) < 1e-12
    assert out["after_good_calls"] == "CUBLAS_STATUS_SUCCESS"
    assert out["bad_lda"] == "CUBLAS_STATUS_INVALID_VALUE"  # kept through a later successful call
    assert out["after_read"] == "CUBLAS_STATUS_SUCCESS"  # cublasGetError resets it
    assert out["bad_trans"] == "CUBLAS_STATUS_INVALID_VALUE"
    assert out["bad_dot"] == "0 CUBLAS_STATUS_INVALID_VALUE"
    assert out["free"] == out["shutdown"] == "CUBLAS_STATUS_SUCCESS"
    assert out["after_shutdown"] == "CUBLAS_STATUS_NOT_INITIALIZED"


@pytest.mark.parametrize("first,second", [("cublas.h", "cublas_v2.h"), ("cublas_v2.h", "cublas.h")])
def test_legacy_and_v2_headers_exclude_each_other(tmp_path: pathlib.Path, first: str, second: str) -> None:
    src = tmp_path / "both.c"
    src.write_text(f"#include <{first}>\n#include <{second}>\nint main(void) {{ return 0; }}\n")
    proc = subprocess.run([*c_compiler(), "-fsyntax-only", "-I", str(include_dir()), str(src)], capture_output=True,
                          text=True, check=False)
    assert proc.returncode != 0 and "cannot both be included" in proc.stderr, proc.stderr
    alone = tmp_path / "alone.c"
    for lang in ("c", "c++"):
        alone.write_text(f"#include <{first}>\nint main(void) {{ return 0; }}\n")
        strict = ["-Wall", "-Werror"] if lang == "c" else ["-Wno-attributes"]
        proc = subprocess.run([*c_compiler(), "-x", lang, "-fsyntax-only", *strict, "-I", str(include_dir()),
                               str(alone)], capture_output=True, text=True, check=False)
        assert proc.returncode == 0, proc.stderr
