"""Initialized module variables as ptxas lays them out (#10 audit): an unsized first dimension takes
the number of top-level elements (``a[] = {1, 2, 3}`` was a LoweringError traceback from cumetalc
and CUDA_ERROR_UNKNOWN from cuModuleLoadData, though ptxas accepts it); values fill the variable in
order, nested braces only grouping them; more values than the variable holds is a located error.

Truth: the bytes of ptxas 13.0's ``.nv.global.init`` section for each declaration (recorded below;
re-read from ptxas itself when it is installed)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from tests.ptx.test_corpus_roundtrip import elf_sections

from cumetal import driver as cu
from cumetal.ptx import parse

HEAD = ".version 8.0\n.target sm_80\n.address_size 64\n"
# declaration -> ptxas 13.0's .nv.global.init words (u32) for it (sm_80)
LAYOUTS = {
    ".global .u32 m[] = {1, 2, 3};": [1, 2, 3],
    ".global .u32 m[][2] = {{1, 2}, {3, 4}, {5, 6}};": [1, 2, 3, 4, 5, 6],
    ".global .u32 m[][2] = {{1}, {3, 4}, {5}};": [1, 3, 4, 5, 0, 0],
    ".global .u32 m[2][2] = {{1}, {3, 4}};": [1, 3, 4, 0],
    ".global .u32 m[2][2][2] = {{{1}, {2, 3}}, {{4}}};": [1, 2, 3, 4, 0, 0, 0, 0],
    ".global .v2 .u32 m[] = {{1, 2}, {3, 4}, {5, 6}};": [1, 2, 3, 4, 5, 6],
    ".global .u32 m[4] = {7, 8};": [7, 8, 0, 0],
}


def _kernel(decl: str) -> str:
    return HEAD + decl + ("\n.visible .entry k(.param .u64 o)\n{\n  .reg .b64 %rd<3>;\n  ld.param.u64 %rd1, [o];\n"
                          "  mov.u64 %rd2, m;\n  st.global.u64 [%rd1], %rd2;\n  ret;\n}\n")


def _ptxas_layout(decl: str, tmp: Path) -> list[int] | None:
    ptxas = os.environ.get("PTXAS") or shutil.which("ptxas")
    if ptxas is None:
        return None
    (tmp / "m.ptx").write_text(_kernel(decl))
    proc = subprocess.run([ptxas, "-arch=sm_80", str(tmp / "m.ptx"), "-o", str(tmp / "m.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return np.frombuffer(elf_sections((tmp / "m.cubin").read_bytes())[".nv.global.init"], np.uint32).tolist()


@pytest.mark.parametrize("decl", list(LAYOUTS))
def test_initialized_variable_is_laid_out_as_ptxas_does(decl, driver_context, tmp_path):
    want = LAYOUTS[decl]
    from_ptxas = _ptxas_layout(decl, tmp_path)
    if from_ptxas is not None:
        assert from_ptxas == want
    err, mod = cu.cuModuleLoadData(_kernel(decl).encode())
    assert err == 0, cu.last_error_message()
    err, ptr, size = cu.cuModuleGetGlobal(mod, b"m")
    assert err == 0 and size == 4 * len(want)
    got = np.zeros(len(want), np.uint32)
    cu.cuMemcpyDtoH(got, ptr, size)
    assert got.tolist() == want
    cu.cuModuleUnload(mod)


@pytest.mark.parametrize("decl,count,capacity", [
    (".global .b8 x[4] = {1, 2, 3, 4, 5};", 5, 4),
    (".global .u32 x[2][2] = {{1, 2}, {3, 4}, {5, 6}};", 6, 4),
    (".global .v2 .u32 x[1] = {{1, 2}, {3, 4}};", 4, 2),
    (".global .u32 x = {1, 2};", 2, 1),
])
def test_too_many_values_is_a_located_error(decl, count, capacity, driver_context):
    res = parse(HEAD + decl + "\n.visible .entry k() { ret; }\n", "x.ptx")
    [d] = res.diagnostics
    assert d.severity == "error" and (d.loc.line, d.loc.col) == (4, decl.index("=") + 1)
    assert d.message == f"initializer of 'x' has {count} values, more than the {capacity} the variable holds"
    err, _ = cu.cuModuleLoadData((HEAD + decl + "\n.visible .entry k() { ret; }\n").encode())
    assert err == cu.CUresult.CUDA_ERROR_INVALID_PTX  # was CUDA_ERROR_UNKNOWN (an internal LoweringError)


def test_an_open_inner_dimension_is_refused():
    res = parse(HEAD + ".global .u32 x[2][] = {{1}, {2}};\n", "x.ptx")
    assert [d.message for d in res.diagnostics] == [
        "'x': only the first dimension of an initialized array may be left open"]


@pytest.mark.parametrize("typ", ["f16", "bf16", "f16x2", "pred"])
def test_types_ptxas_gives_no_initial_value_are_a_located_error(typ, driver_context):
    """ptxas 13.0 refuses these ("No initial value is allowed for .f16 type", "Initial value type
    mismatch"); `.f16 x = 1e10` was an OverflowError traceback (struct.pack '<e')."""
    text = HEAD + f".global .{typ} x = 1e10;\n.visible .entry k() {{ ret; }}\n"
    [d] = parse(text, "x.ptx").diagnostics
    assert d.severity == "error" and d.message.startswith(f"'x': a .{typ} variable cannot have an initial value")
    assert cu.cuModuleLoadData(text.encode())[0] == cu.CUresult.CUDA_ERROR_INVALID_PTX
