"""Native launches from C (capi/csrc/cm_native_launch.c, devices/native_launch.py): a C program's
repeated launches are enqueued without Python, and everything a launch means stays the same —
results, the order against copies, events and other streams, stream capture, configuration errors,
and a fault reported at the next synchronisation (then sticky). The program runs with the native path
on and off; the two outputs must be the same and right, and the native run must have used the path."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.capi.build import build_program

SRC = Path(__file__).with_name("src") / "native_launch.cu"
DRIVER_SRC = Path(__file__).with_name("src") / "native_launch_driver.c"
pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux") or shutil.which("cc") is None,
                                reason="needs Linux and a C compiler")


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("native") / "native_launch"
    build_program([str(SRC)], str(exe))
    return exe


@pytest.fixture(scope="module")
def driver_program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    exe = tmp_path_factory.mktemp("native") / "native_launch_driver"
    build_program([str(DRIVER_SRC)], str(exe))
    return exe


def _run(exe: Path, mode: str, native: bool, **extra_env: str) -> tuple[str, int]:
    env = dict(os.environ, CUMETAL_BACKEND="cpu-jit", CUMETAL_NATIVE_LAUNCH="1" if native else "0",
               CUMETAL_NATIVE_LAUNCH_REPORT="1", **extra_env)
    proc = subprocess.run([str(exe), mode], capture_output=True, text=True, env=env, timeout=300, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    found = re.search(r"cumetal: (\d+) launches enqueued natively", proc.stderr)
    return proc.stdout, int(found.group(1)) if found else 0


def _wanted(line: str) -> tuple[str, str]:
    got, want = re.search(r"([-\d.]+) \(want ([-\d.]+)\)", line).groups()  # type: ignore[union-attr]
    return got, want


def test_many_launches_on_several_streams_match_the_python_path(program: Path) -> None:
    native_out, native_count = _run(program, "work", native=True)
    python_out, python_count = _run(program, "work", native=False)
    assert native_out == python_out
    assert python_count == 0 and native_count >= 100, native_count  # most of the ~600 launches
    lines = native_out.splitlines()
    assert lines[-1] == "done"
    for line in lines:
        if "(want" in line:
            got, want = _wanted(line)
            assert got == want, line
    # axpy: y = 1 + 50 * 0.125 * x, exactly representable
    assert "axpy: y[3] 10.375000 y[255] 797.875000" in lines
    assert [ln for ln in lines if ln.startswith("say")] == [f"say {k}: a[0] = {10 * (k + 1)}" for k in range(4)]


def test_a_natively_enqueued_launch_that_faults_is_reported_at_the_next_sync(program: Path) -> None:
    out, count = _run(program, "fault", native=True)
    assert count >= 1  # the faulting launch has the key of the launches before it: enqueued natively
    assert "fault: launch 0, sync 700 (want 700), sticky 700" in out, out
    # a natively enqueued launch that never ends: the watchdog ends it, reported at the sync
    out, count = _run(program, "watchdog", native=True, CUMETAL_WATCHDOG_SECONDS="0.3")
    assert count >= 1 and "watchdog: sync 702 (want 702)" in out, out


def test_driver_api_launches_match_the_python_path(driver_program: Path) -> None:
    native_out, native_count = _run(driver_program, "work", native=True)
    python_out, _ = _run(driver_program, "work", native=False)
    assert native_out == python_out and native_out.splitlines()[-1] == "done", native_out
    assert native_count >= 50, native_count
    for line in native_out.splitlines():
        if "(want" in line:
            got, want = _wanted(line)
            assert got == want, line
    out, count = _run(driver_program, "fault", native=True)
    assert count >= 1 and "fault: launch 0, sync 700 (want 700)" in out, out
