"""MSL reserved words never name anything the back end emits (issue 11).

``half`` is MSL's 16-bit float type: ``ulong kept, half, rest;`` in the prelude made every module
fail in Metal's compiler while g++ (msl-sim) accepted it. The full check is the clang-based MSL
checker (tests/msl/test_msl_check.py); this one is a fast textual guard on the prelude and on
kernel names.
"""

from __future__ import annotations

import re

import pytest

from cumetal.backends.msl.emit import kernel_name
from cumetal.backends.msl.prelude import prelude
from cumetal.backends.msl.reserved import CXX_KEYWORDS, MSL_KEYWORDS, MSL_MACROS

_TYPES = r"(?:bool|u?char|u?short|u?int|u?long|float|double|float2)"
# `TYPE name` followed by , ; = ) (declarations and parameters), and `, name` inside a declaration list
_FIRST = re.compile(rf"\b{_TYPES}&?\s+([A-Za-z_]\w*)\s*[,;=)]")
_LIST = re.compile(rf"^\s*{_TYPES}\s+[^;(]*;", re.M)


def declared_names(source: str) -> set[str]:
    names = set(_FIRST.findall(source))
    for decl in _LIST.findall(source):
        names.update(re.findall(r",\s*([A-Za-z_]\w*)\s*(?=[,;=])", decl))
    return names


def test_the_guard_sees_the_original_bug():
    assert "half" in declared_names("  ulong kept, half, rest;\n")


@pytest.mark.parametrize("fp64", ["none", "native", "emulate"])
def test_prelude_declares_no_msl_reserved_word(fp64):
    bad = declared_names(prelude(fp64)) & (CXX_KEYWORDS | MSL_KEYWORDS | MSL_MACROS)
    assert not bad, f"the MSL prelude uses reserved words as names: {sorted(bad)}"


@pytest.mark.parametrize("name", ["assert", "complex", "vec", "matrix", "quad", "bfloat", "NAN", "INFINITY", "half",
                                  "float4", "simd_sum", "min", "atomic_uint", "texture2d", "M_PI_F", "kernel",
                                  "metal", "FLT_MAX", "uint"])
def test_reserved_kernel_names_are_renamed(name):
    assert kernel_name(name) != name and kernel_name(name).startswith("cmk_")


def test_ordinary_kernel_names_are_kept():
    for name in ("vector_add", "_Z6kernelPf", "saxpy", "matmul_fp16", "halfway"):
        assert kernel_name(name) == name
