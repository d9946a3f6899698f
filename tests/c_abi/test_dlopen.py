"""libcumetal loaded by the program itself with dlopen(RTLD_LOCAL), as programs that open
"libcuda.so.1" at run time do (NVIDIA's matrixMulDynlinkJIT, the opt-in shim): Python's extension
modules need libpython's symbols, which libcumetal makes global before it starts the interpreter."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.capi.library import library_path

SRC = Path(__file__).with_name("src") / "dlopen_local.c"


@pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("cc") is None, reason="needs Linux and cc")
def test_a_program_that_dlopens_the_library_locally(tmp_path: Path) -> None:
    exe = tmp_path / "dlopen_local"
    subprocess.run(["cc", str(SRC), "-o", str(exe), "-ldl"], check=True, timeout=120)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"CUMETAL_BACKEND": "cpu"}
    proc = subprocess.run([str(exe), str(library_path())], capture_output=True, text=True, timeout=300, env=env,
                          check=False)
    assert proc.returncode == 0 and "devices 1" in proc.stdout, proc.stdout + proc.stderr
