"""A new user's program touring the CUDA dialect features that the other tests check only in pieces
(tests/cudacxx/programs_newuser/dialect.cu, built once with ``cumetalc -std=c++20 x.cu -o x`` and run on
the cpu, air-sim and msl-sim backends); every printed value is recomputed here in Python."""

from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

SOURCE = pathlib.Path(__file__).with_name("programs_newuser") / "dialect.cu"


def _expected() -> list[str]:
    x = [float(i) * 3.0 + i % 3 for i in range(100)]
    gc = [0.5 * i + [10, 20, 30, 40][i % 4] for i in range(16)]
    asm = [(t * (t + 3) + 7) & 0xFFFFFFFF for t in range(32)]
    heap = [sum(k * k for k in range(t + 1)) for t in range(32)]
    return [f"lambda {x[0]:g} {x[1]:g} {x[99]:g}",
            f"grid_constant {gc[5]:g} {gc[15]:g} managed 2",
            f"asm {asm[0]} {asm[31]}",
            f"new[] {heap[0]} {heap[31]} cudaSuccess",
            f"c++20 {2 + 3 + 4 + 27} {bin(0xF0F0).count('1')} 128 42"]  # 2.0f: biased exponent 128


@pytest.fixture(scope="module")
def exe(tmp_path_factory: pytest.TempPathFactory) -> pathlib.Path:
    out = tmp_path_factory.mktemp("dialect") / "dialect"
    build = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "-std=c++20", str(SOURCE), "-o", str(out)],
                           capture_output=True, text=True, timeout=600, check=False)
    assert build.returncode == 0, build.stderr
    return out


@pytest.mark.parametrize("backend", ["cpu", "air-sim", "msl-sim"])
def test_dialect_tour_prints_what_python_computes(exe, backend):
    run = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False,
                         env=dict(os.environ, CUMETAL_BACKEND=backend))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines() == _expected()
