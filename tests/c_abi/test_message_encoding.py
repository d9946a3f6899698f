"""CuMetal's messages from a compiled program (the embedded Python's stderr) are UTF-8 when the
process's locale asks for it (LC_ALL, else LC_CTYPE, else LANG), and ASCII with escapes otherwise —
the host program's own locale is never changed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

SRC = Path(__file__).with_name("src") / "utf8_message.cu"


@pytest.fixture(scope="module")
def program(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from cumetal.capi.build import build_program  # noqa: PLC0415

    exe = tmp_path_factory.mktemp("utf8") / "utf8_message"
    build_program([str(SRC)], str(exe), libraries=["cublas", "cublasLt"])
    return exe


def _stderr(exe: Path, **locale: str) -> str:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LC_") and k != "LANG" and k != "CUMETAL_QUIET"}
    env.update(locale, CUMETAL_BACKEND="cpu")
    proc = subprocess.run([str(exe)], capture_output=True, timeout=300, env=env, check=False)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stderr.decode("utf-8")


@pytest.mark.parametrize("locale", [{"LANG": "C.UTF-8"}, {"LC_ALL": "en_US.utf8", "LANG": "C"},
                                    {"LC_CTYPE": "C.UTF-8"}])
def test_utf8_locale_prints_utf8(program: Path, locale: dict[str, str]) -> None:
    err = _stderr(program, **locale)
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in err and "\u2014" in err and "\\u2014" not in err, err


@pytest.mark.parametrize("locale", [{"LANG": "C"}, {"LC_ALL": "C", "LANG": "C.UTF-8"}, {}])
def test_other_locales_escape(program: Path, locale: dict[str, str]) -> None:
    err = _stderr(program, **locale)
    assert "CUBLAS_STATUS_NOT_SUPPORTED" in err and "\\u2014" in err, err
