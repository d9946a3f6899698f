"""Video instructions: scalar (vadd … vset) and SIMD (vadd2 … vset4) forms (PTX ISA manual §9.7.17–§9.7.18)."""

from __future__ import annotations

from cumetal.ptx.isa.sets import I

_V = ("u32", "s32")


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
      "vshl.dtype.atype.u32{.sat}.mode d, a, b, c",
      dtype=_V, atype=_V, mode=("clamp", "wrap"), op2=("add", "min", "max")),
    I("vshr", "vshr.dtype.atype.u32{.sat}.mode d, a, b", "vshr.dtype.atype.u32{.sat}.mode.op2 d, a, b, c",
      "vshr.dtype.atype.u32{.sat}.mode d, a, b, c",
      dtype=_V, atype=_V, mode=("clamp", "wrap"), op2=("add", "min", "max")),
    I("vmad", "vmad.dtype.atype.btype{.sat}{.scale} d, a, b, c", "vmad.dtype.atype.btype.po{.sat}{.scale} d, a, b, c",
      dtype=_V, atype=_V, btype=_V, scale=("shr7", "shr15")),
    I("vset", "vset.atype.btype.cmp d, a, b", "vset.atype.btype.cmp.op2 d, a, b, c", "vset.atype.btype.cmp d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge"), op2=("add", "min", "max")),
    *(_simd_video(op) for op in ("vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2",
                                 "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4")),
    I("vset2", "vset2.atype.btype.cmp d, a, b, c", "vset2.atype.btype.cmp.add d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge")),
    I("vset4", "vset4.atype.btype.cmp d, a, b, c", "vset4.atype.btype.cmp.add d, a, b, c",
      atype=_V, btype=_V, cmp=("eq", "ne", "lt", "le", "gt", "ge")),
]
