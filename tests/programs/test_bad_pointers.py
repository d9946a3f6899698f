"""Bad pointers from C get CUDA's error codes, a message naming the call, and never a crash.

``src/bad_pointers.cu`` probes 36 calls with NULL outputs, freed device pointers, pageable host
pointers where device memory is due, sizes past an allocation's end, non-kernels and non-symbols;
the same source built by nvcc ran on an H100 with CUDA 13 and its answers are
``data/bad_pointers.h100.txt`` (``scripts/make_bad_pointer_goldens.sh``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from cumetal.capi.build import build_program
from cumetal.cudacxx.options import CudaOptions

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "data" / "bad_pointers.h100.txt"


def _answers(text: str) -> dict[str, str]:
    """probe name -> the rest of its line (error code, and the memory type where printed)."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#") and " " in line and not line.startswith("bad_pointers:"):
            name, rest = line.split(" ", 1)
            out[name] = rest
    return out


def test_bad_pointers_get_cudas_codes(programs_dir: Path) -> None:
    exe = programs_dir / "bad_pointers"
    build_program([HERE / "src" / "bad_pointers.cu"], exe, CudaOptions())
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON") and k != "CUMETAL_QUIET"}
    env["CUMETAL_BACKEND"] = "cpu"
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0 and "bad_pointers: DONE" in proc.stdout, proc.stdout + proc.stderr
    ours, cuda = _answers(proc.stdout), _answers(GOLDEN.read_text())
    assert len(cuda) == 37 and ours.keys() == cuda.keys()
    differ = {k: (ours[k], cuda[k]) for k in cuda if ours[k] != cuda[k]}
    assert not differ, f"CuMetal vs CUDA 13 on an H100: {differ}"
    # each refusal is explained on stderr, naming the call
    for call in ("cudaMalloc", "cudaMemcpy", "cudaMemset", "cudaFree", "cudaHostUnregister", "cudaLaunchKernel"):
        assert f"cumetal: {call}: cuda" in proc.stderr, call
