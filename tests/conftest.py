"""Suite-wide markers.

``backend_limit(*backends, reason=...)``: skip the test when ``CUMETAL_BACKEND`` (the default device
every driver-API test runs on) is one of ``backends``, for a limit of that backend its docs record.
Every use is listed in docs/backend-suites.md with its reason."""

from __future__ import annotations

import os

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "backend_limit(*backends, reason): skip when CUMETAL_BACKEND is one of backends "
        "(a documented limit of that backend; listed in docs/backend-suites.md)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    backend = os.environ.get("CUMETAL_BACKEND", "").strip().lower() or "cpu"
    for mark in item.iter_markers("backend_limit"):
        if backend in mark.args:
            pytest.skip(f"{backend}: {mark.kwargs.get('reason', 'a documented limit of this backend')}")
