"""AST → PTX text that ptxas accepts, and ``structure()`` for round-trip comparison.

Instructions are written in the instruction table's canonical modifier order (``Form.canonical``),
so ``add.ftz.rn.f32`` comes back as ``add.rn.ftz.f32``. ``.loc``/``.file``/``.section`` are kept.
"""

from __future__ import annotations

import dataclasses
import math
import struct

from cumetal.ptx import ast as A
from cumetal.ptx.table import TABLE


def print_module(module: A.Module) -> str:
    out: list[str] = []
    w = out.append
    if module.version != (0, 0):
        w(f".version {module.version[0]}.{module.version[1]}")
    if module.targets:
        w(f".target {', '.join(module.targets)}")
    w(f".address_size {module.address_size}")
    w("")
    for item in module.items:
        if isinstance(item, A.Function):
            _function(item, w)
        elif isinstance(item, A.VarDecl):
            w(_var(item) + ";")
        elif isinstance(item, A.FileDirective):
            w(f".file {item.index} {_quote(item.path)}" + (f", {item.extra}" if item.extra else ""))
        elif isinstance(item, A.SectionDirective):
            w(f".section {item.name}\n{{{item.text}}}")
        elif isinstance(item, A.Pragma):
            w(f".pragma {item.text};")
        elif isinstance(item, A.Alias):
            w(f".alias {item.name}, {item.target};")
    w("")
    return "\n".join(out)


