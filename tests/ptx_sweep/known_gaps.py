"""Sweep cases where the CPU backend is allowed to differ from NVIDIA hardware, with the reason.

Each entry turns the case into xfail(strict=True): when the gap is fixed the test fails until the
entry is removed here. Keep reasons specific (what differs and why it is acceptable or pending).
"""

from __future__ import annotations

KNOWN_GAPS: dict[str, str] = {}
