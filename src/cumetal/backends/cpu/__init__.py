"""cumetal.backends.cpu: executes kernel IR on the CPU with the semantics of an Apple GPU.

``launch`` runs one kernel over a grid (see ``launch.py``); device memory lives in ``memory.py``.
The design (min-PC scheduling over lane arrays, batching, exact float rounding) is described in
docs/cpu-backend.md.
"""

from cumetal.backends.cpu.launch import launch
from cumetal.backends.cpu.state import KernelFault, LaunchOutcome

__all__ = ["launch", "LaunchOutcome", "KernelFault"]
