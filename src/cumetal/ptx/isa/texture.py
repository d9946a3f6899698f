"""Texture, surface and video instructions (PTX ISA manual §9.7.10–§9.7.11, §9.7.17–§9.7.18)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import I

_GEOM = ("1d", "2d", "3d", "a1d", "a2d", "cube", "acube", "2dms", "a2dms")
_SGEOM = ("1d", "2d", "3d", "a1d", "a2d")
_TQUERY = ("width", "height", "depth", "channel_data_type", "channel_order", "normalized_coords",
           "array_size", "num_mipmap_levels", "num_samples", "force_unnormalized_coords",
           "filter_mode", "addr_mode_0", "addr_mode_1", "addr_mode_2")
_SQUERY = ("width", "height", "depth", "channel_data_type", "channel_order", "array_size",
           "memory_layout")
_CLAMP = ("trap", "clamp", "zero")
_V = ("u32", "s32")

ENTRIES_TEXTURE = [
    I("tex", "tex{.mip}.geom.vec.dtype.ctype d{|p}, [a]{, e}{, f}{, g}",
      mip=("base", "level", "grad"), geom=_GEOM, vec=("v4", "v2"),
      dtype=("u32", "s32", "f16", "f32", "f16x2"), ctype=("s32", "f32")),
    I("tld4", "tld4.comp.geom.v4.dtype.f32 d{|p}, [a]{, e}{, f}", comp=("r", "g", "b", "a"),
      geom=("2d", "a2d", "cube", "acube"), dtype=("u32", "s32", "f32")),
    I("txq", "txq{.level}.tquery.b32 d, [a]{, lod}", tquery=_TQUERY),
    I("istypep", "istypep.type p, a", type=("texref", "samplerref", "surfref")),
    I("suld", "suld.b.geom{.cop}{.vec}.dtype{.mode} d, [a]", geom=_SGEOM, cop=("ca", "cg", "cs", "cv"),
      vec=("v2", "v4"), dtype=("b8", "b16", "b32", "b64"), mode=_CLAMP),
    I("sust", "sust.b.geom{.cop}{.vec}.ctype{.mode} [a], b", "sust.p.geom{.vec}.b32{.mode} [a], b",
      geom=_SGEOM, cop=("wb", "cg", "cs", "wt"), vec=("v2", "v4"), ctype=("b8", "b16", "b32", "b64"),
      mode=_CLAMP),
    I("sured", "sured.b.op.geom.ctype{.mode} [a], b", "sured.p.op.geom.ctype{.mode} [a], b",
      op=("add", "min", "max", "and", "or"), geom=_SGEOM, ctype=("u32", "u64", "s32", "b32", "s64", "b64"),
      mode=_CLAMP),
    I("suq", "suq.query.b32 d, [a]", query=_SQUERY),
]


def _video(op: str):
    return I(op, f"{op}.dtype.atype.btype{{.sat}} d, a, b", f"{op}.dtype.atype.btype{{.sat}}.op2 d, a, b, c",
             f"{op}.dtype.atype.btype{{.sat}} d, a, b, c",
             dtype=_V, atype=_V, btype=_V, op2=("add", "min", "max"))


def _simd_video(op: str):
    return I(op, f"{op}.dtype.atype.btype{{.sat}} d, a, b, c", f"{op}.dtype.atype.btype{{.sat}}.add d, a, b, c",
             dtype=_V, atype=_V, btype=_V)


ENTRIES_VIDEO = [
    *(_video(op) for op in ("vadd", "vsub", "vabsdiff", "vmin", "vmax")),
    I("vshl", "vshl.dtype.atype.u32{.sat}.mode d, a, b", "vshl.dtype.atype.u32{.sat}.mode.op2 d, a, b, c",
      dtype=_V, atype=_V, mode=("clamp", "wrap"), op2=("add", "min", "max")),
    I("vshr", "vshr.dtype.atype.u32{.sat}.mode d, a, b", "vshr.dtype.atype.u32{.sat}.mode.op2 d, a, b, c",
      dtype=_V, atype=_V, mode=("clamp", "wrap"), op2=("add", "min", "max")),
    I("vmad", "vmad.dtype.atype.btype{.sat}{.scale} d, a, b, c", "vmad.dtype.atype.btype.po{.sat}{.scale} d, a, b, c",
      dtype=_V, atype=_V, btype=_V, scale=("shr7", "shr15")),
    I("vset", "vset.atype.btype.cmp d, a, b", "vset.atype.btype.cmp.op2 d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge"), op2=("add", "min", "max")),
    *(_simd_video(op) for op in ("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2",
                                 "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4")),
    I("vset2", "vset2.atype.btype.cmp d, a, b, c", "vset2.atype.btype.cmp.add d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge")),
    I("vset4", "vset4.atype.btype.cmp d, a, b, c", "vset4.atype.btype.cmp.add d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge")),
]
