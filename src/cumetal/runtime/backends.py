"""Choosing the device behind the driver API: ``CUMETAL_BACKEND`` (default ``cpu``)."""

from __future__ import annotations

import os

from cumetal.runtime.protocol import Device

AVAILABLE = ("cpu",)
PLANNED = ("metal", "air-sim", "msl-sim")


class BackendError(Exception):
    """The requested backend does not exist or cannot run here."""


def backend_name() -> str:
    return os.environ.get("CUMETAL_BACKEND", "").strip().lower() or "cpu"


def open_device(name: str | None = None) -> Device:
    """Create the device for backend ``name`` (default: from the environment)."""
    name = name or backend_name()
    if name == "cpu":
        from cumetal.runtime.cpu_device import CpuDevice

        return CpuDevice()
    if name in PLANNED:
        raise BackendError(f"CUMETAL_BACKEND={name!r} is not implemented yet; available: {', '.join(AVAILABLE)}")
    raise BackendError(
        f"unknown CUMETAL_BACKEND={name!r}; expected one of {', '.join(AVAILABLE + PLANNED)}"
    )
