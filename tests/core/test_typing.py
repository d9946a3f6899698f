"""cumetal.core.typing has cuda.core.typing's string enumerations, member for member (checked when
cuda-core is installed: it installs without a GPU)."""

from __future__ import annotations

import enum

import pytest

from cumetal.core import typing as ours

theirs = pytest.importorskip("cuda.core.typing")


@pytest.fixture(autouse=True)
def _mirrored_version():
    """The names are those of cuda-core 1.2 (the API level cumetal.core mirrors); another release may
    add some: then these checks say nothing and skip."""
    from importlib.metadata import version

    if not version("cuda-core").startswith("1.2."):
        pytest.skip(f"cumetal.core mirrors cuda-core 1.2, found {version('cuda-core')}")


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
