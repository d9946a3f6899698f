"""The data model of one sweep case: a PTX kernel, its launch shape, its buffers and how to compare them.

A case is backend-neutral: the same object drives the real CUDA driver (to make goldens) and
cumetal.driver (to test CuMetal). Everything in it is deterministic so a fingerprint of it can
tell whether a stored golden still belongs to the case.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

# Float formats a buffer may hold; bf16 lives in uint16 arrays because numpy has no bfloat16.
FLOAT_FORMATS = ("f16", "bf16", "f32", "f64", "f16x2", "bf16x2")


@dataclass(frozen=True, eq=False)
class Buf:
    """A device buffer passed to the kernel as a `.param .u64` pointer.

    init: host data copied in before launch; when None the buffer is filled with the byte `fill`
    (a sentinel, so elements the kernel must not touch are checked too).
    output: read back after the launch and compared with the golden under `rule`.
    fmt: how to interpret elements for float rules ('f16', 'bf16', 'f32', 'f64'); None = integer.
    """

    name: str
    dtype: str
    count: int
    init: np.ndarray | None = None
    fill: int = 0xCD
    output: bool = False
    rule: str = "exact"
    fmt: str | None = None

    def __post_init__(self) -> None:
        if self.init is not None:
            arr = np.ascontiguousarray(self.init, dtype=self.dtype)
            if arr.shape != (self.count,):
                raise ValueError(f"buffer {self.name}: init has shape {arr.shape}, expected ({self.count},)")
            object.__setattr__(self, "init", arr)
        if self.fmt is not None and self.fmt not in FLOAT_FORMATS:
            raise ValueError(f"buffer {self.name}: unknown float format {self.fmt!r}")

    @property
    def nbytes(self) -> int:
        return self.count * np.dtype(self.dtype).itemsize


@dataclass(frozen=True)
class Scalar:
    """A by-value kernel parameter; ptx_type is one of u32, s32, u64, s64, f32, f64."""

    name: str
    ptx_type: str
    value: int | float


@dataclass(frozen=True)
class TensorMapBuf:
    """A `.param .u64` pointer to a 128-byte tensor map in device memory, made by the driver's
    cuTensorMapEncodeTiled over buffer `tensor` (its address is the map's global address) and
    copied to the device (the map's bytes are the driver's own, so they are not compared)."""

    name: str
    tensor: str
    dtype: int
    dims: tuple[int, ...]
    strides: tuple[int, ...]
    box: tuple[int, ...]
    estrides: tuple[int, ...]
    swizzle: int = 0
    oobfill: int = 0
    interleave: int = 0
    l2promo: int = 0


@dataclass(frozen=True)
class Im2colMapBuf(TensorMapBuf):
    """A TensorMapBuf made by cuTensorMapEncodeIm2col instead (`box` and `dims` as for a tiled map;
    the copy's shape comes from these fields). A subclass, so that the tiled maps' fingerprints
    (and their goldens) stay what they were."""

    lower: tuple[int, ...] = ()
    upper: tuple[int, ...] = ()
    channels: int = 0
    pixels: int = 0


Param = Buf | Scalar | TensorMapBuf


@dataclass(frozen=True, eq=False)
class Case:
    """One sweep case: a single `.visible .entry` kernel and how to launch and check it."""

    name: str
    family: str
    ptx: str
    kernel: str
    grid: tuple[int, int, int]
    block: tuple[int, int, int]
    params: tuple[Param, ...]
    shared_bytes: int = 0
    note: str = ""
    tags: tuple[str, ...] = field(default_factory=tuple)

    @property
    def buffers(self) -> list[Buf]:
        return [p for p in self.params if isinstance(p, Buf)]

    @property
    def outputs(self) -> list[Buf]:
        return [b for b in self.buffers if b.output]

    @property
    def inputs(self) -> list[Buf]:
        return [b for b in self.buffers if b.init is not None]

    def fingerprint(self) -> str:
        """Hash of everything that determines the hardware's output (not the comparison rules)."""
        h = hashlib.sha256()
        h.update(self.ptx.encode())
        h.update(repr((self.kernel, self.grid, self.block, self.shared_bytes)).encode())
        for p in self.params:
            if isinstance(p, Scalar):
                h.update(repr(("scalar", p.name, p.ptx_type, p.value)).encode())
            elif isinstance(p, TensorMapBuf):
                h.update(repr(("tensormap", p)).encode())
            else:
                h.update(repr(("buf", p.name, p.dtype, p.count, p.fill, p.output)).encode())
                if p.init is not None:
                    h.update(p.init.tobytes())
        return h.hexdigest()[:16]
