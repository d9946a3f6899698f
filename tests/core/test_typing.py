"""cumetal.core.typing has cuda.core.typing's string enumerations, member for member (checked when
cuda-core is installed: it installs without a GPU)."""

from __future__ import annotations

import enum

import pytest

from cumetal.core import typing as ours

theirs = pytest.importorskip("cuda.core.typing")


def test_enumerations_match_cuda_core():
    checked = 0
    for name in dir(theirs):
        value = getattr(theirs, name)
        if isinstance(value, type) and issubclass(value, enum.Enum):
            mine = getattr(ours, name, None)
            assert mine is not None, name
            assert {m.name: m.value for m in mine} == {m.name: m.value for m in value}, name
            checked += 1
    assert checked >= 17
    assert isinstance(type("S", (), {"__cuda_stream__": lambda self: (0, 0)})(), ours.IsStreamType)


def test_public_names_match_cuda_core():
    import importlib

    internal = {"cu12", "cu13", "cuda", "TYPE_CHECKING", "driver", "sys"}  # cuda.core's imports, not its API
    for sub in ("", ".graph", ".texture", ".typing", ".utils"):
        theirs_mod = importlib.import_module("cuda.core" + sub)
        ours_mod = importlib.import_module("cumetal.core" + sub)
        missing = {n for n in dir(theirs_mod) if not n.startswith("_")} - set(dir(ours_mod)) - internal
        assert not missing, f"cumetal.core{sub} lacks {sorted(missing)}"
