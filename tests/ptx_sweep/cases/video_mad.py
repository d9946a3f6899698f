"""vmad, the scalar video multiply-add: d = (±a*b ± c [+1]) [>> 7|15], .sat (PTX ISA §9.7.18.2).

Every signedness mix of a and b (dtype both ways), each negation the manual lists (-a, -b, -c, and
-a -b together, which ptxas accepts; -a -c it refuses), the .po form, .sat, .shr7/.shr15 and byte/half
selectors; inputs are the video family's edge-byte and random words."""

from __future__ import annotations

from ..case import Case
from ..ptxgen import elementwise
from .video import _words

FAM = "video_mad"
_T = {"u": "u32", "s": "s32"}
_FORMS = (
    ("", "%d, %a, %b, %c"), (".sat", "%d, %a, %b, %c"), ("", "%d, -%a, %b, %c"),
    (".sat", "%d, %a, -%b, %c"), ("", "%d, %a, %b, -%c"), (".sat", "%d, %a, %b, -%c"),
    (".sat", "%d, -%a, -%b, %c"), (".po", "%d, %a, %b, %c"),
    (".po.sat", "%d, %a, %b, %c"), (".shr7", "%d, %a, %b, %c"), (".sat.shr15", "%d, -%a, %b, %c"),
    (".po.sat.shr7", "%d, %a, %b, %c"), (".shr15", "%d, %a, %b, -%c"),
)
_SELECTED = (
    ("", "%d, %a.b1, %b.h1, %c"), (".sat.shr7", "%d, %a.h0, -%b.b3, %c"), (".po.shr15", "%d, %a.b2, %b.b0, %c"),
    (".sat", "%d, %a.h1, %b.h0, -%c"),
)


def cases() -> list[Case]:
    out: list[Case] = []
    k = 900
    for mix in ("uuu", "suu", "sus", "ssu", "sss", "uss", "usu"):
        d, a, b = (_T[ch] for ch in mix)
        forms = _FORMS + (_SELECTED if mix in ("uuu", "sss", "sus") else ())
        for i, (mods, ops) in enumerate(forms):
            k += 1
            ins = [("a", "u32", _words(3 * k)), ("b", "u32", _words(3 * k + 1)), ("c", "u32", _words(3 * k + 2))]
            out.append(elementwise(f"vmad_{mix}_{i}", FAM, f"    vmad.{d}.{a}.{b}{mods} {ops};", ins, [("d", "u32")],
                                   target="sm_80"))
    return out
