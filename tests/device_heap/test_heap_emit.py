"""The code ``cumetalc`` writes for Metal from a .cu file whose kernels malloc/free/new/delete:
every kernel is in the .metallib with the allocator (backends/apple/heap.ptx) linked in, each AIR
module passes LLVM 14's verifier, and the MSL passes the clang MSL checker."""

from __future__ import annotations

import io
import pathlib
import shutil
import subprocess
import tempfile

import pytest

from cumetal.backends.air.metallib import read_metallib
from cumetal.backends.air.metallib_validate import validate_metallib
from cumetal.backends.air.metallib_wrapper import unwrap_bitcode
from cumetal.backends.apple import heap
from cumetal.tools.cumetalc import main

SOURCE = pathlib.Path(__file__).with_name("kernels") / "heap_kernels.cu"
KERNELS = ["per_thread", "per_block", "structs", "grab", "give_back"]
OPT = shutil.which("opt-14")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out=out, err=err)
    return code, out.getvalue(), err.getvalue()


def test_metallib_holds_every_heap_kernel_and_verifies(tmp_path):
    target = tmp_path / "heap.metallib"
    code, _, err = run(str(SOURCE), "--emit=metallib", "-o", str(target))
    assert code == 0, err
    data = target.read_bytes()
    assert validate_metallib(data) == []
    lib = read_metallib(data)
    assert sorted(f.name for f in lib.functions) == sorted(KERNELS)
    if OPT is None:
        pytest.skip("opt-14 is not installed (apt-get install llvm-14)")
    for f in lib.functions:
        with tempfile.NamedTemporaryFile(suffix=".bc") as fh:
            fh.write(unwrap_bitcode(lib.module(f)))
            fh.flush()
            verified = subprocess.run([OPT, "-passes=verify", "-disable-output", "-mtriple=aarch64-apple-macosx",
                                       fh.name], capture_output=True, text=True, timeout=120)
            assert verified.returncode == 0, f"{f.name}: {verified.stderr[:1000]}"
            dis = subprocess.run(["llvm-dis-14", fh.name, "-o", "-"], capture_output=True, text=True, timeout=120)
        if dis.returncode == 0:  # the allocator is in the module, called, with no malloc left
            assert f"{heap.MALLOC}(" in dis.stdout or f"{heap.FREE}(" in dis.stdout
            assert "@malloc" not in dis.stdout


def test_msl_holds_the_allocator_and_passes_the_msl_checker():
    from cumetal.tools.msl_check import check_msl

    code, out, err = run(str(SOURCE), "--emit=msl", "-o", "-")
    assert code == 0, err
    assert heap.MALLOC in out and heap.FREE in out
    for k in KERNELS:
        assert f"kernel void {k}(" in out
    assert check_msl(out) == ""
