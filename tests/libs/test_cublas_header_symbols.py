"""Every function CuMetal's cuBLAS headers declare (cublas_v2.h with cublas_api.h, the legacy cublas.h,
cublasXt.h), and every name cublas_v2.h maps (cublasSgemm → cublasSgemm_v2, cublasSgemm_64 →
cublasSgemm_v2_64), is a symbol libcumetal_libs exports: the declarations come out of the C
preprocessor (the headers build most of them with macros), the exports out of ``nm -D``."""

from __future__ import annotations

import re
import shutil
import subprocess

import pytest

from cumetal.capi.library import c_compiler
from cumetal.cudacxx import include_dir
from cumetal.libs import build


@pytest.fixture(scope="module")
def exported() -> set[str]:
    nm = shutil.which("nm")
    if nm is None:
        pytest.skip("no nm")
    out = subprocess.run([nm, "-D", "--defined-only", str(build.library_path())], capture_output=True, text=True,
                         check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if line.strip()}


def declared(header: str) -> set[str]:
    proc = subprocess.run([*c_compiler(), "-E", "-P", "-x", "c", "-I", str(include_dir()), "-"],
                          input=f"#include <{header}>\n", capture_output=True, text=True, check=True)
    return set(re.findall(r"\b(cublas(?:Xt)?[A-Za-z0-9_]+)\s*\(", proc.stdout)) - {"cublasLt"}


# cublasLt.h's static inline wrappers of the exported *_internal functions (as in NVIDIA's header)
LT_INLINE = {"cublasLtMatmulDescInit", "cublasLtMatrixLayoutInit", "cublasLtMatmulPreferenceInit",
             "cublasLtMatrixTransformDescInit", "cublasLtEmulationDescInit"}


@pytest.mark.parametrize("header,minimum", [("cublas_v2.h", 450), ("cublas.h", 150), ("cublasXt.h", 50),
                                            ("cublasLt.h", 45)])
def test_declared_functions_are_exported(exported: set[str], header: str, minimum: int) -> None:
    if header == "cublasLt.h":
        names = {n for n in declared(header) if n.startswith("cublasLt")} - LT_INLINE
    else:
        names = {n for n in declared(header) if not n.startswith("cublasLt")}
    assert len(names) >= minimum, len(names)
    missing = sorted(names - exported)
    assert not missing, missing


def test_v2_names_map_to_exports(exported: set[str]) -> None:
    text = (include_dir() / "cublas_v2.h").read_text()
    pairs = re.findall(r"^#define (cublas\w+) (cublas\w+)$", text, re.M)
    assert len(pairs) > 250
    missing = sorted(target for _, target in pairs if target not in exported)
    assert not missing, missing
    # the 64-bit names map to the _v2_64 exports
    assert ("cublasSgemm_64", "cublasSgemm_v2_64") in pairs and ("cublasIzamin_64", "cublasIzamin_v2_64") in pairs
