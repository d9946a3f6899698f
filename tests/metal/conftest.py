"""The real-Metal suite: runs only on macOS with a usable Metal GPU, skipped elsewhere with the reason.

Every test here uses the ``on_metal`` fixture: ONE MetalDevice for the session (its arena and
pipeline caches are kept), installed as the driver's device for the test, whatever
CUMETAL_BACKEND says, so that this suite always exercises Metal.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]
for extra in (TESTS, TESTS / "functional"):  # ptx_sweep package, functional_harness
    if str(extra) not in sys.path:
        sys.path.insert(0, str(extra))


def _why_not_metal() -> str | None:
    if sys.platform != "darwin":
        return f"needs macOS with a Metal GPU; this is {sys.platform}"
    try:
        from cumetal.devices.metal import PyObjCFactory

        if PyObjCFactory().system_default_device() is None:
            return "MTLCreateSystemDefaultDevice() found no Metal GPU"
    except Exception as e:  # MetalUnavailable: PyObjC missing
        return f"Metal is not usable here: {e}"
    return None


WHY_NOT = _why_not_metal()


def pytest_collection_modifyitems(config, items):
    # GPU-fault tests last: after a GPU fault macOS may ignore the process's later command buffers
    items.sort(key=lambda item: "faults_isolated" in str(item.fspath))
    if WHY_NOT is None:
        return
    here = Path(__file__).resolve().parent
    skip = pytest.mark.skip(reason=WHY_NOT)
    for item in items:
        if here in Path(str(item.fspath)).resolve().parents:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def metal_device():
    from cumetal.devices.metal import open_metal_device

    return open_metal_device()


@pytest.fixture
def on_metal(metal_device, monkeypatch):
    from cumetal.driver.state import STATE

    monkeypatch.setenv("CUMETAL_BACKEND", "metal")
    monkeypatch.setattr(STATE, "initialized", True)
    monkeypatch.setattr(STATE, "device", metal_device)
    monkeypatch.setattr(STATE, "primary", None)
    monkeypatch.setattr(STATE, "primary_refs", 0)
    return metal_device
