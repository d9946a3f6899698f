"""Fixtures of the msl tests (helpers live in msl_testing.py)."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture(scope="session")
def rng() -> np.random.Generator:
    return np.random.default_rng(20261122)
