"""What a kernel launch returns on every backend (cpu, air-sim, msl-sim): the fault, if any, and
the printf output."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True, slots=True)
class KernelFault:
    """Why a launch failed, as a CUDA error: ``code`` is one of the device protocol's fault names
    (illegal_address, misaligned_address, trap, assert, timeout, illegal_instruction,
    invalid_launch, ...)."""

    code: str
    message: str


@dataclass(slots=True)
class LaunchOutcome:
    fault: KernelFault | None
    printf: list[str] = field(default_factory=list)
