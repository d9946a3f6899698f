"""``-rdc=true`` executables whose device functions live in a translation unit that registers nothing
(no kernel, no device variable): clang then embeds no device code in its host object, and the device
link, which finds each unit's bitcode by scanning the objects, lost it ("calls '_Z5twicef', which has
no body" at the first launch). Built the three ways nvcc users do: one step, ``-dc`` objects, and
the device-only unit in a static library named by ``-L``/``-l`` (nvlink reads those too)."""

from __future__ import annotations

import os
import pathlib
import shutil
import subprocess
import sys

import pytest

SRC = pathlib.Path(__file__).with_name("programs_rdc")


def _cumetalc(*args: str, cwd: pathlib.Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", *args], cwd=cwd, capture_output=True,
                          text=True, timeout=600, check=False)
    assert proc.returncode == 0, proc.stderr


def _passes(exe: pathlib.Path) -> None:
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=300, check=False,
                          env=dict(os.environ, CUMETAL_BACKEND="cpu"))
    assert proc.returncode == 0 and "rdc-device-only: PASS" in proc.stdout, proc.stdout + proc.stderr


def test_device_only_unit_linked_in_one_step_from_objects_and_from_an_archive(tmp_path):
    main, shapes = str(SRC / "main.cu"), str(SRC / "shapes.cu")
    _cumetalc("-rdc=true", main, shapes, "-o", "one_step", cwd=tmp_path)
    _passes(tmp_path / "one_step")
    _cumetalc("-dc", main, "-o", "main.o", cwd=tmp_path)
    _cumetalc("-dc", shapes, "-o", "shapes.o", cwd=tmp_path)
    _cumetalc("main.o", "shapes.o", "-o", "from_objects", cwd=tmp_path)
    _passes(tmp_path / "from_objects")
    if shutil.which("ar") is None:
        pytest.skip("no ar to make the static library")
    subprocess.run(["ar", "rcs", "libshapes.a", "shapes.o"], cwd=tmp_path, check=True, timeout=60)
    _cumetalc("main.o", "-L.", "-lshapes", "-o", "from_archive", cwd=tmp_path)
    _passes(tmp_path / "from_archive")
