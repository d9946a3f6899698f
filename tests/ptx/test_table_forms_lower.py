"""Every form of the instruction table, spelled with registers and addresses, either lowers to the
kernel IR or is refused with a reason: never an 'internal' error (a KeyError/IndexError in a
semantics function). Found by the #10 audit's walk over the table: madc without .hi/.lo (KeyError
'mode', the class of issue #10's mad24.hi.sat.s32), .L2::cache_hint / .multicast::cluster / atom.cas /
cvt...ue8m0x2.f32 with the operand their modifier brings left out (IndexError, ValueError); the
parser now refuses those as ptxas 13.0 does (tests/ptx/test_parser_diagnostics.py).

The forms are taken from ``cumetal.ptx.table`` (a fixed sample of modifier combinations per form;
operand registers sized from the form's type slots, so some spellings are not legal PTX: those must
end in a parse diagnostic or a lowering refusal, which is the property checked)."""

from __future__ import annotations

import itertools
import random

from cumetal.passes import lower_parsed
from cumetal.ptx import parse
from cumetal.ptx.forms import ADDRESS, VALUE
from cumetal.ptx.table import TABLE

PER_FORM = 12
GROUPS = ("arithmetic", "logic", "data", "video", "misc", "control", "sync")
_WIDTH = {**dict.fromkeys("b8 u8 s8 b16 u16 s16 f16 bf16 e4m3x2 e5m2x2 e2m3x2 e3m2x2 e2m1x2 ue8m0x2".split(), "h"),
          **dict.fromkeys("b32 u32 s32 f32 f16x2 bf16x2 u16x2 s16x2 tf32".split(), "r"),
          **dict.fromkeys("b64 u64 s64 f64 f32x2".split(), "rd"), "b128": "q", "pred": "p"}
HEAD = ".version 8.7\n.target sm_90a\n.address_size 64\n"
KERNEL = """.visible .entry k{i}(.param .u64 o)
{{
  .reg .b16 %h<8>; .reg .b32 %r<8>; .reg .b64 %rd<8>; .reg .b128 %q<8>; .reg .pred %p<8>; .reg .b64 %out;
  ld.param.u64 %out, [o];
  {line}
  ret;
}}
"""


def _spelling(root: str, form, combo: tuple, rng: random.Random) -> str:
    fields = {s.name: v for s, v in zip(form.slots, combo, strict=True) if v is not None}
    typed = [v for n, v in fields.items() if v in _WIDTH and n not in ("dtype", "atype", "btype", "ctype")]
    t = typed[0] if typed else next((fields[n] for n in ("dtype", "atype") if n in fields), "b32")
    by_name = {"d": fields.get("dtype", t), "a": fields.get("atype", t),
               "b": fields.get("btype", fields.get("atype", t)), "c": fields.get("ctype", fields.get("dtype", t))}
    ops = []
    for k, o in enumerate(form.operands):
        if o.optional and rng.random() < 0.5:
            break
        if o.kind == ADDRESS:
            ops.append("[%out]")
            continue
        name = o.name.lstrip("{!}").strip()
        if name in ("p", "q") or (o.pair and name != "d") or (name == "c" and root in ("selp", "setp", "set")):
            ops.append(f"%p{k + 1}")
        else:
            ops.append({"h": "%h", "r": "%r", "rd": "%rd", "q": "%q", "p": "%p"}[_WIDTH.get(by_name.get(name, "b32"), "r")]
                       + str(k + 1))
    return ".".join([root] + [v for v in combo if v is not None]) + (" " + ", ".join(ops) if ops else "") + ";"


def _spellings() -> list[str]:
    rng = random.Random(20261125)
    out = set()
    for root, ins in sorted(TABLE.items()):
        if ins.group not in GROUPS:
            continue
        for form in ins.forms:
            if any(o.kind not in (VALUE, ADDRESS) for o in form.operands):
                continue
            combos = list(itertools.product(*[([None] if s.optional else []) + sorted(s.values) for s in form.slots]))
            picked = combos[:1] + rng.sample(combos[1:], min(PER_FORM - 1, len(combos) - 1))
            out.update(_spelling(root, form, c, rng) for c in picked)
    return sorted(out)


def test_every_table_form_lowers_or_is_refused_with_a_reason():
    lines = _spellings()
    assert len(lines) > 1500
    res = parse(HEAD + "".join(KERNEL.format(i=i, line=ln) for i, ln in enumerate(lines)), "forms.ptx")
    # a spelling that does not parse: its kernel (7 lines each, after the 3 of HEAD) is dropped; the
    # parser's own tests cover its diagnostics
    bad = {(d.loc.line - 4) // 7 for d in res.diagnostics if d.severity == "error"}
    keep = [ln for i, ln in enumerate(lines) if i not in bad]
    text = HEAD + "".join(KERNEL.format(i=i, line=ln) for i, ln in enumerate(keep))
    res = parse(text, "forms.ptx")
    assert not [d for d in res.diagnostics if d.severity == "error"]
    module = lower_parsed(res, text, "forms.ptx")
    internal = [f"{keep[int(k[1:])]} => {ds[0].message}" for k, ds in module.failed.items()
                if any("internal" in d.message for d in ds)]
    assert not internal, "\n".join(internal[:20])
    assert len(module.kernels) > 1000  # most forms lower
