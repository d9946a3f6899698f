"""Execution state of the CPU engine: the launch/batch (``Batch``) and one function activation
over a set of lanes (``Ctx``), plus the engine's fault exception. The outcome types every
backend returns live in ``backends/common/outcome.py`` (re-exported here)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np

from cumetal.backends.common.outcome import KernelFault, LaunchOutcome
from cumetal.ir.nodes import Function, Module

__all__ = ["EXIT", "RET", "WAIT", "Batch", "Ctx", "Fault", "KernelFault", "LaunchOutcome"]

# Program counters: segment numbers are small; parked lanes carry WAIT + their next segment;
# finished lanes carry RET (returned from a device function) or EXIT (thread finished).
WAIT = 1 << 24
RET = 1 << 30
EXIT = RET + 1


class Fault(Exception):
    """Raised inside the engine; becomes ``LaunchOutcome.fault``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


@dataclass(eq=False)
class Batch:
    """One batch of whole CTAs of a launch, and the launch-wide facts the lanes need."""

    mem: object  # DeviceMemory
    module: Module
    kernel: Function
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    cta0: int  # linear id of the batch's first CTA
    nctas: int
    symbols: dict[str, int]
    param_base: int
    shared_size: int  # bytes of shared memory per CTA (static + dynamic)
    dynamic_shared: int
    local_stride: int  # bytes of local memory (stack) per lane
    deadline: float | None
    watchdog_s: float | None
    printf: list[str]
    tpb: int = 0
    wpc: int = 0  # warps per CTA
    shared: np.ndarray | None = None
    local: np.ndarray | None = None
    shared_stride: int = 0
    steps: int = 0
    t0: float = field(default_factory=time.perf_counter)

    def __post_init__(self) -> None:
        bx, by, bz = self.block
        self.tpb = bx * by * bz
        self.wpc = (self.tpb + 31) // 32
        self.shared_stride = (self.shared_size + 15) // 16 * 16
        if self.shared_stride:
            self.shared = np.zeros(self.nctas * self.shared_stride, dtype=np.uint8)
        if self.local_stride:
            self.local = np.zeros(self.nctas * self.tpb * self.local_stride, dtype=np.uint8)

    @property
    def nslots(self) -> int:
        return self.nctas * self.wpc * 32


def _frozen_zero(dt: np.dtype) -> np.ndarray:
    z = np.zeros((), dtype=dt)
    z.flags.writeable = False
    return z


_ZERO = {np.dtype(t): _frozen_zero(np.dtype(t)) for t in (np.bool_, np.uint8, np.uint16, np.uint32, np.uint64)}


class Ctx:
    """One activation of a function over ``n`` lanes: registers, program counters and the
    lanes' identities (CTA in batch, warp slot, root lane, local frame base)."""

    __slots__ = ("batch", "code", "n", "R", "pc", "cta", "slot", "rlane", "frame", "depth",
                 "wait_kind", "wait_mask", "bar_val", "bar_red", "cache")

    def __init__(self, batch: Batch, code, cta: np.ndarray, slot: np.ndarray, rlane: np.ndarray,
                 frame: np.ndarray, depth: int) -> None:
        self.batch = batch
        self.code = code
        self.n = n = len(cta)
        self.R = [_ZERO[dt] for dt in code.var_dtypes]  # uniform zeros until written (never written in place)
        self.cache: dict = {}
        self.pc = np.zeros(n, dtype=np.int32)
        self.cta = cta
        self.slot = slot
        self.rlane = rlane
        self.frame = frame
        self.depth = depth
        self.wait_kind = self.wait_mask = self.bar_val = self.bar_red = None
        if code.has_barriers:
            self.wait_kind = np.zeros(n, dtype=np.int8)
            self.wait_mask = np.zeros(n, dtype=np.uint32)
            self.bar_val = np.zeros(n, dtype=np.uint32)
            self.bar_red = np.full(n, -1, dtype=np.int32)

    def compact(self, m: np.ndarray, regs: tuple[int, ...]) -> Ctx:
        """A view of lanes ``m`` as a dense activation: registers ``regs`` gathered, others shared
        (they are overwritten as a whole before any read). Only for running non-control steps."""
        sub = Ctx.__new__(Ctx)
        sub.batch, sub.code, sub.n, sub.depth = self.batch, self.code, len(m), self.depth
        sub.R = list(self.R)
        for v in regs:
            r = self.R[v]
            if r.ndim:
                sub.R[v] = r[m]
        sub.cta, sub.slot, sub.rlane, sub.frame = self.cta[m], self.slot[m], self.rlane[m], self.frame[m]
        sub.pc = None
        sub.wait_kind = sub.wait_mask = sub.bar_val = sub.bar_red = None
        sub.cache = {}
        return sub

    def lanes(self, m: np.ndarray | None) -> np.ndarray:
        return np.arange(self.n) if m is None else m
