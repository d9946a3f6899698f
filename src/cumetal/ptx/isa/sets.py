"""Modifier value sets shared by many instructions, named as in the PTX ISA manual."""

from __future__ import annotations

from typing import Any

Entry = tuple[str, tuple[Any, ...], dict[str, tuple[str, ...]]]


def I(root: str, *forms: str | tuple[str, dict[str, tuple[str, ...]]], **sets: tuple[str, ...]) -> Entry:  # noqa: E743
    """One instruction root: its forms (manual notation) and the value sets they name."""
    return (root, forms, sets)


U = ("u8", "u16", "u32", "u64")
S = ("s8", "s16", "s32", "s64")
B = ("b8", "b16", "b32", "b64", "b128")
INT16_64 = ("u16", "u32", "u64", "s16", "s32", "s64")
FLOATS = ("f16", "f16x2", "bf16", "bf16x2", "f32", "f64", "tf32", "f32x2")
FP8 = ("e4m3", "e5m2")
NARROW_FP = ("e4m3", "e5m2", "e3m2", "e2m3", "e2m1", "ue8m0", "ue4m3")
PACKED_NARROW = ("e4m3x2", "e5m2x2", "e2m3x2", "e3m2x2", "e2m1x2", "ue8m0x2", "e4m3x4", "e5m2x4",
                 "e2m3x4", "e3m2x4", "e2m1x4", "s2f6x2")
ALL_TYPES = ("pred",) + B + U + S + FLOATS + ("b1", "s4", "u4", "b1024") + NARROW_FP + PACKED_NARROW + (
    "u16x2", "s16x2", "s2", "u2", "s8x4", "u8x4", "b8x16", "b6x16_p32", "b4x16_p64",
    "texref", "samplerref", "surfref")

STATE_SPACES = ("const", "global", "local", "param", "param::entry", "param::func", "shared",
                "shared::cta", "shared::cluster", "tex")
SCOPES = ("cta", "cluster", "gpu", "sys")

SETS: dict[str, tuple[str, ...]] = {
    "rnd": ("rn", "rz", "rm", "rp"),
    "irnd": ("rni", "rzi", "rmi", "rpi"),
    "ss": STATE_SPACES,
    "scope": SCOPES,
    "vec": ("v2", "v4", "v8"),
    "cache_hint": ("L2::cache_hint",),
    "prefetch_size": ("L2::64B", "L2::128B", "L2::256B"),
    "evict": ("L1::evict_normal", "L1::evict_unchanged", "L1::evict_first", "L1::evict_last",
              "L1::no_allocate"),
    "cmp": ("eq", "ne", "lt", "le", "gt", "ge", "lo", "ls", "hi", "hs", "equ", "neu", "ltu", "leu",
            "gtu", "geu", "num", "nan"),
    "boolop": ("and", "or", "xor"),
    "completion": ("mbarrier::complete_tx::bytes",),
    "multicast": ("multicast::cluster",),
    "cta_group": ("cta_group::1", "cta_group::2"),
}

# Slot names for literal modifiers written in a form (``.f32`` → field 'type').
LITERAL_SLOT: dict[str, str] = {t: "type" for t in ALL_TYPES}
LITERAL_SLOT.update({s: "ss" for s in STATE_SPACES})
LITERAL_SLOT.update({s: "scope" for s in SCOPES})
LITERAL_SLOT.update({s: "sem" for s in ("relaxed", "acquire", "release", "acq_rel", "sc", "weak",
                                        "volatile")})
LITERAL_SLOT.update({r: "rnd" for r in ("rn", "rz", "rm", "rp", "rna", "rs")})
LITERAL_SLOT.update({"gl": "level"})

# Value sets that are variants of one field: written apart in the forms (an integer and a float
# flavour of ``add`` differ in their other slots) but decoded into the same field name.
FIELD_ALIAS: dict[str, str] = {n: "type" for n in ("itype", "ftype", "htype", "bftype", "cctype",
                                                   "obtype", "vtype")}
FIELD_ALIAS.update({"fsem": "sem", "lsem": "sem", "ssem": "sem", "psem": "sem", "hrnd": "rnd",
                    "frnd2": "rnd", "frnd3": "rnd", "bop": "op", "fop": "op"})
