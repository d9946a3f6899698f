"""tests/device_heap: the Metal stand-in fixtures of tests/devices (a driver whose cuInit opens the
Metal backend on RecordingMetal, and a context on it)."""

from __future__ import annotations

import pathlib
import sys

sys.path.insert(0, str(pathlib.Path(__file__).parents[1] / "devices"))

from test_metal_driver_calls import ctx, metal  # noqa: E402,F401 (fixtures)
