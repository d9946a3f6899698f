"""cumetalc on CUDA C++: nvcc's flags, outputs, dependency files and diagnostics. The PTX is checked
by NVIDIA's ``ptxas`` where it is installed, and by CuMetal's own pipeline everywhere."""

from __future__ import annotations

import io
import pathlib
import shutil
import subprocess
import sys

import pytest

from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.ir import dump_module
from cumetal.passes import compile_ptx
from cumetal.tools.cumetalc import main

INPUTS = pathlib.Path(__file__).with_name("cuda_inputs")
SAXPY = INPUTS / "saxpy.cu"
BROKEN = INPUTS / "syntax_error.cu"
OK_FLAGS = ("-DSCALE=2.0f", "-UPOISON", "-DPOISON")  # -U comes after -D in clang's order below
FLAGS = ("-DSCALE=2.0f",)


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def ptx_of(*argv: str) -> str:
    code, out, err = run(str(SAXPY), *FLAGS, "-ptx", "-o", "-", *argv)
    assert code == 0, err
    return out


def kernel_body(ptx: str, name: str) -> str:
    return ptx.split(f".entry {name}(")[1].split("\n}\n")[0]


@pytest.mark.skipif(shutil.which("ptxas") is None, reason="NVIDIA ptxas not installed")
def test_ptx_output_is_accepted_by_ptxas(tmp_path):
    out = tmp_path / "saxpy.ptx"
    code, _, err = run(str(SAXPY), *FLAGS, "-ptx", "-o", str(out))
    assert code == 0, err
    proc = subprocess.run(["ptxas", "-arch=sm_80", str(out), "-o", str(tmp_path / "k.cubin")],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_ptx_default_name_is_the_stem_in_the_current_directory(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(str(SAXPY), *FLAGS, "-ptx")
    assert code == 0 and out == "", err
    text = (tmp_path / "saxpy.ptx").read_text()
    assert ".visible .entry saxpy(" in text and ".visible .entry ratio(" in text


def test_macros_includes_and_undefines():
    # -D/-U are applied in order after the implicit macros; the header comes from the file's directory
    assert ".entry saxpy(" in ptx_of("-DPOISON", "-UPOISON")
    code, _, err = run(str(SAXPY), "-ptx", "-o", "-")
    assert code == 1 and "SCALE must be defined" in err
    code, _, err = run(str(SAXPY), *FLAGS, "-DPOISON", "-ptx", "-o", "-")
    assert code == 1 and "POISON must be undefined" in err


def test_include_path_and_pre_include(tmp_path):
    (tmp_path / "inc").mkdir()
    (tmp_path / "inc" / "answer.h").write_text("#define ANSWER 4242\n")
    (tmp_path / "pre.h").write_text("#define FROM_PRE 17\n")
    src = tmp_path / "k.cu"
    src.write_text('#include <answer.h>\nint table[] = {ANSWER, FROM_PRE};\n')
    code, out, err = run(str(src), "-E", "-I", str(tmp_path / "inc"), "-include", str(tmp_path / "pre.h"))
    assert code == 0, err
    assert "int table[] = {4242, 17};" in out


@pytest.mark.parametrize(("flags", "target", "version"), [
    ((), "sm_80", "7.0"),
    (("-arch=sm_75",), "sm_75", "7.0"),
    (("--gpu-architecture", "compute_86"), "sm_86", "7.1"),
    (("-gencode", "arch=compute_70,code=sm_70", "-gencode=arch=compute_89,code=[sm_89,compute_89]"), "sm_89", "7.8"),
    (("-arch", "sm_90a"), "sm_90a", "8.0"),
])
def test_architecture_sets_the_ptx_target(flags, target, version):
    ptx = ptx_of(*flags)
    assert f".target {target}\n" in ptx and f".version {version}\n" in ptx


def test_unsupported_architecture_is_a_usage_error():
    code, _, err = run(str(SAXPY), "-arch=sm_100", "-ptx")
    assert code == 2 and len(err.splitlines()) == 1 and "sm_100" in err


def test_fast_math_flags_change_the_arithmetic():
    default = kernel_body(ptx_of(), "ratio")
    assert "div.rn.f32" in default and "sqrt.rn.f32" in default
    fast = kernel_body(ptx_of("--use_fast_math"), "ratio")
    assert "div.rn.f32" not in fast and "sqrt.rn.f32" not in fast and ".ftz.f32" in fast
    assert "div.approx.ftz.f32" in fast  # as nvcc --use_fast_math
    assert "div.full.f32" in kernel_body(ptx_of("-prec-div=false"), "ratio")  # as nvcc -prec-div=false
    assert "sqrt.approx" in kernel_body(ptx_of("-prec-sqrt=false"), "ratio")
    assert ".ftz." in kernel_body(ptx_of("-ftz=true"), "saxpy")
    assert "fma.rn.f32" in kernel_body(ptx_of(), "saxpy")
    assert "fma.rn.f32" not in kernel_body(ptx_of("-fmad=false"), "saxpy")


def test_lineinfo_and_device_debug_go_through_the_pipeline():
    for flag in ("-lineinfo", "-G"):
        code, out, err = run(str(SAXPY), *FLAGS, flag, "--emit=ir")
        assert code == 0, (flag, err)
        assert "kernel saxpy(" in out
    assert ".loc" in ptx_of("-lineinfo")


def test_emit_ir_equals_the_pipeline_on_the_ptx():
    ptx = ptx_of()
    code, out, err = run(str(SAXPY), *FLAGS, "--emit=ir")
    assert code == 0, err
    assert out == dump_module(compile_ptx(ptx.encode(), "saxpy.ptx"))


def test_emit_metallib_defaults_next_to_the_input(tmp_path):
    src = tmp_path / "saxpy.cu"
    shutil.copy(SAXPY, src)
    shutil.copy(INPUTS / "saxpy_params.h", tmp_path)
    code, _, err = run(str(src), *FLAGS, "--emit=metallib")
    assert code == 0, err
    data = (tmp_path / "saxpy.metallib").read_bytes()
    assert validate_metallib(data) == []
    assert sorted(f.name for f in read_metallib(data).functions) == ["ratio", "saxpy"]


def test_syntax_error_is_reported_at_file_line_col_and_leaves_no_output(tmp_path):
    out = tmp_path / "broken.ptx"
    code, _, err = run(str(BROKEN), "-ptx", "-o", str(out))
    assert code == 1
    lines = err.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith(f"{BROKEN}:2:15: error: expected ';'"))
    assert "int v = p[0]" in lines[i + 1] and lines[i + 2].split("|")[1].strip() == "^"  # clang's caret line
    assert "Traceback" not in err
    assert not out.exists() and list(tmp_path.iterdir()) == []


def test_unknown_and_inert_options():
    code, out, err = run(str(SAXPY), "--frobnicate", "-ptx")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert err.startswith("cumetalc: error: unknown option '--frobnicate'")
    code, out, err = run(str(SAXPY), *FLAGS, "-ptx", "-o", "-", "-Xptxas", "-v", "-maxrregcount=32", "-m64",
                         "--expt-relaxed-constexpr", "--extended-lambda", "-Xcompiler", "-fPIC,-Wall", "-O2",
                         "-g", "-std=c++17", "-x", "cu", "-Wno-deprecated-gpu-targets")
    assert code == 0 and ".entry saxpy(" in out
    assert [line.split(": warning: ")[1].split("'")[1] for line in err.splitlines()] == ["-Xptxas", "-maxrregcount"]
    code, _, err = run(str(SAXPY), "-cubin")
    assert code == 2 and "cubin" in err and len(err.splitlines()) == 1
    code, _, err = run(str(SAXPY), "-ftz=maybe", "-ptx")
    assert code == 2 and "true or false" in err


def test_missing_input_file(tmp_path):
    code, _, err = run(str(tmp_path / "nope.cu"), "-ptx")
    assert code == 1 and f"cannot read '{tmp_path / 'nope.cu'}'" in err and "Traceback" not in err


def test_x_cu_treats_any_file_as_cuda(tmp_path):
    src = tmp_path / "kernel.txt"
    src.write_text('extern "C" __global__ void k(int *p) { p[threadIdx.x] = 1; }\n')
    code, out, err = run("-x", "cu", str(src), "-ptx", "-o", "-")
    assert code == 0 and ".entry k(" in out, err


def test_dependencies_M_and_MD(tmp_path):
    code, out, err = run(str(SAXPY), *FLAGS, "-M")
    assert code == 0, err
    rule = out.replace("\\\n", " ")
    target, deps = rule.split(":", 1)
    assert target == "saxpy.o"
    assert str(SAXPY) in deps and "saxpy_params.h" in deps and "cuda_runtime.h" in deps
    code, out, _ = run(str(SAXPY), *FLAGS, "-MM")
    assert "saxpy_params.h" in out and "cuda_runtime.h" not in out
    ptx, dep = tmp_path / "s.ptx", tmp_path / "s.d"
    code, _, err = run(str(SAXPY), *FLAGS, "-ptx", "-o", str(ptx), "-MD", "-MF", str(dep), "-MT", "custom")
    assert code == 0, err
    assert ptx.is_file() and dep.read_text().startswith("custom: ") and "saxpy_params.h" in dep.read_text()


def test_binary_input_is_not_ptx_text(tmp_path):
    elf = tmp_path / "k.ptx"
    elf.write_bytes(b"\x7fELF\x02\x01\x01" + bytes(range(256)) * 40)
    code, _, err = run(str(elf), "--emit=ir")
    assert code == 1 and err.splitlines() == [f"cumetalc: error: {elf}: an ELF file (NVIDIA cubin or object?), "
                                              "not PTX text"]


def test_output_to_stdout_with_dash_creates_no_file(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run(str(SAXPY), *FLAGS, "--emit=msl", "-o", "-")
    assert code == 0 and "kernel void saxpy(" in out, err
    assert list(tmp_path.iterdir()) == []


def test_rdc_links_translation_units():
    code, out, err = run("-rdc=true", str(INPUTS / "rdc_main.cu"), str(INPUTS / "rdc_lib.cu"), "-ptx", "-o", "-")
    assert code == 0, err
    assert ".entry use_lib(" in out and "lib_bias" in out and ".extern" not in out
    code, _, err = run(str(INPUTS / "rdc_main.cu"), "--emit=ir")  # without the library: unresolved
    assert code == 1


def test_version_names_the_cuda_compiler():
    code, out, _ = run("--version")
    assert code == 0 and "clang version 22" in out


def test_console_script_runs_as_a_module(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "cumetal.tools.cumetalc", str(SAXPY), *FLAGS, "-ptx", "-o", "-"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and ".entry saxpy(" in proc.stdout, proc.stderr


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no FIFOs here")
def test_special_file_output_is_written_into_not_replaced(tmp_path):
    """-o /dev/null (or a FIFO) must not be replaced by a regular file by the atomic rename."""
    import os
    import stat
    import threading

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(fifo.read_bytes()))
    reader.start()
    code, _, err = run(str(SAXPY), *FLAGS, "-ptx", "-o", str(fifo))
    reader.join(timeout=60)
    assert code == 0, err
    assert stat.S_ISFIFO(os.stat(fifo).st_mode)
    assert b".entry saxpy(" in got[0]


def test_executable_and_object_builds(tmp_path, monkeypatch):
    """nvcc's default for a .cu input is an executable (a.out); -c makes an object. The program
    checks nothing itself: its printed checksum is compared with Python's."""
    pytest.importorskip("cumetal.capi.build")
    monkeypatch.chdir(tmp_path)
    code, _, err = run(str(INPUTS / "program.cu"))
    assert code == 0, err
    proc = subprocess.run([str(tmp_path / "a.out")], capture_output=True, text=True, timeout=300)
    values = [(i - 500) ** 2 + 7 for i in range(1000)]
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"checksum {sum(values)} first {values[0]} last {values[-1]}"
    code, _, err = run(str(INPUTS / "program.cu"), "-c")
    assert code == 0, err
    assert (tmp_path / "program.o").read_bytes()[:4] in (b"\x7fELF", b"\xcf\xfa\xed\xfe")


FP_FLAG_SETS = ["", "--use_fast_math", "-prec-div=false", "-prec-sqrt=false", "-ftz=true", "-fmad=false",
                "--use_fast_math -prec-div=true -prec-sqrt=true", "-ftz=true -prec-div=false",
                "--use_fast_math -fmad=false", "--use_fast_math -ftz=false"]


def _fp_ops(ptx: str) -> list[str]:
    import re

    return sorted(re.findall(r"\b(?:div|sqrt|fma|mul|add|rcp)\.[a-z0-9.]*f32\b", ptx))


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="NVIDIA nvcc not installed")
def test_floating_point_flags_give_the_instructions_nvcc_gives(tmp_path):
    src = INPUTS / "fp_flags.cu"
    for flags in FP_FLAG_SETS:
        nv = subprocess.run(["nvcc", "-ptx", "-arch=sm_80", *flags.split(), str(src), "-o", str(tmp_path / "nv.ptx")],
                            capture_output=True, text=True)
        assert nv.returncode == 0, nv.stderr
        code, out, err = run(str(src), *flags.split(), "-ptx", "-o", "-")
        assert code == 0, err
        assert _fp_ops(out) == _fp_ops((tmp_path / "nv.ptx").read_text()), flags


def test_openmp_host_code_builds_serially(tmp_path):
    """nvcc programs pass -Xcompiler -fopenmp and include <omp.h>: CuMetal's host compiler has no
    OpenMP runtime, so cumetalc says so once, drops the flag and the program runs on one thread
    (a serial omp.h from the fallback include directory)."""
    exe = tmp_path / "openmp_host"
    code, _, err = run(str(INPUTS / "openmp_host.cu"), "-Xcompiler", "-fopenmp", "-O2", "-o", str(exe))
    assert code == 0, err
    assert [line for line in err.splitlines() if "warning" in line] == [
        "cumetalc: warning: '-fopenmp': CuMetal's host compiler has no OpenMP runtime; '#pragma omp' is "
        "ignored and <omp.h> is a serial one (one thread)"]
    proc = subprocess.run([str(exe)], capture_output=True, text=True, timeout=120, check=False)
    want = sum((i - 500) ** 2 for i in range(1000))
    assert proc.returncode == 0 and proc.stdout.strip() == \
        f"threads=1 max=1 seen=1000 sum={want} busy=0 wtime_ok=1", proc.stdout + proc.stderr
