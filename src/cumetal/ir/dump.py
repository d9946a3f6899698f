"""Readable text form of the kernel IR (used by golden tests of the passes and by
``cumetalc --emit=ir``)."""

from __future__ import annotations

from cumetal.ir.nodes import Const, Function, Inst, Module, SymAddr, Value, Var


def _val(v: Value) -> str:
    if isinstance(v, Var):
        return f"%{v.name}.{v.id}" if v.name else f"%v{v.id}"
    if isinstance(v, Const):
        return f"{v.type}:0x{v.bits:x}"
    if isinstance(v, SymAddr):
        off = f"+{v.offset}" if v.offset else ""
        return f"&{v.space}:{v.name}{off}"
    return repr(v)


def _attrs(a: dict) -> str:
    if not a:
        return ""
    return " [" + ", ".join(f"{k}={v}" for k, v in sorted(a.items())) + "]"


def format_inst(inst: Inst) -> str:
    guard = ""
    if inst.guard is not None:
        guard = f"@{'!' if inst.guard_negated else ''}{_val(inst.guard)} "
    lhs = ""
    if inst.dsts:
        lhs = ", ".join(f"{_val(d)}:{d.type}" for d in inst.dsts) + " = "
    args = ", ".join(_val(a) for a in inst.args)
    return f"{guard}{lhs}{inst.op} {args}{_attrs(inst.attrs)}".rstrip()


def dump_function(fn: Function) -> str:
    head = f"{fn.kind} {fn.name}"
    if fn.params:
        head += "(" + ", ".join(f"{p.name}@{p.offset}:{p.size}" for p in fn.params) + ")"
    if fn.arg_vars:
        head += "(" + ", ".join(f"{_val(v)}:{v.type}" for v in fn.arg_vars) + ")"
    if fn.ret_vars:
        head += " -> (" + ", ".join(f"{_val(v)}:{v.type}" for v in fn.ret_vars) + ")"
    extras = []
    if fn.static_shared_size:
        extras.append(f"shared={fn.static_shared_size}")
    if fn.local_size:
        extras.append(f"local={fn.local_size}")
    lines = [head + (" " + " ".join(extras) if extras else "") + " {"]
    for b in fn.blocks:
        lines.append(f"{b.label}:")
        lines.extend("  " + format_inst(i) for i in b.insts)
    lines.append("}")
    return "\n".join(lines)


def dump_module(m: Module) -> str:
    parts = []
    for g in m.globals.values():
        parts.append(f"global {g.space} {g.name} size={g.size} align={g.align}"
                     + (" init" if g.init is not None else ""))
    for f in m.functions.values():
        parts.append(dump_function(f))
    for k in m.kernels.values():
        parts.append(dump_function(k))
    for name, diags in m.failed.items():
        parts.append(f"; kernel {name} not lowered: " + "; ".join(d.message for d in diags))
    return "\n\n".join(parts) + "\n"
