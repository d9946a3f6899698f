"""Device printf in the MSL back end: the format table and record layout of the Apple printf ring
(``backends/apple/printf_ring.py``), with the errors raised as the emitter's EmitError."""

from __future__ import annotations

from cumetal.backends.apple import printf_ring
from cumetal.backends.apple.printf_ring import arg_layout, decode_ring, record_layout  # noqa: F401
from cumetal.backends.msl.values import EmitError
from cumetal.ir import nodes as N


class PrintfError(EmitError, printf_ring.PrintfError):
    """A printf the MSL back end cannot lower (its format is not a compile-time string)."""


def resolve_format(fn: N.Function, module: N.Module, inst: N.Inst) -> bytes:
    try:
        return printf_ring.resolve_format(fn, module, inst)
    except printf_ring.PrintfError as exc:
        raise PrintfError(str(exc)) from None


def printf_formats(module: N.Module) -> list[bytes]:
    try:
        return printf_ring.printf_formats(module)
    except printf_ring.PrintfError as exc:
        raise PrintfError(str(exc)) from None