def _quote(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _function(fn: A.Function, w) -> None:
    head = (f".{fn.linkage} " if fn.linkage else "") + f".{fn.kind} "
    if fn.kind == "func" and fn.ret_params:
        head += "(" + ", ".join(_param(p) for p in fn.ret_params) + ") "
    head += fn.name
    if fn.params or fn.kind == "entry" or fn.kind == "func":
        if fn.params:
            head += "(\n\t" + ",\n\t".join(_param(p) for p in fn.params) + "\n)"
        else:
            head += "()"
    w(head)
    if fn.noreturn:
        w(".noreturn")
    for k, v in fn.directives.items():
        w(f".{k} {', '.join(str(x) for x in v)}".rstrip())
    for p in fn.pragmas:
        w(f".pragma {p};")
    if fn.body is None:
        w(";")
    else:
        _block(fn.body, w, 0)
    w("")


def _param(p: A.Param) -> str:
    s = f".{p.space}"
    if p.align is not None:
        s += f" .align {p.align}"
    if p.vector:
        s += f" .v{p.vector}"
    s += f" .{p.type}"
    if p.is_ptr:
        s += " .ptr"
        if p.ptr_space:
            s += f" .{p.ptr_space}"
        if p.ptr_align is not None:
            s += f" .align {p.ptr_align}"
    s += f" {p.name}" + _dims(p.dims)
    return s


def _dims(dims: tuple[int | None, ...]) -> str:
    return "".join("[]" if d is None else f"[{d}]" for d in dims)


def _var(v: A.VarDecl) -> str:
    parts = []
    if v.linkage:
        parts.append(f".{v.linkage}")
    parts.append(f".{v.space}")
    parts.extend(v.attrs)
    if v.align is not None:
        parts.append(f".align {v.align}")
    if v.vector:
        parts.append(f".v{v.vector}")
    parts.append(f".{v.type}")
    s = " ".join(parts) + f" {v.name}{_dims(v.dims)}"
    if v.init is not None:
        s += " = " + _init(v.init)
    return s


def _init(i: A.Initializer) -> str:
    if isinstance(i, tuple):
        return "{" + ", ".join(_init(x) for x in i) + "}"
    if isinstance(i, A.Sym):
        base = f"generic({i.name})" if i.generic else i.name
        return base + (f"+{i.offset}" if i.offset > 0 else f"-{-i.offset}" if i.offset < 0 else "")
    return _imm(i)


def _imm(i: A.Imm) -> str:
    if i.kind == "f32":
        return f"0f{int(i.value):08X}"
    if i.kind == "f64":
        return f"0d{int(i.value):016X}"
    if i.kind == "float":
        v = float(i.value)
        if math.isfinite(v):
            return repr(v)
        return f"0d{struct.unpack('<Q', struct.pack('<d', v))[0]:016X}"  # inf/nan have no decimal form
    return str(i.value)


def _block(b: A.Block, w, depth: int) -> None:
    ind = "\t" * depth
    w(ind + "{")
    inner = ind + "\t"
    for s in b.statements:
        if isinstance(s, A.Instruction):
            w(inner + _guard(s.guard) + instruction_text(s) + ";")
        elif isinstance(s, A.Label):
            w(f"{s.name}:")
        elif isinstance(s, A.RegDecl):
            w(inner + _regdecl(s) + ";")
        elif isinstance(s, A.VarDecl):
            w(inner + _var(s) + ";")
        elif isinstance(s, A.Block):
            _block(s, w, depth + 1)
        elif isinstance(s, A.LocDirective):
            w(inner + f".loc {s.file_index} {s.line} {s.col}" + (f", {s.extra}" if s.extra else ""))
        elif isinstance(s, A.Pragma):
            w(inner + f".pragma {s.text};")
        elif isinstance(s, A.UnknownInstruction):
            w(inner + _guard(s.guard) + s.text + ";")
        elif isinstance(s, A.CallPrototype):
            ret = "(" + ", ".join(_param(p) for p in s.ret_params) + ") " if s.ret_params else ""
            args = " (" + ", ".join(_param(p) for p in s.params) + ")" if s.params else ""
            w(f"{s.label}: .callprototype {ret}_{args}" + (" .noreturn" if s.noreturn else "") + ";")
        elif isinstance(s, A.TargetList):
            w(f"{s.label}: .{s.kind} {', '.join(s.targets)};")
    w(ind + "}")


def _guard(g: A.Guard | None) -> str:
    if g is None:
        return ""
    return f"@{'!' if g.negated else ''}{g.reg} "


def _regdecl(r: A.RegDecl) -> str:
    s = ".reg"
    if r.align is not None:
        s += f" .align {r.align}"
    if r.vector:
        s += f" .v{r.vector}"
    s += f" .{r.type} "
    if r.count is not None:
        return s + f"{r.names[0]}<{r.count}>"
    return s + ", ".join(r.names)


def instruction_text(ins: A.Instruction) -> str:
    """One instruction (without guard and ';') in canonical modifier order."""
    form = TABLE[ins.opcode].forms[ins.form]
    op = form.canonical(ins.fields)
    if not ins.operands:
        return op
    return op + " " + ", ".join(operand_text(o) for o in ins.operands)


def operand_text(o: A.Operand) -> str:
    t = type(o)
    if t is A.Reg:
        s = o.name + (f".{o.component}" if o.component else "")
        if o.offset:
            s += f"+{o.offset}" if o.offset > 0 else f"-{-o.offset}"
        return "!" + s if o.negated else "-" + s if o.minus else s
    if t is A.Imm:
        return _imm(o)
    if t is A.Sym:
        return o.name + (f"+{o.offset}" if o.offset > 0 else f"-{-o.offset}" if o.offset < 0 else "")
    if t is A.Sink:
        return "_"
    if t is A.Vector:
        return "{" + ", ".join(operand_text(e) for e in o.elems) + "}"
    if t is A.Address:
        if o.base is None:
            inner = str(o.offset)
        else:
            inner = operand_text(o.base)
            if o.offset > 0:
                inner += f"+{o.offset}"
            elif o.offset < 0:
                inner += f"+{o.offset}"
        if o.sampler is not None:
            inner += ", " + operand_text(o.sampler)
        if o.coords is not None:
            inner += ", " + operand_text(o.coords)
        return f"[{inner}]" + (".unified" if o.unified else "")
    if t is A.Pair:
        return f"{operand_text(o.first)}|{operand_text(o.second)}"
    if t is A.ParamList:
        return "(" + ", ".join(operand_text(e) for e in o.items) + ")"
    raise TypeError(f"not an operand: {o!r}")


# ----------------------------------------------------------------------------- structure
_SKIP_FIELDS = frozenset(("loc", "mods", "filename"))


def structure(node: object) -> object:
    """Hashable nested tuples of the AST without positions (SourceLoc), the modifiers' written
    order (``mods``: presentation only, ``fields`` carry the meaning) and the file name."""
    if dataclasses.is_dataclass(node) and not isinstance(node, type):
        if isinstance(node, A.SourceLoc):
            return None
        out: list[object] = [type(node).__name__]
        for f in dataclasses.fields(node):
            if f.name in _SKIP_FIELDS:
                continue
            out.append((f.name, structure(getattr(node, f.name))))
        return tuple(out)
    if isinstance(node, list | tuple):
        return tuple(structure(x) for x in node)
    if isinstance(node, dict):
        return tuple(sorted((k, structure(v)) for k, v in node.items()))
    return node
