"""The MSL prelude is C++ in real header files (backends/msl/include/cm_*.h), not Python strings:
every header is part of the assembled prelude, ships with the package, and each assembled variant
is clean under the MSL checker (test_msl_check.py checks each variant for each MSL version)."""

from __future__ import annotations

import ast
from importlib import resources

import pytest

from cumetal.backends.msl import prelude as P

HEADERS = sorted(p.name for p in P.INCLUDE_DIR.glob("*.h"))
ORDER = ["cm_head.h", "cm_ctx.h", "cm_int.h", "cm_float_bits.h", "cm_float_ops.h", "cm_half.h",
         "cm_f64_native.h", "cm_atomic.h", "cm_printf.h"]


def test_every_header_is_in_the_prelude_and_packaged():
    assert sorted(ORDER) == HEADERS
    native = P.prelude("native")
    assert P.prelude("emulate") == P.prelude("none"), "emulated f64 needs no helper (passes/legalize/fp64)"
    for name in HEADERS:
        text = (resources.files("cumetal.backends.msl") / "include" / name).read_text()
        first_code = next(line for line in text.splitlines() if line and not line.startswith("//"))
        if name == "cm_float_ops.h":  # a template: its placeholders are replaced per float type
            first_code = P._float_block("float").splitlines()[2]
        assert first_code in native, name


@pytest.mark.parametrize("module", ["prelude", "fp64"])
def test_prelude_modules_hold_no_cxx_source(module):
    from importlib import import_module

    tree = ast.parse(open(import_module(f"cumetal.backends.msl.{module}").__file__).read())
    long_strings = [n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
                    and "inline " in n.value]
    assert long_strings == []


def test_bad_fp64_mode_is_a_clear_error():
    with pytest.raises(ValueError, match="fp64 mode"):
        P.prelude("double")

