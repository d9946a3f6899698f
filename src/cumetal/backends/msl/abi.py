"""The Metal argument ABI, as the MSL back end uses it: defined once in ``backends/apple/abi.py``
(shared with the AIR back end, the simulators and the Metal device) and re-exported here."""

from __future__ import annotations

from cumetal.backends.apple.abi import *  # noqa: F403
from cumetal.backends.apple.abi import BufferBinding, argument_abi, indirect_targets, reachable_functions  # noqa: F401
