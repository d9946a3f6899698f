"""Every AIR module CuMetal writes into a .metallib passes LLVM 14's IR verifier (issue 11):
``opt-14 -passes=verify`` on the bitcode of each function of the .metallib, for every functional
kernel and every module of every corpus file that lowers (the corpus .metallibs are lowered once
per session, air_corpus.py, and shared with test_lower_corpus.py). llvm-dis-14 reading a module
(the other AIR tests) does not run the verifier. The module's triple (air64_v26-apple-macosx…) is
unknown to LLVM 14's targets, so ``-mtriple`` names a known one; the verifier itself is
target-independent."""

from __future__ import annotations

import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from air_corpus import CORPUS, FILES, corpus_metallibs

from cumetal.backends.air.lower import compile_metallib
from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode
from cumetal.passes import compile_ptx

OPT = shutil.which("opt-14")
TESTS = Path(__file__).resolve().parents[1]
FUNCTIONAL = sorted((TESTS / "functional" / "kernels").glob("*.ptx"))

pytestmark = pytest.mark.skipif(OPT is None, reason="opt-14 is not installed (apt-get install llvm-14)")


def verify(bitcode: bytes, name: str) -> str:
    """The verifier's complaint about one module ("" when valid)."""
    out = subprocess.run([OPT, "-passes=verify", "-disable-output", "-mtriple=aarch64-apple-macosx", "-"],
                         input=bitcode, capture_output=True, timeout=120)
    return "" if out.returncode == 0 else f"{name}: {out.stderr.decode(errors='replace').strip()[:1000]}"


def verify_modules(data: bytes, label: str) -> tuple[int, list[str]]:
    """(modules checked, problems) for one .metallib."""
    lib = read_metallib(data)
    with ThreadPoolExecutor(max_workers=2) as pool:
        problems = list(pool.map(lambda f: verify(unwrap_bitcode(lib.module(f)), f"{label}:{f.name}"),
                                 lib.functions))
    return len(lib.functions), [p for p in problems if p]


def test_the_verifier_rejects_a_broken_module(tmp_path):
    ll = tmp_path / "bad.ll"
    ll.write_text("define void @f() {\n  %a = add i32 %b, 1\n  %b = add i32 1, 1\n  ret void\n}\n")
    bc = tmp_path / "bad.bc"
    subprocess.run(["llvm-as-14", "-disable-verify", str(ll), "-o", str(bc)], check=True, timeout=60)
    assert "does not dominate all uses" in verify(bc.read_bytes(), "bad")


@pytest.mark.parametrize("path", FUNCTIONAL, ids=lambda p: p.stem)
def test_functional_kernels_pass_the_llvm_verifier(path):
    module = compile_ptx(path.read_text(), str(path))
    checked, problems = verify_modules(compile_metallib(module), path.name)
    assert checked > 0 and problems == []


@pytest.mark.skipif(not FILES, reason="no PTX corpus checked out")
def test_every_corpus_module_passes_the_llvm_verifier():
    """All ~630 modules of the ~330 corpus files that lower (about 15 s of opt-14 on 2 cores)."""
    libs = [e for e in corpus_metallibs() if e.data is not None]
    modules = 0
    problems: list[str] = []
    for entry in libs:
        n, bad = verify_modules(entry.data, str(entry.path.relative_to(CORPUS)))
        modules += n
        problems += bad
    assert len(libs) >= 320 and modules >= 600
    assert problems == []
