"""Device printf on the CPU backend: the shared formatter (backends/common/printf_format.py),
the same one air-sim, msl-sim and the Metal device use."""

from __future__ import annotations

from cumetal.backends.common.printf_format import ReadArg, ReadStr, format_printf

__all__ = ["ReadArg", "ReadStr", "format_printf"]
