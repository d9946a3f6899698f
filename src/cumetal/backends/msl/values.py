"""MSL spelling of IR types, constants, variables and symbol addresses."""

from __future__ import annotations

import re
import struct

from cumetal.backends.msl.reserved import MSL_RESERVED
from cumetal.ir import nodes as N
from cumetal.ir import types as T
from cumetal.ir.ops import FUNC_WINDOW

# f16/bf16 registers hold their bit patterns (exact conversions are done in software), so the
# emitted code never depends on the GPU's half-precision rounding or NaN behaviour.
_UNSIGNED = {"i1": "bool", "i8": "uchar", "i16": "ushort", "i32": "uint", "i64": "ulong",
             "f16": "ushort", "bf16": "ushort", "f32": "float"}
_SIGNED = {"i8": "char", "i16": "short", "i32": "int", "i64": "long"}
# (mantissa bits, exponent bits) of each float format
FORMATS = {"f16": (10, 5), "bf16": (7, 8), "f32": (23, 8), "f64": (52, 11)}
ROUND = {"rn": "CM_RN", "rz": "CM_RZ", "rm": "CM_RM", "rp": "CM_RP"}


class EmitError(Exception):
    """The IR uses something the MSL back end cannot express."""


def msl_type(t: str, fp64: str) -> str:
    if t == "f64":  # only under --fp64=native/warn: emulate leaves no f64 (passes/legalize/fp64)
        return "double"
    return _UNSIGNED[t]


def signed_type(t: str) -> str:
    return _SIGNED[t]


def var_name(v: N.Var) -> str:
    """``<name>_<id>``: distinct for distinct registers of a function (the id after the last ``_`` is
    unique), whatever characters the PTX name had (``%a``/``$a``/``a`` differ by id)."""
    base = re.sub(r"[^A-Za-z0-9_]", "_", v.name or "v")
    name = f"{base}_{v.id}"
    # A `%`-less PTX register could still spell a macro (`M_PI` id 2 -> <cmath>'s `M_PI_2` under
    # msl-sim) or one of the emitter's own cm_*/cmf_* names (`cmf_f` id 3 -> the device function
    # `f_3`): move it aside.
    if name in MSL_RESERVED or name.startswith(("M_", "FLT_", "DBL_")) or name.lower().startswith("cm"):
        return "cmv_" + name
    return name


def int_literal(t: str, bits: int) -> str:
    bits &= T.mask(t)
    if t == "i1":
        return "true" if bits else "false"
    if t == "i64":
        return f"0x{bits:x}ul" if bits > 9 else f"{bits}ul"
    if t == "i32":
        return f"0x{bits:x}u" if bits > 9 else f"{bits}u"
    return f"{_UNSIGNED[t]}({bits})"


def float_literal(t: str, bits: int, fp64: str) -> str:
    if t in ("f16", "bf16"):
        return f"ushort(0x{bits:04x})"
    if t == "f32":
        v = struct.unpack("<f", struct.pack("<I", bits))[0]
        text = repr(v)
        if v == v and abs(v) != float("inf") and len(text) <= 12 and ("." in text or "e" in text):
            return text + "f"
        return f"as_type<float>(0x{bits:08x}u)"
    v = struct.unpack("<d", struct.pack("<Q", bits))[0]
    text = repr(v)
    if v == v and abs(v) != float("inf") and len(text) <= 18 and ("." in text or "e" in text):
        return text
    return f"as_type<double>(0x{bits:016x}ul)"


def const_text(c: N.Const, fp64: str) -> str:
    return float_literal(c.type, c.bits, fp64) if T.is_float(c.type) else int_literal(c.type, c.bits)


def symaddr_text(s: N.SymAddr, module: N.Module, fn: N.Function, globals_index: dict[str, int]) -> str:
    """The IR address of a named object, as a ulong expression."""
    off = f" + {s.offset}" if s.offset else ""
    if s.space in ("global", "const"):
        if s.name not in globals_index:
            raise EmitError(f"unknown module variable '{s.name}'")
        return f"(cm_global_addr(cm, {globals_index[s.name]}u){off})"
    if s.space == "param":
        p = next((p for p in fn.params if p.name == s.name), None)
        if p is None:
            raise EmitError(f"unknown kernel parameter '{s.name}'")
        return f"(cm_params_addr(cm) + {p.offset + s.offset})"
    if s.space == "shared":
        if s.name not in fn.shared_vars:
            raise EmitError(f"unknown shared variable '{s.name}'")
        return f"{fn.shared_vars[s.name][0] + s.offset}ul"
    if s.space == "local":
        if s.name not in fn.local_vars:
            raise EmitError(f"unknown local variable '{s.name}'")
        return f"(cm_frame + {fn.local_vars[s.name] + s.offset})"
    if s.space == "func":
        if s.name not in module.functions:
            raise EmitError(f"unknown function '{s.name}'")
        return f"0x{module.function_address(s.name) + s.offset:x}ul"
    raise EmitError(f"address of '{s.name}' in space {s.space}")


__all__ = ["EmitError", "FORMATS", "ROUND", "FUNC_WINDOW", "msl_type", "signed_type", "var_name",
           "const_text", "symaddr_text", "int_literal", "float_literal"]
