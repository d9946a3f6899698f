"""fp64 on the .metallib path (issue 11): Apple GPUs reject double, so the AIR path emulates f64 by
default (passes/legalize/fp64: no double in the bitcode); native doubles only when asked for; kernels
whose f64 code cannot be emulated are named with the instruction (backends/air/fp64_check.py)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from cumetal.backends.air.fp64_check import (
    AirFp64Error,
    emulation_refusals,
    f64_diagnostics,
    fp64_mode,
    refuse_f64,
)
from cumetal.backends.air.lower import AirLoweringError, kernel_bitcode
from cumetal.ir import nodes as N
from cumetal.passes import compile_ptx

KERNELS = Path(__file__).resolve().parents[1] / "functional" / "kernels"


@pytest.fixture(scope="module")
def arithmetic():
    path = KERNELS / "arithmetic.ptx"
    return compile_ptx(path.read_text(), str(path))


def _llvm_text(bitcode: bytes, tmp_path: Path) -> str:
    dis = shutil.which("llvm-dis-14")
    if dis is None:
        pytest.skip("llvm-dis-14 not installed")
    f = tmp_path / "k.bc"
    f.write_bytes(bitcode)
    out = subprocess.run([dis, str(f), "-o", "-"], capture_output=True, text=True, check=True).stdout
    return out.split("\n", 1)[1]  # past '; ModuleID = <path>'


def test_f64_kernels_are_named_with_their_first_f64_instruction(arithmetic):
    found = f64_diagnostics(arithmetic)
    assert "daxpy_sqrt" in found
    assert found["daxpy_sqrt"].startswith(f"{KERNELS / 'arithmetic.ptx'}:")
    assert "kernel 'daxpy_sqrt' uses f64: 'ld.param.f64'" in found["daxpy_sqrt"]
    assert "--fp64=emulate" in found["daxpy_sqrt"]
    assert all("f64" not in k for k in found) and "saxpy" not in found


def test_emulated_bitcode_has_no_double_native_has(arithmetic, tmp_path):
    emulated = _llvm_text(kernel_bitcode(arithmetic, "daxpy_sqrt", fp64="emulate"), tmp_path)
    native = _llvm_text(kernel_bitcode(arithmetic, "daxpy_sqrt", fp64="native"), tmp_path)
    assert "double" in native and "double" not in emulated
    assert "fma" in emulated and "i64" in emulated


def test_everything_in_the_functional_kernels_emulates(arithmetic):
    assert emulation_refusals(arithmetic) == {}
    refuse_f64(arithmetic, "emulate")  # nothing refused
    refuse_f64(arithmetic, "native")
    with pytest.raises(ValueError, match="must be one of native, emulate, warn"):
        refuse_f64(arithmetic, "refuse")


def _unemulatable() -> N.Module:
    """A kernel with an f64 operation no rule emulates (fapprox sin on f64: PTX has none)."""
    fn = N.Function("k", "kernel")
    x = fn.new_var("f64")
    y = fn.new_var("f64")
    fn.blocks.append(N.Block("entry", [
        N.Inst("mov", (x,), (N.Const.float("f64", 1.0),)),
        N.Inst("fapprox", (y,), (x,), {"fn": "sin"}, text="sin.approx.f64 %fd2, %fd1"),
        N.Inst("ret")]))
    return N.Module("sin64.ptx", kernels={"k": fn})


def test_an_f64_operation_without_emulation_is_named_per_kernel():
    m = _unemulatable()
    found = emulation_refusals(m)
    assert list(found) == ["k"] and "f64 fapprox 'sin' has no emulation" in found["k"]
    with pytest.raises(AirFp64Error, match="kernel 'k'"):
        refuse_f64(m, "emulate")
    with pytest.raises(AirLoweringError, match="sin.approx.f64"):
        kernel_bitcode(m, "k", fp64="emulate")


def test_mode_from_the_environment(monkeypatch, capsys):
    monkeypatch.delenv("CUMETAL_FP64", raising=False)
    assert fp64_mode() == "native" and fp64_mode("emulate") == "emulate"
    monkeypatch.setenv("CUMETAL_FP64", "emulate")
    assert fp64_mode() == "emulate"
    monkeypatch.setenv("CUMETAL_FP64", "quad")
    assert fp64_mode("emulate") == "emulate" and "CUMETAL_FP64='quad'" in capsys.readouterr().err
