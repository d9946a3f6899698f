"""The PTX instruction table: every instruction of PTX ISA 9.x described once, as *forms*.

The forms (notation: ``cumetal.ptx.forms``) follow the syntax blocks of NVIDIA's PTX ISA manual;
the catalogue itself lives in ``cumetal.ptx.isa`` (one module per chapter of the manual). This
module compiles it once at import and answers the questions the parser, the printer and later layers
ask: which forms does an opcode root have, how does a written opcode decode.
"""

from __future__ import annotations

from dataclasses import dataclass

from cumetal.ptx.forms import Form, compile_form
from cumetal.ptx.isa import CATALOGUE
from cumetal.ptx.isa.sets import FIELD_ALIAS, LITERAL_SLOT, SETS


@dataclass(frozen=True, slots=True)
class Instr:
    """One instruction root with its forms (the unit of the coverage catalogue)."""

    opcode: str
    forms: tuple[Form, ...]
    group: str  # chapter of the manual: 'integer', 'float', 'data', …


def _build() -> dict[str, Instr]:
    table: dict[str, Instr] = {}
    for group, entries in CATALOGUE:
        for root, forms, local in entries:
            compiled = []
            for i, f in enumerate(forms):
                text, form_sets = (f if isinstance(f, tuple) else (f, {}))
                sets = {**SETS, **local, **form_sets}
                compiled.append(compile_form(root, text, i, sets, LITERAL_SLOT, FIELD_ALIAS))
            if root in table:  # the same root in two chapters: forms are appended in order
                old = table[root]
                base = len(old.forms)
                compiled = [
                    Form(c.opcode, c.text, c.slots, c.operands, base + k, c.min_operands) for k, c in enumerate(compiled)
                ]
                table[root] = Instr(root, old.forms + tuple(compiled), old.group)
            else:
                table[root] = Instr(root, tuple(compiled), group)
    return table


TABLE: dict[str, Instr] = _build()
_MAX_ROOT_DEPTH = max(r.count(".") + 1 for r in TABLE)


def lookup(opcode_root: str) -> list[Form]:
    """The forms of an opcode root ('add', 'cp.async.bulk.tensor'); [] when unknown."""
    ins = TABLE.get(opcode_root)
    return list(ins.forms) if ins else []


def all_opcodes() -> list[str]:
    """Every opcode root of the table, sorted."""
    return sorted(TABLE)


def split_opcode(opcode: str) -> tuple[str | None, tuple[str, ...]]:
    """Split a written opcode into (root, modifiers) by the longest root prefix the table knows.

    ``ld.global.nc.v4.f32`` → ('ld', ('global', 'nc', 'v4', 'f32')); (None, parts) if no root fits.
    """
    parts = opcode.split(".")
    for n in range(min(len(parts), _MAX_ROOT_DEPTH), 0, -1):
        root = ".".join(parts[:n])
        if root in TABLE:
            return root, tuple(parts[n:])
    return None, tuple(parts[1:])


@dataclass(frozen=True, slots=True)
class Decoded:
    """How a written opcode decodes: its root and every form whose modifiers fit, with fields."""

    root: str | None
    mods: tuple[str, ...]
    candidates: tuple[tuple[Form, dict[str, str]], ...]
    bad_mods: tuple[str, ...] = ()  # modifiers no form of the root knows at all


_DECODE_CACHE: dict[str, Decoded] = {}


def decode(opcode: str) -> Decoded:
    """Decode a written opcode (cached: real files repeat a few hundred opcodes millions of times)."""
    d = _DECODE_CACHE.get(opcode)
    if d is not None:
        return d
    root, mods = split_opcode(opcode)
    if root is None:
        d = Decoded(None, mods, ())
    else:
        forms = TABLE[root].forms
        cands = []
        for f in forms:
            fields = f.decode(mods)
            if fields is not None:
                cands.append((f, fields))
        bad: tuple[str, ...] = ()
        if not cands:
            known = set().union(*(s.values for f in forms for s in f.slots)) if forms else set()
            bad = tuple(m for m in mods if m not in known)
        d = Decoded(root, mods, tuple(cands), bad)
    if len(_DECODE_CACHE) < 100_000:  # junk input must not grow the cache without bound
        _DECODE_CACHE[opcode] = d
    return d


def canonical_opcode(form: Form, fields: dict[str, str]) -> str:
    """The opcode as the printer writes it: root and modifiers in the form's slot order."""
    return form.canonical(fields)
