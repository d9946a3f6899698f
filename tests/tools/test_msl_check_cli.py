"""msl_check's command line with inputs a new user gives it (issue #10's tools review, found by the
#10 audit of 2026-11-25): a binary file is one line naming it, an MSL version it does not know is a
usage error, and a reader that goes away (`msl_check a.metal | head`) ends it quietly. Each of
these was a Python traceback before."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.tools.cumetalc import main as cumetalc

ROOT = Path(__file__).resolve().parents[2]
CMD = [sys.executable, "-m", "cumetal.tools.msl_check"]


def _tool(*argv: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([*CMD, *argv], capture_output=True, text=True, timeout=300, **kw)


def test_binary_input_is_one_line_not_a_traceback(tmp_path):
    blob = tmp_path / "k.metallib"
    blob.write_bytes(b"MTLB\x01\x80\x02\x00" + bytes(range(256)) * 4)
    proc = _tool(str(blob))
    assert proc.returncode == 1
    assert proc.stderr.splitlines() == [f"msl_check: {blob}: not MSL text (byte 0x80 at offset 5 is not UTF-8)"]


def test_unknown_msl_version_is_a_usage_error(tmp_path):
    src = tmp_path / "k.metal"
    src.write_text("kernel void k() {}\n")
    proc = _tool("--msl", "abc", str(src))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "invalid choice: 'abc'" in proc.stderr


def test_closed_pipe_ends_quietly(tmp_path):
    pytest.importorskip("ziglang")  # the checker's clang
    metal = tmp_path / "vadd.metal"
    assert cumetalc([str(ROOT / "examples/vector_add.ptx"), "--emit=msl", "-o", str(metal)]) == 0
    r, w = os.pipe()
    os.close(r)  # every write of the tool now fails with EPIPE
    try:
        proc = subprocess.run([*CMD, str(metal)], stdout=w, stderr=subprocess.PIPE, text=True, timeout=300)
    finally:
        os.close(w)
    assert "Traceback" not in proc.stderr and "BrokenPipeError" not in proc.stderr, proc.stderr
    assert proc.returncode == 141
