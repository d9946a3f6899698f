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


# Optional operands that a modifier brings (ptxas 13.0 refuses each one without its modifier and
# each modifier without its operand: "Arguments mismatch", ".L2::cache_hint modifier required for
# instruction 'ld' with 3 arguments"). Operand name -> (field, value or None for any, as written).
_TIED: dict[str, tuple[str, str | None, str]] = {
    "cache_policy": ("cache_hint", None, ".L2::cache_hint"),
    "cta_mask": ("multicast", None, ".multicast::cluster"),
    "byte_mask": ("cp_mask", None, ".cp_mask"),
}
_TIED_IN: dict[tuple[str, str], tuple[str, str | None, str]] = {
    ("atom", "c"): ("op", "cas", ".cas"),  # the swap value of compare-and-swap
    ("cvt", "b"): ("atype", "f32", "a .f32 source"),  # cvt.frnd3.ue8m0x2.f32 packs two floats
}


def operand_count_problem(root: str, form: Form, fields: dict[str, str], n_operands: int) -> str | None:
    """Why ``n_operands`` operands do not fit this form once its modifiers are known, or None.

    Checked where every optional operand of the form comes with a modifier (the cache policy of
    ``.L2::cache_hint``, the CTA mask of ``.multicast::cluster``, the swap value of ``atom.cas``…):
    then the count is fixed by the modifiers written. Lowering relies on it."""
    optional = [o for o in form.operands if o.optional]
    if not optional:
        return None
    rules = [_TIED_IN.get((root, o.name)) or _TIED.get(o.name) for o in optional]
    if any(r is None for r in rules):
        return None
    wanted = form.min_operands
    needs = []
    for o, (fld, value, spelled) in zip(optional, rules, strict=True):
        if fld in fields and (value is None or fields[fld] == value):
            wanted += 1
            needs.append(f"'{o.name}' for {spelled}")
    if n_operands == wanted:
        return None
    extra = f" ({', '.join(needs)})" if needs else f" (no {', '.join(repr(o.name) for o in optional)} without " \
        f"{' / '.join(r[2] for r in rules)})"
    return f"takes {wanted} operands{extra}, {n_operands} given"


def canonical_opcode(form: Form, fields: dict[str, str]) -> str:
    """The opcode as the printer writes it: root and modifiers in the form's slot order."""
    return form.canonical(fields)
