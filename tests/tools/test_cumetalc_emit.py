"""cumetalc output modes: --emit=ir|msl|metallib, per-kernel failures, exit codes."""

from __future__ import annotations

import io
import pathlib
import shutil

from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.ir import dump_module
from cumetal.passes import compile_ptx
from cumetal.tools.cumetalc import main

ROOT = pathlib.Path(__file__).resolve().parents[2]
VADD = ROOT / "examples/vector_add.ptx"
MIXED = """.version 7.8
.target sm_80
.address_size 64
.visible .entry ok_kernel(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ret;
}
.visible .entry hopper_only(.param .u64 p)
{
  .reg .b32 %r<2>;
  .reg .b64 %rd<4>;
  ld.param.u64 %rd1, [p];
  multimem.ld_reduce.relaxed.sys.global.add.u32 %r1, [%rd1];
  st.global.u32 [%rd1], %r1;
  ret;
}
"""


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_emit_ir_is_the_kernel_ir():
    code, out, err = run(str(VADD), "--emit=ir")
    assert code == 0 and err == ""
    assert out == dump_module(compile_ptx(VADD.read_bytes(), str(VADD)))


def test_default_output_is_a_valid_metallib_next_to_the_input(tmp_path):
    src = tmp_path / "vector_add.ptx"
    shutil.copy(VADD, src)
    code, out, err = run(str(src))
    assert code == 0, err
    data = (tmp_path / "vector_add.metallib").read_bytes()
    assert validate_metallib(data) == []
    assert [f.name for f in read_metallib(data).functions] == ["vector_add"]


def test_emit_msl(tmp_path):
    code, _, err = run(str(VADD), "--emit=msl", "-o", str(tmp_path / "k.metal"))
    assert code == 0, err
    assert "kernel void vector_add(" in (tmp_path / "k.metal").read_text()


def test_unsupported_kernel_is_reported_and_the_rest_is_written(tmp_path):
    src = tmp_path / "mixed.ptx"
    src.write_text(MIXED)
    code, _, err = run(str(src), "-o", str(tmp_path / "mixed.metallib"))
    assert code == 1
    # every async op now reaches the Apple backends; multimem (NVLink multicast) never will: the kernel is
    # refused at its instruction and the rest of the file is still written
    assert f"{src}:15:3: error: kernel 'hopper_only' cannot be compiled: 'multimem.ld_reduce" in err
    assert [f.name for f in read_metallib((tmp_path / "mixed.metallib").read_bytes()).functions] == ["ok_kernel"]


def test_no_compilable_kernel_is_an_error(tmp_path):
    src = tmp_path / "bad.ptx"
    src.write_text(MIXED.split(".visible .entry ok_kernel")[0] + ".visible .entry k()\n{\n  trap.foo;\n}\n")
    code, _, err = run(str(src), "--emit=ir")
    assert code == 1 and err


RECURSIVE = """.version 7.8
.target sm_80
.address_size 64
.func (.param .b32 r) down(.param .b32 n)
{
  .reg .b32 %r<4>; .reg .pred %p<2>;
  ld.param.b32 %r1, [n];
  setp.eq.s32 %p1, %r1, 0;
  @%p1 bra DONE;
  sub.s32 %r2, %r1, 1;
  {
    .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r2;
    call.uni (b), down, (a);
    ld.param.b32 %r1, [b];
  }
DONE:
  st.param.b32 [r], %r1;
  ret;
}
.visible .entry uses_recursion(.param .u64 p)
{
  .reg .b32 %r<3>;
  {
    .param .b32 a; .param .b32 b;
    st.param.b32 [a], 3;
    call.uni (b), down, (a);
    ld.param.b32 %r1, [b];
  }
  ret;
}
.visible .entry plain(.param .u64 p)
{
  .reg .b64 %rd<2>;
  ld.param.u64 %rd1, [p];
  ret;
}
"""


def test_msl_runs_self_and_mutual_recursion(tmp_path):
    """Metal has no call stack: a function calling itself becomes a loop over an explicit stack
    (backends/apple/recursion.py); mutually recursive functions are merged into one first."""
    src = tmp_path / "rec.ptx"
    src.write_text(RECURSIVE)
    code, _, err = run(str(src), "--emit=msl", "-o", str(tmp_path / "rec.metal"))
    assert code == 0, err
    text = (tmp_path / "rec.metal").read_text()
    assert "kernel void plain(" in text and "kernel void uses_recursion(" in text
    mutual = RECURSIVE.replace("call.uni (b), down, (a);\n    ld.param.b32 %r1, [b];\n  }\nDONE:",
                               "call.uni (b), up, (a);\n    ld.param.b32 %r1, [b];\n  }\nDONE:", 1)
    mutual = mutual.replace(".func (.param .b32 r) down(", UP + ".func (.param .b32 r) down(", 1)
    assert mutual != RECURSIVE
    src.write_text(mutual)
    code, _, err = run(str(src), "--emit=msl", "-o", str(tmp_path / "rec.metal"))
    assert code == 0, err  # mutual recursion too: merged into one function over an explicit stack
    text = (tmp_path / "rec.metal").read_text()
    assert "kernel void plain(" in text and "kernel void uses_recursion(" in text


UP = """.func (.param .b32 r) down(.param .b32 n);
.func (.param .b32 r) up(.param .b32 n)
{
  .reg .b32 %r<2>;
  ld.param.b32 %r1, [n];
  {
    .param .b32 a; .param .b32 b;
    st.param.b32 [a], %r1;
    call.uni (b), down, (a);
    ld.param.b32 %r1, [b];
  }
  st.param.b32 [r], %r1;
  ret;
}
"""


def test_air_versions_are_selectable_and_agree_everywhere(tmp_path):
    out = tmp_path / "v.metallib"
    code, _, err = run(str(VADD), "--air-versions", "2.7,3.2,2.7,15.0", "-o", str(out))
    assert code == 0, err
    data = out.read_bytes()
    assert validate_metallib(data) == []  # the validator checks header, VERS, triple and metadata agree
    lib = read_metallib(data)
    assert lib.header.container_version == (2, 7) and lib.header.os_version == (15, 0)
    code, _, err = run(str(VADD), "--air-versions", "2.7", "-o", str(out))
    assert code == 1 and "--air-versions expects four" in err


def test_module_wide_error_fails_and_writes_nothing(tmp_path):
    """More than 64 KiB of .const is an error for the whole module (cuModuleLoadData: INVALID_PTX);
    cumetalc printed it as '<none>: error: …', exited 0 and wrote the .metallib (#10 audit)."""
    src = tmp_path / "big.ptx"
    src.write_text(".version 8.0\n.target sm_80\n.address_size 64\n.const .align 4 .b8 c[70000];\n"
                   ".visible .entry k() { ret; }\n")
    out = tmp_path / "big.metallib"
    code, _, err = run(str(src), "-o", str(out))
    assert code == 1 and not out.exists()
    assert err.splitlines() == [f"{src}: error: constant memory of 70000 bytes exceeds the 64 KiB limit"]
