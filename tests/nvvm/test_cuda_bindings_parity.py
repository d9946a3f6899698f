"""Names and values against NVIDIA's cuda-bindings 13.x, where it is installed (skipped otherwise)."""

from __future__ import annotations

import pytest

from cumetal import nvrtc, nvvm

nvrtc_ref = pytest.importorskip("cuda.bindings.nvrtc")
nvvm_ref = pytest.importorskip("cuda.bindings.nvvm")


def test_nvrtc_result_enum_matches():
    theirs = {m.name: int(m.value) for m in nvrtc_ref.nvrtcResult}
    ours = {m.name: int(m.value) for m in nvrtc.nvrtcResult}
    assert {k: v for k, v in ours.items() if k in theirs} == theirs
    assert set(theirs) <= set(ours)


def test_nvrtc_functions_exist():
    theirs = {n for n in dir(nvrtc_ref) if n.startswith("nvrtc") and callable(getattr(nvrtc_ref, n))}
    assert theirs - {"nvrtcResult"} <= set(dir(nvrtc))


def test_nvvm_result_enum_and_functions_match():
    assert {m.name: int(m.value) for m in nvvm_ref.Result} == {m.name: int(m.value) for m in nvvm.Result}
    public = {n for n in dir(nvvm_ref) if not n.startswith("_") and callable(getattr(nvvm_ref, n))}
    assert public - {"Result", "nvvmError"} <= set(dir(nvvm))
