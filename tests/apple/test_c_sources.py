"""The simulators' C/C++ sources are real files with their own syntax check (issue #10): the
air-sim runtime (C, gcc) and msl-sim's MSL header (C++14, g++), each with the generated codes
header, warnings as errors for the kinds that hide bugs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import cumetal
from cumetal.backends.common import codes

BACKENDS = Path(cumetal.__file__).resolve().parent / "backends"


def _check(cmd: list[str]) -> None:
    if shutil.which(cmd[0]) is None:
        pytest.skip(f"{cmd[0]} not installed")
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr


def test_air_sim_runtime_compiles():
    _check(["gcc", "-fsyntax-only", "-std=gnu11", "-Werror=implicit-function-declaration", "-Werror=int-conversion",
            "-I", str(codes.HEADER.parent), str(BACKENDS / "air" / "sim" / "runtime.c")])


def test_msl_sim_header_compiles(tmp_path):
    src = tmp_path / "t.cpp"
    src.write_text('#include "cumetal_msl_sim.h"\n')
    _check(["g++", "-fsyntax-only", "-std=c++14", "-Wno-attributes", "-I", str(BACKENDS / "msl" / "sim"),
            "-I", str(codes.HEADER.parent), str(src)])
