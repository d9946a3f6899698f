"""The sm_100 tensor-copy modes (tile::gather4/scatter4, im2col::w, im2col::w::128) on the numpy engine,
the compiled CPU backend and air-sim (the legalizer's loops, which the Metal paths share), each in its
own interpreter (sm100_modes_cases.py); every kernel's PTX is accepted by NVIDIA's ptxas for sm_100a.
No GPU of ours runs sm_100 instructions: the references are the PTX ISA's rules (see the cases file)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CASES = "tests/async_ops/sm100_modes_cases.py"


def _run(env_extra: dict[str, str]) -> subprocess.CompletedProcess:
    env = dict(os.environ, **env_extra)
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", CASES], cwd=ROOT,
                          env=env, capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("engine", [{"CUMETAL_CPU_ENGINE": "numpy"}, {"CUMETAL_BACKEND": "cpu-jit"},
                                    {"CUMETAL_BACKEND": "air-sim"}], ids=lambda e: "-".join(e.values()))
def test_sm100_tensor_modes_match_the_isa(engine: dict[str, str], tmp_path) -> None:
    proc = _run({**engine, "SM100_PTX_DIR": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert " passed" in proc.stdout and "skipped" not in proc.stdout and "failed" not in proc.stdout
    ptxas = shutil.which("ptxas")
    if ptxas is None or engine.get("CUMETAL_CPU_ENGINE") != "numpy":
        return
    files = sorted(tmp_path.glob("*.ptx"))
    assert len(files) >= 10
    for f in files:  # the forms are real: NVIDIA's assembler takes every kernel for sm_100a
        asm = subprocess.run([ptxas, "-arch=sm_100a", str(f), "-o", os.devnull], capture_output=True, text=True,
                             timeout=120)
        assert asm.returncode == 0, f"{f.name}: {asm.stderr}"
