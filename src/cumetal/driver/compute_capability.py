"""``CUMETAL_COMPUTE_CAPABILITY``: the compute capability the device reports (8.0 by default).

``9.0`` (also ``90``, ``sm_90``) is honoured on devices that run a grid's blocks together (``cpu``,
``cpu-jit``): they execute what compute capability 9.0 adds to PTX — thread block clusters and
distributed shared memory, ``wgmma``, bulk/tensor copies with ``mbarrier`` transaction counts — and
the sweep checks those against an H100 (docs/ptx-sweep.md). With it the device reports 9.0 and
sm_90's shared memory (227 KiB per block opted in, 228 KiB per multiprocessor), so programs that
test for Hopper (cuda.core's ``LaunchConfig(cluster=…)``, samples that check ``major >= 9``) run.
Devices that run one block at a time (``air-sim``, ``msl-sim``, ``metal``) cannot launch clusters:
they keep 8.0 and say why on stderr.
"""

from __future__ import annotations

import dataclasses
import os
import re
import sys
from typing import Any

SM90_SHARED_MEMORY_PER_BLOCK_OPTIN = 227 * 1024
SM90_SHARED_MEMORY_PER_MULTIPROCESSOR = 228 * 1024
SUPPORTED = {(8, 0), (9, 0)}


def requested() -> tuple[int, int] | None:
    """The capability ``CUMETAL_COMPUTE_CAPABILITY`` asks for, or None when unset or unreadable."""
    raw = os.environ.get("CUMETAL_COMPUTE_CAPABILITY", "").strip().lower()
    if not raw:
        return None
    m = re.fullmatch(r"(?:sm_?|compute_)?(\d)\.?(\d)", raw)
    cc = (int(m.group(1)), int(m.group(2))) if m else None
    if cc not in SUPPORTED:
        print(f"cumetal: CUMETAL_COMPUTE_CAPABILITY={raw!r} ignored: CuMetal devices report 8.0 or 9.0",
              file=sys.stderr, flush=True)
        return None
    return cc


def apply(device: Any, runs_grouped_launches: bool) -> None:
    """Give ``device`` the requested compute capability where it can honour it (at cuInit)."""
    cc = requested()
    if cc is None or cc == device.info.compute_capability:
        return
    if cc == (9, 0):
        if not runs_grouped_launches:
            print(f"cumetal: CUMETAL_COMPUTE_CAPABILITY=9.0 ignored: the {device.info.name} device runs one block "
                  "at a time, so it cannot launch thread block clusters; it reports 8.0", file=sys.stderr, flush=True)
            return
        device.info = dataclasses.replace(
            device.info, compute_capability=cc,
            shared_memory_per_block_optin=max(device.info.shared_memory_per_block_optin,
                                              SM90_SHARED_MEMORY_PER_BLOCK_OPTIN),
            shared_memory_per_multiprocessor=max(device.info.shared_memory_per_multiprocessor,
                                                 SM90_SHARED_MEMORY_PER_MULTIPROCESSOR))
