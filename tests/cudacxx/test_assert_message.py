"""A failed device ``assert`` prints what nvcc's does on an H100, function name included
(``void ns::inner(int)``, the ``__PRETTY_FUNCTION__`` form; musl's assert.h gave the bare name), and
the launch fails with cudaErrorAssert. Record: ``scripts/h100_cxx_audit/run.sh`` (nvcc 13, H100),
``scripts/h100_cxx_audit/h100/assert_message.txt``."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
AUDIT = ROOT / "scripts" / "h100_cxx_audit"


def test_assert_message_names_the_function_as_nvcc_does(tmp_path):
    exe = tmp_path / "assert_message"
    build = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", str(AUDIT / "assert_message.cu"), "-o",
                            str(exe)], capture_output=True, text=True, timeout=600, check=False)
    assert build.returncode == 0, build.stderr
    got = []
    for which in "012":
        run = subprocess.run([str(exe), which], capture_output=True, text=True, timeout=300, check=False,
                             env=dict(os.environ, CUMETAL_BACKEND="cpu"))
        got += run.stdout.splitlines()
    want = (AUDIT / "h100" / "assert_message.txt").read_text().splitlines()
    strip = re.compile(r"^\S*assert_message\.cu:")  # the path each compiler was given
    got, want = [strip.sub("assert_message.cu:", g) for g in got], [strip.sub("assert_message.cu:", w) for w in want]
    assert len(got) == len(want) == 7, got
    for g, w in zip(got, want, strict=True):
        if "Box" in w:  # a template: clang writes "Box<float>::check(T) [T = float]", EDG "Box<T>::check(T) [with T = float]"
            g, w = (re.sub(r"static void Box<\w+>::check\(T\) \[(with )?T = float\]", "Box::check", x) for x in (g, w))
        assert g == w
