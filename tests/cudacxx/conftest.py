"""Fixtures for the CUDA C++ front-end tests (the harness is cudacxx_harness.py)."""

from __future__ import annotations

import pytest
from cudacxx_harness import CuGpu


@pytest.fixture
def gpu():
    g = CuGpu()
    yield g
    g.close()
