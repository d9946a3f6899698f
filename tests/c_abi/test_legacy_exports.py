"""Legacy Driver API names (capi/legacy_driver.py: one table for the generated C and the bridge):
the generated C file is up to date, libcumetal exports every name of the table, and a program of
our own that uses them (the CUDA 3.x launch, _v2 entry points, pitched 2D memset, limits, legacy
properties, PCI ids, a refused texture reference) computes what host arithmetic says."""

from __future__ import annotations

import ctypes
import os
import subprocess
from pathlib import Path

from cumetal.capi import legacy_driver
from cumetal.capi.build import build_program
from cumetal.capi.library import library_path
from cumetal.cudacxx.options import CudaOptions

SRC = Path(__file__).resolve().parents[1] / "programs" / "src"


def test_generated_c_is_up_to_date() -> None:
    path = Path(legacy_driver.__file__).parent / "csrc" / "cm_driver_legacy.c"
    assert path.read_text() == legacy_driver.c_source(), "run: python -m cumetal.capi.legacy_driver"


def test_every_table_name_is_exported() -> None:
    lib = ctypes.CDLL(str(library_path()))
    missing = [n for n in legacy_driver.exported_names() if not hasattr(lib, n)]
    assert not missing, missing
    # the names NVIDIA's matrixMulDynlinkJIT looks up that libcumetal lacked before the table
    for name in ("cuCtxCreate_v2", "cuCtxAttach", "cuParamSetv", "cuLaunchGrid", "cuMemAllocPitch_v2",
                 "cuTexRefSetAddress2D_v3", "cuDeviceGetProperties", "cuMemsetD2D8_v2"):
        assert name in legacy_driver.BY_NAME


def test_legacy_driver_program(tmp_path: Path) -> None:
    exe = tmp_path / "legacy_driver"
    build_program([SRC / "legacy_driver.c"], exe, CudaOptions(include_dirs=[str(SRC)]), libraries=["cuda"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")} | {"CUMETAL_BACKEND": "cpu"}
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0 and "legacy_driver: PASS" in proc.stdout, proc.stdout + proc.stderr
    assert "cuTexRefCreate: CUDA_ERROR_NOT_SUPPORTED: texture and surface references" in proc.stderr
