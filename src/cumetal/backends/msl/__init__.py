"""cumetal.backends.msl: kernel IR -> Metal Shading Language, and msl-sim to run it on Linux."""

from cumetal.backends.msl.abi import BufferBinding, argument_abi
from cumetal.backends.msl.emit import EmitResult, emit_module, emit_msl
from cumetal.backends.msl.values import EmitError

__all__ = ["BufferBinding", "EmitError", "EmitResult", "argument_abi", "emit_module", "emit_msl"]
