"""cumetalc: exit codes 0/1/2, diagnostics on stderr, --coverage table, --ptx-strict, --version."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from cumetal.tools.cumetalc import main

GOOD = """.version 8.0
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<4>;
	.reg .b64 %rd<3>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	add.s32 %r2, %r1, 1;
	add.s32 %r3, %r2, %r1;
	st.global.u32 [%rd1], %r3;
	pmevent 1;
	ret;
}
"""


def run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    rc = main(args, out, err)
    return rc, out.getvalue(), err.getvalue()


@pytest.fixture
def good(tmp_path: Path) -> Path:
    p = tmp_path / "good.ptx"
    p.write_text(GOOD)
    return p


def test_parse_only_clean_file(good: Path) -> None:
    assert run(["--parse-only", str(good)]) == (0, "", "")


def test_parse_only_several_files_one_bad(good: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.ptx"
    bad.write_text(GOOD.replace("add.s32 %r2, %r1, 1;", "add.s32 %r2, %r1 1;"))
    rc, out, err = run(["--parse-only", str(good), str(bad)])
    assert rc == 1 and out == ""
    first = err.splitlines()[0]
    assert first == f"{bad}:10:18: error: expected ';' after the instruction"
    assert err.splitlines()[1] == "   add.s32 %r2, %r1 1;"
    assert err.splitlines()[2] == "  " + " " * 17 + "^"
    assert f"{bad}: 1 error(s), 0 warning(s)" in err


def test_unknown_opcode_warning_vs_strict(tmp_path: Path) -> None:
    p = tmp_path / "u.ptx"
    p.write_text(GOOD.replace("ret;", "frob.b32 %r1;\n\tret;"))
    rc, _, err = run(["--parse-only", str(p)])
    assert rc == 0 and "warning: unknown instruction 'frob.b32'" in err
    rc, _, err = run(["--parse-only", "--ptx-strict", str(p)])
    assert rc == 1 and "error: unknown instruction 'frob.b32'" in err


def test_usage_errors_exit_2_with_one_line(good: Path) -> None:
    for args in ([], ["--bogus", str(good)], ["--parse-only", "--coverage", str(good)]):
        rc, out, err = run(args)
        assert rc == 2 and out == ""
        assert len(err.strip().splitlines()) == 1 and err.startswith("cumetalc: error: ")


def test_missing_input_file(tmp_path: Path) -> None:
    rc, _, err = run(["--parse-only", str(tmp_path / "nope.ptx")])
    assert rc == 1 and "cannot read" in err and "No such file" in err


def test_coverage_table(good: Path) -> None:
    rc, out, err = run(["--coverage", str(good)])
    assert rc == 0 and err == ""
    rows = {ln.split()[0]: ln.split() for ln in out.splitlines()[1:-2]}
    assert rows["add.s32"][1] == "2"
    assert rows["mov.u32"][1] == "1" and rows["ld.param.u64"][1] == "1"
    assert rows["pmevent"][2] == "unsupported"
    assert out.splitlines()[-2].startswith("7 instructions, 6 distinct opcodes")
    assert out.splitlines()[-1].startswith("verdict: ")


LOP3P = """.version 8.2
.target sm_80
.address_size 64
.visible .entry k(.param .u64 p)
{
	.reg .b32 %r<3>;
	.reg .b64 %rd<2>;
	.reg .pred %q<2>;
	ld.param.u64 %rd1, [p];
	mov.u32 %r1, %tid.x;
	lop3.and.b32 %r2|%q1, %r1, 3, 5, 0x80, 1;
	st.global.u32 [%rd1], %r2;
	st.global.u32 [%rd1+4], %r1;
	ret;
}
"""


def test_coverage_says_what_compiling_says(tmp_path: Path) -> None:
    """An opcode with semantics whose form the lowering refuses (lop3 with a predicate output) is
    'unsupported' with the lowering's reason, as compiling the file reports it (#10 audit: --coverage
    said 'supported' for such forms)."""
    src = tmp_path / "lop3p.ptx"
    src.write_text(LOP3P)
    rc, out, _ = run(["--coverage", str(src)])
    assert rc == 0
    rows = {ln.split()[0]: ln for ln in out.splitlines()[1:-2]}
    (lop3,) = [row for name, row in rows.items() if name.startswith("lop3")]
    assert lop3.split()[1:3] == ["1", "unsupported"] and "predicate output" in lop3
    assert rows["st.global.u32"].split()[1:3] == ["2", "supported"]
    assert out.splitlines()[-1] == "verdict: 1 instruction(s) cannot run on CuMetal yet"
    rc, _, err = run(["--emit=ir", str(src), "-o", str(tmp_path / "k.ir")])
    assert rc == 1 and "lop3 with a predicate output" in err


def test_coverage_to_file(good: Path, tmp_path: Path) -> None:
    dest = tmp_path / "cov.txt"
    rc, out, _ = run(["--coverage", str(good), "-o", str(dest)])
    assert rc == 0 and out == "" and "add.s32" in dest.read_text()


def test_version_and_help() -> None:
    rc, out, _ = run(["--version"])
    assert rc == 0 and out.startswith("cumetalc (CuMetal) ")
    rc, _, _ = run(["--help"])
    assert rc == 0


def test_console_entry_point_as_module(good: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", "--parse-only", str(good)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stderr == ""
