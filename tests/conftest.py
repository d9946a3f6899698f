"""Suite-wide markers.

``backend_limit(*backends, reason=...)``: skip the test when ``CUMETAL_BACKEND`` (the default device
every driver-API test runs on) is one of ``backends``, for a limit of that backend its docs record.
Every use is listed in docs/backend-suites.md with its reason.

``driver_context`` (fixture, per module): a context created on device 0 of the default backend and
made current, destroyed after the module's tests.

``cpu_backend`` (fixture): the driver on a fresh, initialized cpu device whatever ``CUMETAL_BACKEND``
says (restored afterwards), for tests about what only the cpu device runs (clusters of several
blocks, cooperative grids: docs/known-gaps.md)."""

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


@pytest.fixture
def cpu_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    from cumetal import driver
    from cumetal.driver.state import STATE

    monkeypatch.setenv("CUMETAL_BACKEND", "cpu")
    for name, value in (("initialized", False), ("device", None), ("primary", None), ("primary_refs", 0)):
        monkeypatch.setattr(STATE, name, value)
    assert int(driver.cuInit(0)[0]) == 0


@pytest.fixture(scope="module")
def driver_context():
    from cumetal import driver

    assert int(driver.cuInit(0)[0]) == 0
    err, ctx = driver.cuCtxCreate(None, 0, driver.cuDeviceGet(0)[1])
    assert int(err) == 0
    yield ctx
    driver.cuCtxDestroy(ctx)
