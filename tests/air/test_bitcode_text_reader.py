"""parse_llvm_text, and through it a re-encoding of real Apple modules by our writer.

The strongest check of the writer: take Apple-compiled AIR, disassemble it with llvm-dis-14, read
the text into our model, write bitcode with our writer, disassemble again: the text must be
identical.  A deterministic sample of mlx.metallib's 17,248 kernels and every module of the small
GitHub samples are used when available (they skip otherwise).
"""

from __future__ import annotations

import os
from importlib import util as _importlib_util
from pathlib import Path

import pytest
from test_bitcode_samples import ALL

from cumetal.backends.air.bitcode import oracle, to_llvm_text, write_bitcode
from cumetal.backends.air.bitcode.text_reader import LLVMTextError, parse_llvm_text


def _air_conftest():
    """tests/air/conftest.py by path: a bare 'import conftest' can pick another directory's."""
    spec = _importlib_util.spec_from_file_location("air_conftest", Path(__file__).with_name("conftest.py"))
    mod = _importlib_util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


_AIR = _air_conftest()
fetch_script = _AIR.fetch_script

needs_llvm14 = pytest.mark.skipif(not oracle.available(), reason="llvm-14 tools not installed")
# Every 400th kernel (44 modules across mlx.metallib's kernel families); CUMETAL_BITCODE_FULL=1 runs
# all 17,248 (about 10 minutes on an idle core).
MLX_STRIDE = 1 if os.environ.get("CUMETAL_BITCODE_FULL") == "1" else 400


@pytest.mark.parametrize("name", sorted(ALL))
def test_reader_inverts_printer(name):
    text = to_llvm_text(ALL[name]())
    assert to_llvm_text(parse_llvm_text(text)) == text


@needs_llvm14
@pytest.mark.parametrize("name", sorted(ALL))
def test_reader_reads_llvm_dis_output(name):
    text = oracle.llvm_dis(write_bitcode(ALL[name]()))
    assert oracle.llvm_dis(write_bitcode(parse_llvm_text(text))) == text


def _reencode_all(lib, functions, chunk: int = 200) -> list[str]:
    functions = list(functions)
    if len(functions) > chunk:
        return [msg for i in range(0, len(functions), chunk)
                for msg in _reencode_all(lib, functions[i:i + chunk], chunk)]
    texts = oracle.llvm_dis_many([lib.module(f) for f in functions])
    failures, ours, names = [], [], []
    for f, text in zip(functions, texts, strict=True):
        try:
            ours.append(write_bitcode(parse_llvm_text(text)))
            names.append((f.name, text))
        except (LLVMTextError, TypeError, ValueError) as exc:
            failures.append(f"{f.name}: {exc}")
    for (name, text), again in zip(names, oracle.llvm_dis_many(ours), strict=True):
        if again != text:
            failures.append(f"{name}: text differs after re-encoding")
    return failures


@needs_llvm14
def test_apple_mlx_modules_reencode_identically(mlx_lib):
    sample = list(mlx_lib.functions)[::MLX_STRIDE]
    assert len(sample) > 40
    assert _reencode_all(mlx_lib, sample) == []


@needs_llvm14
@pytest.mark.parametrize("repo", [s.repo for s in fetch_script.GIT_SAMPLES])
def test_apple_github_sample_modules_reencode_identically(repo, air):
    from cumetal.backends.air.metallib import read_metallib

    lib = read_metallib(air.git_sample(repo))
    assert _reencode_all(lib, lib.functions) == []


def test_debug_info_is_refused_clearly():
    with pytest.raises(LLVMTextError, match=r"line 1: function metadata attachments \(such as !dbg"):
        parse_llvm_text("define void @f() !dbg !0 {\n  ret void\n}\n")


@pytest.mark.parametrize("text, message", [
    ("define void @f() {\n  %x = bogus i32 1\n}\n", r"line 2: unsupported instruction 'bogus'"),
    ("define i32 @f() {\n  ret i32 %nope\n}\n", r"%nope is used but never defined"),
    ("@g = global i32 undef, flavour 3\n", r"line 1: unsupported global variable field"),
    ("define void @f() {\n  ret void\n", r"unterminated function body"),
    ("define void @f(i32 %a) {\n  %b = add i64 %a, 1\n  ret void\n}\n", r"%a has type i32, used as i64"),
    ("@g = global i32 \x01\n", r"line 1: unexpected character"),
])
def test_malformed_text_names_line_and_cause(text, message):
    with pytest.raises(LLVMTextError, match=message):
        parse_llvm_text(text)


def test_reader_handles_hand_written_air():
    module = parse_llvm_text(_AIR.air_text())
    assert [f.name for f in module.functions] == ["add_one"]
    assert module.named_metadata["air.kernel"][0].operands[0].value is module.functions[0]
