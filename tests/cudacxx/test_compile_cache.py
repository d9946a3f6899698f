"""The CUDA C++ compile cache: hits, invalidation by header content and options, self-healing on
corrupt entries, and concurrent processes compiling into one empty cache."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import pytest

from cumetal.cudacxx import cache
from cumetal.cudacxx.compile import CudaCompileError, compile_to_bitcode, compile_to_ptx
from cumetal.cudacxx.options import CudaOptions

KERNEL = '#include "params.h"\nextern "C" __global__ void k(int *p) { p[threadIdx.x] = VALUE; }\n'


@pytest.fixture
def src(tmp_path, monkeypatch):
    # this cache alone: CUMETAL_CACHE_DIR would also move (and rebuild) the math library's bitcode
    monkeypatch.setenv("CUMETAL_CUDACXX_CACHE_DIR", str(tmp_path / "cache" / "cudacxx"))
    monkeypatch.delenv("CUMETAL_CUDACXX_CACHE", raising=False)
    (tmp_path / "params.h").write_text("#define VALUE 11\n")
    return tmp_path / "k.cu"


def _entries(tmp_path):
    return [p for p in (tmp_path / "cache" / "cudacxx").rglob("*") if p.is_file()]


def test_second_compile_is_a_hit_with_the_same_result(src, tmp_path):
    first = compile_to_ptx(KERNEL, str(src))
    second = compile_to_ptx(KERNEL, str(src))
    assert not first.cached and second.cached
    assert second.ptx == first.ptx and second.dependencies == first.dependencies
    assert str(tmp_path / "params.h") in first.dependencies
    assert "], 11;" in first.ptx


def test_header_content_options_and_source_are_part_of_the_key(src, tmp_path):
    base = compile_to_ptx(KERNEL, str(src))
    (tmp_path / "params.h").write_text("#define VALUE 987654\n")
    changed = compile_to_ptx(KERNEL, str(src))
    assert not changed.cached and "987654" in changed.ptx and "987654" not in base.ptx
    other_arch = compile_to_ptx(KERNEL, str(src), CudaOptions(arch="sm_75"))
    assert not other_arch.cached and ".target sm_75" in other_arch.ptx
    assert not compile_to_ptx(KERNEL + "\n", str(src)).cached
    assert compile_to_ptx(KERNEL, str(src), CudaOptions(arch="sm_75")).cached


def test_corrupt_entries_are_recompiled_silently(src, tmp_path):
    good = compile_to_ptx(KERNEL, str(src)).ptx
    (entry,) = _entries(tmp_path)
    for damage in (b"", b"not json\n" + b"x" * 100, entry.read_bytes()[:-10] + b"XXXXXXXXXX"):
        entry.write_bytes(damage)
        again = compile_to_ptx(KERNEL, str(src))
        assert not again.cached and again.ptx == good
        assert compile_to_ptx(KERNEL, str(src)).cached  # healed


def test_bitcode_and_ptx_entries_are_distinct(src):
    ptx = compile_to_ptx(KERNEL, str(src))
    bc = compile_to_bitcode(KERNEL, str(src))
    assert not bc.cached and bc.bitcode.startswith(b"BC\xc0\xde") and ptx.ptx.startswith("//")
    assert compile_to_bitcode(KERNEL, str(src)).cached


def test_errors_are_not_cached(src):
    for _ in range(2):
        with pytest.raises(CudaCompileError) as e:
            compile_to_ptx("__global__ void k() { undeclared(); }\n", str(src))
        assert f"{src}:1:23: error: use of undeclared identifier 'undeclared'" in e.value.log


def test_disabled_cache(src, monkeypatch):
    monkeypatch.setenv("CUMETAL_CUDACXX_CACHE", "0")
    assert not compile_to_ptx(KERNEL, str(src)).cached
    assert not compile_to_ptx(KERNEL, str(src)).cached


CHILD = """
import sys
from cumetal.cudacxx.compile import compile_to_ptx
r = compile_to_ptx(open(sys.argv[1]).read(), sys.argv[1])
sys.stdout.write(r.ptx)
"""


def test_concurrent_processes_share_one_cache(src, tmp_path):
    src.write_text(KERNEL)
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, str(src)], stdout=subprocess.PIPE, text=True)
             for _ in range(4)]
    outs = [p.communicate(timeout=120)[0] for p in procs]
    assert all(p.returncode == 0 for p in procs)
    assert len(set(outs)) == 1 and ".entry k(" in outs[0]
    assert len(_entries(tmp_path)) == 1 and not list((tmp_path / "cache").rglob("*.tmp"))
    assert compile_to_ptx(KERNEL, str(src)).cached


def test_key_covers_the_compiler_and_cumetal_versions(monkeypatch):
    k1 = cache.make_key("ptx", "x", "a.cu", CudaOptions(), None)
    monkeypatch.setattr(cache, "__version__", "99.0")
    assert cache.make_key("ptx", "x", "a.cu", CudaOptions(), None) != k1


def test_key_covers_the_base_flags_and_the_front_end_code(monkeypatch, tmp_path):
    """BASE_FLAGS (compile.py) and the other code that makes clang's command line are in the key:
    editing them must not reuse entries made with the old flags."""
    import cumetal.cudacxx.compile as compile_mod

    assert set(cache._FRONT_END) >= {"compile.py", "options.py", "toolchain.py"}
    assert "BASE_FLAGS = (" in open(compile_mod.__file__).read()
    k1 = cache.make_key("ptx", "x", "a.cu", CudaOptions(), None)
    fake = tmp_path / "compile.py"
    fake.write_text(open(compile_mod.__file__).read().replace('"-fno-jump-tables"', '"-fjump-tables"'))
    monkeypatch.setattr(cache, "_front_end_digest", None)
    monkeypatch.setattr(cache, "__file__", str(tmp_path / "cache.py"))
    for name in cache._FRONT_END:
        if name != "compile.py":
            (tmp_path / name).write_bytes(open(pathlib.Path(compile_mod.__file__).with_name(name), "rb").read())
    assert cache.make_key("ptx", "x", "a.cu", CudaOptions(), None) != k1


def test_missing_clang_is_a_compile_error_not_a_traceback(src, monkeypatch, tmp_path):
    from cumetal.cudacxx import toolchain

    monkeypatch.setenv("CUMETAL_CLANG", str(tmp_path / "no-such-clang"))
    toolchain.find_clang.cache_clear()
    try:
        with pytest.raises(CudaCompileError, match="cannot be found"):
            compile_to_ptx(KERNEL, str(src))
    finally:
        monkeypatch.delenv("CUMETAL_CLANG")
        toolchain.find_clang.cache_clear()
