"""Choosing the device behind the driver API: ``CUMETAL_BACKEND`` (default ``cpu``; on macOS
with a Metal GPU the default is ``metal``)."""

from __future__ import annotations

import os
import sys

from cumetal.devices.protocol import Device

AVAILABLE = ("cpu", "cpu-jit", "metal", "air-sim", "msl-sim")
PLANNED: tuple[str, ...] = ()


class BackendError(Exception):
    """The requested backend does not exist or cannot run here."""


def backend_name() -> str:
    return os.environ.get("CUMETAL_BACKEND", "").strip().lower() or "cpu"


CPU_ENGINES = ("numpy", "jit")
DEFAULT_CPU_ENGINE = "jit"  # the compiled backend, tiered (docs/cpu-backend.md); "numpy": the reference


def cpu_engine() -> str:
    """What ``CUMETAL_BACKEND=cpu`` runs kernels on: ``CUMETAL_CPU_ENGINE`` = ``jit`` (the default:
    the compiled backend with tiering, small launches on the numpy engine until
    a compile pays off) or ``numpy`` (the numpy engine only, the reference); default
    ``DEFAULT_CPU_ENGINE``. Another value is said on stderr and the default is used."""
    raw = os.environ.get("CUMETAL_CPU_ENGINE", "").strip().lower()
    if not raw:
        return DEFAULT_CPU_ENGINE
    if raw in CPU_ENGINES:
        return raw
    print(f"cumetal: CUMETAL_CPU_ENGINE={raw!r} is not one of {', '.join(CPU_ENGINES)}; using "
          f"{DEFAULT_CPU_ENGINE}", file=sys.stderr, flush=True)
    return DEFAULT_CPU_ENGINE


def open_device(name: str | None = None) -> Device:
    """Create the device for backend ``name`` (default: from the environment)."""
    if name is None and not os.environ.get("CUMETAL_BACKEND", "").strip() and sys.platform == "darwin":
        return _metal_or_cpu()
    name = name or backend_name()
    if name == "metal":
        return _metal()
    if name == "cpu":
        if cpu_engine() == "jit":
            from cumetal.devices.cpu_jit_device import CpuJitDevice, tiering

            return CpuJitDevice(tiered=tiering(True))  # small launches on the numpy engine until a compile pays
        from cumetal.devices.cpu_device import CpuDevice

        return CpuDevice()
    if name == "cpu-jit":
        from cumetal.devices.cpu_jit_device import CpuJitDevice

        return CpuJitDevice()
    if name == "air-sim":
        from cumetal.devices.air_sim_device import AirSimDevice

        return AirSimDevice()
    if name == "msl-sim":
        from cumetal.devices.msl_sim_device import MslSimDevice

        return MslSimDevice()
    if name in PLANNED:
        raise BackendError(f"CUMETAL_BACKEND={name!r} is not implemented yet; available: {', '.join(AVAILABLE)}")
    raise BackendError(
        f"unknown CUMETAL_BACKEND={name!r}; expected one of {', '.join(AVAILABLE + PLANNED)}"
    )


def _metal() -> Device:
    from cumetal.devices.metal import MetalInitError, MetalUnavailable, open_metal_device

    try:
        return open_metal_device()
    except (MetalUnavailable, MetalInitError) as e:
        raise BackendError(f"CUMETAL_BACKEND='metal' cannot be used: {e}") from None


def _metal_or_cpu() -> Device:
    """macOS without an explicit choice: Metal when it works, else the CPU device (said on stderr)."""
    from cumetal.devices.metal import MetalInitError, MetalUnavailable, open_metal_device

    try:
        return open_metal_device()
    except (MetalUnavailable, MetalInitError) as e:
        print(f"cumetal: the Metal backend cannot be used ({e}); using the CPU device", file=sys.stderr, flush=True)
        return open_device("cpu")
