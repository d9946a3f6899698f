"""Texture and surface instructions (PTX ISA manual §9.7.10–§9.7.11)."""

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
