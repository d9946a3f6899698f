"""msl-sim's g++ runs under a time limit, and the whole compiler (g++ and its cc1plus child) is
killed when the wait ends early: a test's timeout used to leave cc1plus compiling a 14 MB module
for minutes after pytest had ended."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import cumetal.backends.msl.sim.launcher as launcher


def test_gxx_time_limit_is_a_clear_error_and_kills_the_compiler(monkeypatch, tmp_path):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    # a stand-in "g++" that starts a child (as g++ starts cc1plus) and outlives the time limit
    fake = tmp_path / "slow-cxx"
    pid_file = tmp_path / "child.pid"
    fake.write_text(f"#!/bin/sh\nsleep 300 &\necho $! > {pid_file}\nwait\n")
    fake.chmod(0o755)
    monkeypatch.setenv("CXX", str(fake))
    monkeypatch.setattr(launcher, "GXX_TIMEOUT_S", 1.0)
    with pytest.raises(launcher.SimCompileError, match=r"g\+\+ did not finish compiling .* within 1 s"):
        launcher._compile("int main() { return 0; }\n")
    child = int(pid_file.read_text())
    deadline = time.monotonic() + 10
    while _alive(child) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(child), "the compiler's child process outlived the time limit"


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"  # a zombie has ended
