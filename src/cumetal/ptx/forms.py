"""The form mini-language of the instruction table, compiled once into matchers.

A *form* is written close to the PTX ISA manual's own notation::

    "add{.rnd}{.ftz}{.sat}.f32 d, a, b"

* ``.name``  — a required slot; ``{.name}`` — an optional one. ``name`` refers to a value set (given
  to the instruction, or one of the shared sets in ``table.SETS``); a name that is no set is a
  literal modifier (``.f32``, ``.sync``): its slot is named by ``LITERAL_SLOT`` (types → ``type``,
  state spaces → ``ss``) or by itself.
* Operands: ``d`` any value (register, immediate, symbol, vector, ``_``), ``[a]`` an address,
  ``*a`` any operand at all (a value or an address),
  ``(a)`` a parenthesised list (``call``), ``d{|p}`` a value that may be a two-output pair ``d|p``,
  ``{, c}`` an optional trailing operand (may repeat: ``a{, b}{, c}``).

Decoding a written opcode assigns each written modifier to the earliest still-empty slot whose set
contains it; the modifiers may therefore be written out of the manual's order when that is
unambiguous, while the printer always writes slot order (``Form.canonical``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# Operand kinds of a form
VALUE = "value"
ADDRESS = "address"
PLIST = "plist"
ANY = "any"  # written '*name': any operand kind (e.g. an operand that is a descriptor or a [tmem] address)


@dataclass(frozen=True, slots=True)
class Slot:
    name: str
    values: frozenset[str]
    optional: bool
    literal: bool  # written as a fixed modifier in the form (e.g. '.sync')


@dataclass(frozen=True, slots=True)
class OperandSpec:
    name: str
    kind: str  # VALUE | ADDRESS | PLIST
    optional: bool = False
    pair: bool = False  # may be written 'd|p'


@dataclass(frozen=True, slots=True)
class Form:
    opcode: str  # root, e.g. 'add', 'cp.async.bulk.tensor'
    text: str  # the form as written in the table
    slots: tuple[Slot, ...]
    operands: tuple[OperandSpec, ...]
    index: int  # position among the root's forms
    min_operands: int = 0


    def decode(self, mods: tuple[str, ...] | list[str]) -> dict[str, str] | None:
        """Assign written modifiers to slots; None when they do not fit this form."""
        slots = self.slots
        filled: list[str | None] = [None] * len(slots)
        for m in mods:
            for i, s in enumerate(slots):
                if filled[i] is None and m in s.values:
                    filled[i] = m
                    break
            else:
                return None
        fields: dict[str, str] = {}
        for s, v in zip(slots, filled, strict=True):
            if v is None:
                if not s.optional:
                    return None
            else:
                fields[s.name] = v
        return fields

    def canonical(self, fields: dict[str, str]) -> str:
        """The opcode spelled in the table's slot order."""
        parts = [self.opcode]
        for s in self.slots:
            v = fields.get(s.name)
            if v is not None:
                parts.append(v)
        return ".".join(parts)

    def usage(self) -> str:
        return self.text


_SLOT_RE = re.compile(r"\{\.([\w:]+)\}|\.([\w:]+)")


def compile_form(
    root: str,
    text: str,
    index: int,
    sets: dict[str, tuple[str, ...] | frozenset[str]],
    literal_slot: dict[str, str],
    field_alias: dict[str, str] | None = None,
) -> Form:
    head, _, ops = text.strip().partition(" ")
    if not head.startswith(root) or (len(head) > len(root) and head[len(root)] not in ".{"):
        raise ValueError(f"form {text!r} does not start with its root {root!r}")
    rest = head[len(root) :]
    slots: list[Slot] = []
    pos = 0
    names: set[str] = set()
    while pos < len(rest):
        m = _SLOT_RE.match(rest, pos)
        if m is None:
            raise ValueError(f"bad form {text!r} at {rest[pos:]!r}")
        pos = m.end()
        name = m.group(1) or m.group(2)
        optional = m.group(1) is not None
        if name in sets:
            field = (field_alias or {}).get(name, name)
            slot = Slot(field, frozenset(v.lstrip(".") for v in sets[name]), optional, False)
        else:
            slot = Slot(literal_slot.get(name, name), frozenset((name,)), optional, True)
        if slot.name in names and slot.literal and slot.name != "type":
            slot = Slot(name, slot.values, slot.optional, True)  # e.g. a second state space
        if slot.name in names and slot.name != "type":
            raise ValueError(f"form {text!r}: slot {slot.name!r} used twice; name the slots")
        names.add(slot.name)
        slots.append(slot)
    # several literal types in one form (``.s32.b1.b1.s32``) are dtype, atype, btype, ctype in order,
    # as the manual names them
    typed = [i for i, sl in enumerate(slots) if sl.name == "type"]
    if len(typed) > 1:
        if len(typed) > len(_TYPE_SEQ) or any(not slots[i].literal for i in typed):
            raise ValueError(f"form {text!r}: slot 'type' used twice; name the slots")
        for i, new_name in zip(typed, _TYPE_SEQ, strict=False):
            if new_name in names:
                raise ValueError(f"form {text!r}: slot {new_name!r} used twice; name the slots")
            slots[i] = Slot(new_name, slots[i].values, slots[i].optional, True)
    operands = _compile_operands(ops, text)
    nmin = sum(1 for o in operands if not o.optional)
    return Form(root, text, tuple(slots), operands, index, nmin)


_TYPE_SEQ = ("dtype", "atype", "btype", "ctype")


def _compile_operands(ops: str, text: str) -> tuple[OperandSpec, ...]:
    ops = ops.strip().rstrip(";").strip()
    if not ops:
        return ()
    out: list[OperandSpec] = []
    # split on ',' outside brackets; '{, x}' marks an optional operand
    depth = 0
    cur = ""
    pieces: list[str] = []
    for ch in ops:
        if ch in "[({":
            depth += 1
        elif ch in "])}":
            depth -= 1
        if ch == "," and depth == 0:
            pieces.append(cur)
            cur = ""
        else:
            cur += ch
    pieces.append(cur)
    for raw in pieces:
        p = raw.strip()
        optional = False
        # '{, c}' style optional pieces come out as '{' … '}' fragments after splitting
        while p.startswith("{") and p.endswith("}") and p[1:].lstrip().startswith(","):
            optional = True
            p = p[1:-1].strip()[1:].strip()
        if "{," in p:  # 'a{, b}{, c}' → 'a' then optional 'b', 'c'
            first, *opts = p.split("{,")
            out.append(_operand(first.strip(), optional))
            for o in opts:
                out.append(_operand(o.strip().rstrip("}").strip(), True))
            continue
        out.append(_operand(p, optional))
    seen_optional = False
    for o in out:
        if o.optional:
            seen_optional = True
        elif seen_optional:
            raise ValueError(f"form {text!r}: required operand after an optional one")
    return tuple(out)


def _operand(p: str, optional: bool) -> OperandSpec:
    if p.startswith("[") and p.endswith("]"):
        return OperandSpec(p[1:-1].strip(), ADDRESS, optional)
    if p.startswith("(") and p.endswith(")"):
        return OperandSpec(p[1:-1].strip(), PLIST, optional)
    if p.endswith("{|p}") or "{|" in p:
        return OperandSpec(p.split("{|")[0].strip(), VALUE, optional, pair=True)
    if "|" in p:
        return OperandSpec(p.split("|")[0].strip(), VALUE, optional, pair=True)
    if not p:
        raise ValueError("empty operand in form")
    if p.startswith("*"):
        return OperandSpec(p[1:], ANY, optional)
    return OperandSpec(p, VALUE, optional)
