"""air-sim and msl-sim under CUMETAL_FP64=emulate give the very bits of the emulation's reference
(the legalized IR on the cpu engine, whose f32/integer primitives are their reference definitions),
so the accuracy measured in test_accuracy.py is the backends' too; and their code holds no double."""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
from tests.fp64.accuracy import random_f64
from tests.fp64.ir_kernels import emulated_on_reference, kernel, kernels, run
from tests.fp64.test_exact import f64_operands

from cumetal.backends.air.sim import launch_air
from cumetal.backends.msl.sim.device_launch import launch as launch_msl

N = 256
RNG = np.random.default_rng(5)
CASES = [("fadd", "f64", 2, {"rnd": "rn"}), ("fsub", "f64", 2, {"rnd": "rz"}), ("fmul", "f64", 2, {"rnd": "rn"}),
         ("fdiv", "f64", 2, {"rnd": "rn"}), ("fma", "f64", 3, {"rnd": "rp"}), ("fsqrt", "f64", 1, {"rnd": "rn"}),
         ("fcvt", "f32", 1, {"rnd": "rn"}), ("f2i", "i32", 1, {"signed": True, "rnd": "rz"}),
         ("frint", "f64", 1, {"rnd": "rn"}), ("fcmp", "i1", 2, {"cond": "olt"}),
         ("fmax", "f64", 2, {"nan": "num"})]


def _inputs(n_args: int) -> list[np.ndarray]:
    out = []
    for k in range(n_args):
        x = random_f64(RNG, N, -200, 200).view(np.uint64)
        x[:64] = f64_operands(64) if k == 0 else np.roll(f64_operands(64), k)
        out.append(x)
    return out


NAMES = [f"{c[0]}_{c[1]}" for c in CASES]
MODULE = kernels({n: (op, dst, ("f64",) * k, attrs) for n, (op, dst, k, attrs) in zip(NAMES, CASES, strict=True)})


@pytest.fixture
def emulate_env(monkeypatch):
    monkeypatch.setenv("CUMETAL_FP64", "emulate")


@pytest.mark.parametrize("backend", ["air-sim", "msl-sim"])
@pytest.mark.parametrize(("name", "case"), zip(NAMES, CASES, strict=True), ids=NAMES)
def test_backend_equals_the_emulation_reference(backend, name, case, emulate_env):
    _op, dst, n, _attrs = case
    width = {"f64": 8, "f32": 4, "i32": 4, "i1": 1}[dst]
    inputs = _inputs(n)
    want = emulated_on_reference(MODULE, inputs, width, name)
    if backend == "air-sim":
        got = run(launch_air, MODULE, inputs, width, name)
    else:
        got = run(launch_msl, MODULE, inputs, width, name, fp64="emulate")
    bad = np.flatnonzero(want != got)
    assert bad.size == 0, (f"{backend}: {bad.size} of {N} differ; first: operands "
                           + ", ".join(f"0x{int(x[bad[0]]):x}" for x in inputs)
                           + f" -> reference 0x{int(want[bad[0]]):x}, {backend} 0x{int(got[bad[0]]):x}")


def _llvm_text(bitcode: bytes, tmp_path) -> str:
    dis = shutil.which("llvm-dis-14")
    if dis is None:
        pytest.skip("llvm-dis-14 not installed")
    (tmp_path / "k.bc").write_bytes(bitcode)
    return subprocess.run([dis, str(tmp_path / "k.bc"), "-o", "-"], capture_output=True, text=True,
                          check=True).stdout.split("\n", 1)[1]  # past '; ModuleID = <path>'


def test_no_double_reaches_either_backend(tmp_path):
    from cumetal.backends.air.lower import kernel_bitcode
    from cumetal.backends.msl import emit_module

    module = kernel("fma", "f64", ("f64",) * 3, {"rnd": "rn"})
    assert "double" not in emit_module(module, fp64="emulate").source
    assert "double" in emit_module(module, fp64="native").source
    assert "double" not in _llvm_text(kernel_bitcode(module, "k", fp64="emulate"), tmp_path)
    assert "double" in _llvm_text(kernel_bitcode(module, "k", fp64="native"), tmp_path)
