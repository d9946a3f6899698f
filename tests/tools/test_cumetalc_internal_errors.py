"""cumetalc never ends in a Python traceback (#10 audit: `.global .f32 x = 1e300;`, legal PTX, made the
lowering's struct.pack raise OverflowError through cumetalc): a located lowering refusal of a module
declaration prints as FILE:LINE:COL, anything else as one 'internal error' line (CUMETAL_DEBUG=1
re-raises), exit status 1 — as the driver answers CUDA_ERROR_UNKNOWN."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

import cumetal.passes as passes
from cumetal.passes.context import LoweringError
from cumetal.ptx.ast import SourceLoc
from cumetal.tools.cumetalc import main

VADD = Path(__file__).resolve().parents[2] / "examples/vector_add.ptx"


def _run(*argv: str) -> tuple[int, str]:
    err = io.StringIO()
    code = main(list(argv), out=io.StringIO(), err=err)
    return code, err.getvalue()


def test_an_unexpected_exception_is_one_line(monkeypatch, tmp_path):
    def boom(*_a, **_k):
        raise OverflowError("float too large to pack with f format")

    monkeypatch.setattr(passes, "lower_parsed", boom)
    monkeypatch.delenv("CUMETAL_DEBUG", raising=False)
    code, err = _run(str(VADD), "-o", str(tmp_path / "v.metallib"))
    assert code == 1 and not (tmp_path / "v.metallib").exists()
    assert err.splitlines() == ["cumetalc: internal error: OverflowError: float too large to pack with f format "
                                "(please report it; CUMETAL_DEBUG=1 shows the traceback)"]
    monkeypatch.setenv("CUMETAL_DEBUG", "1")
    with pytest.raises(OverflowError):
        _run(str(VADD), "--emit=ir")


def test_a_located_lowering_refusal_is_a_diagnostic(monkeypatch):
    def refuse(*_a, **_k):
        raise LoweringError("unsupported variable type .foo", SourceLoc(str(VADD), 4, 1))

    monkeypatch.setattr(passes, "lower_parsed", refuse)
    code, err = _run(str(VADD), "--emit=ir")
    assert code == 1 and err == f"{VADD}:4:1: error: unsupported variable type .foo\n"
