"""Names and values against cuda-bindings (``pip install 'cuda-bindings==13.*'``; skipped without it)."""

from __future__ import annotations

import enum

import pytest

from cumetal import runtime as rt
from cumetal.runtime import enums as ours

real = pytest.importorskip("cuda.bindings.runtime")


def _real_enums():
    base = real._FastEnum
    return {n: getattr(real, n) for n in dir(real)
            if isinstance(getattr(real, n), type) and issubclass(getattr(real, n), base) and getattr(real, n) is not base}


def test_every_enum_member_has_cudas_name_and_value():
    mismatches = []
    for name, cls in _real_enums().items():
        mine = getattr(rt, name, None)
        assert mine is not None and issubclass(mine, enum.IntEnum), name
        for member, value in cls.__members__.items():
            if getattr(mine, member, None) != int(value):
                mismatches.append(f"{name}.{member}")
    assert not mismatches


def test_constants_and_error_strings():
    for n in ours.CONSTANT_NAMES:
        assert getattr(rt, n) == getattr(real, n), n
    for code in real.cudaError_t:
        assert rt.cudaGetErrorString(int(code))[1] == real.cudaGetErrorString(code)[1]
        assert rt.cudaGetErrorName(int(code))[1] == real.cudaGetErrorName(code)[1]


def test_struct_fields_match():
    for name in ("cudaDeviceProp", "cudaPointerAttributes", "cudaFuncAttributes", "cudaExtent", "cudaPitchedPtr",
                 "cudaPos", "cudaMemcpy3DParms", "dim3", "cudaMemLocation"):
        theirs = {a for a in dir(getattr(real, name)()) if not a.startswith("_") and a != "getPtr"}
        mine = {a for a in dir(getattr(rt, name)()) if not a.startswith("_")}
        assert theirs - {"localized"} <= mine, (name, theirs - mine)  # cudaMemLocation's union view: id only
        assert rt.sizeof(getattr(rt, name)) == real.sizeof(getattr(real, name)), name


def test_function_coverage_is_counted():
    names = [n for n in dir(real) if n.startswith("cuda") and callable(getattr(real, n))
             and not isinstance(getattr(real, n), type)]
    have = [n for n in names if callable(getattr(rt, n, None))]
    assert len(names) == 338
    assert len(have) == 338, f"{len(have)} of {len(names)}: {sorted(set(names) - set(have))}"
