"""`make CC=cumetalc` exports CC (and often CXX) to every recipe; libcumetal's build and the final link
need a host compiler, so $CC/$CXX naming cumetalc or nvcc are passed over (before, the first
libcumetal build of such a make run failed with "cumetalc: unknown option '-shared'")."""

from __future__ import annotations

import os

import pytest

from cumetal.capi import build, library


@pytest.mark.parametrize("value", ["cumetalc", "/opt/venv/bin/cumetalc -O2", "nvcc"])
def test_cuda_drivers_in_cc_and_cxx_are_not_host_compilers(monkeypatch, value: str) -> None:
    monkeypatch.setenv("CC", value)
    monkeypatch.setenv("CXX", value)
    library.c_compiler.cache_clear()
    try:
        cc = library.c_compiler()
        cxx = build.linker()
    finally:
        library.c_compiler.cache_clear()
    assert os.path.basename(cc[0]) not in ("cumetalc", "nvcc") and cc[0] != value.split()[0]
    assert os.path.basename(cxx[0]) not in ("cumetalc", "nvcc")


def test_a_real_host_compiler_in_cc_is_used(monkeypatch) -> None:
    monkeypatch.setenv("CC", "gcc -m64")
    monkeypatch.setenv("CXX", "g++")
    library.c_compiler.cache_clear()
    try:
        assert library.c_compiler() == ["gcc", "-m64"] and build.linker() == ["g++"]
    finally:
        library.c_compiler.cache_clear()
