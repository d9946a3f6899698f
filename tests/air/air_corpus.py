"""The .metallib of every PTX corpus file, lowered once per test session and shared by the tests
that judge it (test_lower_corpus.py: air_validate; test_air_verify.py: LLVM 14's verifier on every
module). Lowering the whole corpus is most of their cost (about 45 s on a quiet 2-core machine),
so it is paid once, not once per test."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path

from cumetal.backends.air.lower import AirLoweringError, compile_metallib
from cumetal.passes import compile_ptx

CORPUS = Path(__file__).resolve().parents[1] / "corpus" / "ptx"
FILES = sorted(CORPUS.rglob("*.ptx"))


@dataclass(frozen=True)
class CorpusMetallib:
    path: Path
    data: bytes | None  # the .metallib; None when the lowering refused the module
    refusal: str = ""  # the AirLoweringError's text when refused


@cache
def corpus_metallibs() -> tuple[CorpusMetallib, ...]:
    """One entry per corpus file the front end compiles and that has kernels (front-end failures
    are the front end's tests' business)."""
    out = []
    for path in FILES:
        try:
            module = compile_ptx(path.read_text(errors="replace"), str(path))
        except Exception:
            continue
        if not module.kernels:
            continue
        try:
            out.append(CorpusMetallib(path, compile_metallib(module)))
        except AirLoweringError as exc:
            out.append(CorpusMetallib(path, None, str(exc)))
    return tuple(out)
