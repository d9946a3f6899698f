"""Fixtures of the cluster tests."""

from __future__ import annotations

import pytest


@pytest.fixture
def cpu_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """The driver on a fresh cpu device whatever CUMETAL_BACKEND says (restored afterwards): the Apple
    targets refuse clusters of more than one block (docs/known-gaps.md: no distributed shared memory)
    and cooperative grids of more than one (driver/launch_groups.py), and these tests are about them."""
    from cumetal.driver.state import STATE

    monkeypatch.setenv("CUMETAL_BACKEND", "cpu")
    for name, value in (("initialized", False), ("device", None), ("primary", None), ("primary_refs", 0)):
        monkeypatch.setattr(STATE, name, value)
