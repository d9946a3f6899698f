"""Bulk and tensor (TMA) asynchronous copies and the proxy/tensormap instructions around them:
cp.async.bulk (.cp_mask too), cp.reduce.async.bulk, cp.async.bulk.tensor (tile mode; im2col loads; im2col_no_offs
stores; the sm_100 tile::gather4/scatter4 and im2col::w/::w::128 modes), cp.reduce.async.bulk.tensor (tile, im2col_no_offs),
cp.async.bulk.prefetch(.tensor), cp.async.bulk.commit_group / wait_group(.read),
tensormap.cp_fenceproxy.

CuMetal performs a bulk copy when it is issued (``bulk_copy`` / ``tensor_copy`` IR ops), then
signals its mbarrier (with ``.multicast::cluster``: the same offsets in every CTA of ctaMask) (complete_tx of the bytes): a schedule the hardware may also take. So the
bulk-group waits have nothing left to wait for, and the proxy fences (which order the async proxy
against the generic one) have nothing to order.
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32
from cumetal.passes.semantics.mbarrier import mbar_address
from cumetal.ptx import ast

_SPACE = {"global": "global", "shared": "shared", "shared::cta": "shared", "shared::cluster": "shared"}
_RED_TYPES = {"b32", "b64", "u32", "s32", "u64", "s64", "f32", "f64", "f16", "bf16"}


def _space(ins: ast.Instruction, slot: str) -> str:
    ss = ins.fields.get(slot)
    if ss not in _SPACE:
        raise LoweringError(f"bulk copies cannot use .{ss} memory")
    return _SPACE[ss]


def _cta_group(ins: ast.Instruction) -> None:
    """.cta_group::1 is the default (the mbarrier in the destination's CTA, PTX ISA); ::2 (a tcgen05 CTA
    pair, sm_100a/f) is modelled for tensor copies only (``_tensor``)."""
    if ins.fields.get("cta_group", "cta_group::1") != "cta_group::1":
        raise LoweringError(f"'{ins.opcode}' with .{ins.fields['cta_group']} (CTA pairs of sm_100a/sm_100f and "
                            "later: the mbarrier signal may go to the peer CTA) is not supported; .cta_group::1 is")


@semantics("cp.async.bulk", "cp.reduce.async.bulk")
def _bulk(ctx: Ctx, ins: ast.Instruction) -> None:
    _cta_group(ins)
    dspace, sspace = _space(ins, "dst"), _space(ins, "src")
    dst, dspace = ctx.address(ins.operands[0], dspace)
    src, sspace = ctx.address(ins.operands[1], sspace)
    size = ctx.read(ins.operands[2], "u32")
    args: list[Value] = [dst, src, size]
    attrs: dict = {"dst_space": dspace, "src_space": sspace}
    if "cp_mask" in ins.fields:  # sm_100: byteMask (u16) is the last operand (after any cache policy)
        if ins.opcode != "cp.async.bulk" or dspace != "global" or "completion" in ins.fields and \
                ins.fields["completion"] != "bulk_group":
            raise LoweringError(f"'{ins.opcode}': .cp_mask is defined only for cp.async.bulk from .shared::cta "
                                "to .global with .bulk_group completion")
        args += [Const.int("i64", 0), ctx.read(ins.operands[-1], "u16")]
        attrs["cp_mask"] = True
        ctx.emit("bulk_copy", None, *args, **attrs)
        return
    if "completion" in ins.fields and ins.fields["completion"] != "bulk_group":
        mbar, _ = mbar_address(ctx, ins.operands[3], "shared::cta")
        args.append(mbar)
    if "multicast" in ins.fields:  # the same bytes to the CTAs of the cluster named by ctaMask (u16)
        args.append(ctx.read(ins.operands[4], "u16"))
        attrs["multicast"] = True
    if ins.opcode == "cp.reduce.async.bulk":
        t = ins.fields["type"]
        if t not in _RED_TYPES:
            raise LoweringError(f"cp.reduce.async.bulk on .{t} is not supported")
        attrs.update(redop=ins.fields["redop"], etype=t)
    ctx.emit("bulk_copy", None, *args, **attrs)


def _tensor_coords(ctx: Ctx, op: ast.Operand, dims: int) -> tuple[Value, list[Value]]:
    if not isinstance(op, ast.Address) or op.coords is None:
        raise LoweringError("a tensor copy needs [tensorMap, {coordinates}]")
    coords = [ctx.read(c, "s32") for c in op.coords.elems]
    if len(coords) != dims:
        raise LoweringError(f"this tensor copy needs {dims} coordinates, got {len(coords)}")
    tmap, _ = ctx.address(ast.Address(op.base, op.offset), "generic")
    return tmap, coords


# the load modes the PTX ISA defines per direction, and the IR's mode attr for each (tensorcopy.py); the
# sm_100 ones (tile::gather4/scatter4, im2col::w, im2col::w::128) follow the ISA text, unchecked on hardware
_LOAD_MODES = ("tile", "tile::gather4", "im2col", "im2col::w", "im2col::w::128")
_STORE_MODES = ("tile", "tile::scatter4", "im2col_no_offs")
_IR_MODE = {"tile::gather4": "gather4", "tile::scatter4": "scatter4", "im2col::w": "im2col_w",
            "im2col::w::128": "im2col_w128", "im2col": "im2col", "im2col_no_offs": "im2col"}


@semantics("cp.async.bulk.tensor", "cp.reduce.async.bulk.tensor")
def _tensor(ctx: Ctx, ins: ast.Instruction) -> None:
    # .cta_group::2 (PTX ISA): the mbarrier may sit in the peer CTA of the CTA pair (its shared::cluster
    # address says which), and a multicast signals, per destination CTA, the pair member whose
    # %cluster_ctarank parity is that of the mbarrier's CTA (tensorcopy.py)
    pair = ins.fields.get("cta_group") == "cta_group::2"
    if not pair:
        _cta_group(ins)
    mode = ins.fields.get("load_mode", "tile")
    dims = int(ins.fields["dim"][0])
    load = ins.fields.get("dst") != "global"
    reduce = ins.opcode == "cp.reduce.async.bulk.tensor"
    allowed = ("tile", "im2col_no_offs") if reduce else _LOAD_MODES if load else _STORE_MODES
    if mode not in allowed:
        raise LoweringError(f"'{ins.opcode}': the PTX ISA defines no .{mode} mode for "
                            f"{'loads (global -> shared)' if load else 'stores (shared -> global)'}; "
                            f"{', '.join('.' + m for m in allowed)} are")
    if mode.startswith("im2col") and dims < 3:
        raise LoweringError(f"'{ins.opcode}' in .{mode} mode needs a tensor of 3 or more dimensions, not .{dims}d")
    if mode.startswith("tile::") and dims != 2:
        raise LoweringError(f"'{ins.opcode}' in .{mode} mode works on 2D tensors only (.2d), not .{dims}d")
    attrs: dict = {"dims": dims, "dir": "load" if load else "store"}
    if pair:
        attrs["cta_pair"] = True
    if mode in _IR_MODE:  # im2col_no_offs: a store (or reduction) of im2col columns, offsets zero
        attrs["mode"] = _IR_MODE[mode]
    ncoords = 5 if mode.startswith("tile::") else dims  # {col, row0, row1, row2, row3} for gather4/scatter4
    if ins.opcode == "cp.reduce.async.bulk.tensor":
        attrs["redop"] = ins.fields["redop"]
    if load:
        smem, _ = ctx.address(ins.operands[0], _space(ins, "dst"))
        tmap, coords = _tensor_coords(ctx, ins.operands[1], ncoords)
        mbar, _ = mbar_address(ctx, ins.operands[2], "shared::cluster" if pair else "shared::cta")
        extra = 3
        if mode.startswith("im2col"):  # im2colInfo follows the mbarrier: the im2col offsets (one u16 per
            # spatial dimension), or {wHalo, wOffset} (u16 each) for the ::w modes
            want = 2 if mode != "im2col" else dims - 2
            offs = ins.operands[3] if len(ins.operands) > 3 else None
            elems = offs.elems if isinstance(offs, ast.Vector) else [offs] if offs is not None else []
            if len(elems) != want:
                what = "{wHalo, wOffset}" if mode != "im2col" else f"{want} im2col offsets"
                raise LoweringError(f"'{ins.opcode}': a .{dims}d .{mode} copy needs {what}")
            coords += [ctx.read(e, "u16") for e in elems]
            extra = 4
        if "multicast" in ins.fields:  # ctaMask follows the mbarrier (and the im2col offsets)
            coords.append(ctx.read(ins.operands[extra], "u16"))
            attrs["multicast"] = True
    else:
        tmap, coords = _tensor_coords(ctx, ins.operands[0], ncoords)
        smem, _ = ctx.address(ins.operands[1], _space(ins, "src"))
        mbar = Const.int("i64", 0)
    ctx.emit("tensor_copy", None, smem, tmap, mbar, *coords, **attrs)


@semantics("cp.async.bulk.prefetch", "cp.async.bulk.prefetch.tensor")
def _prefetch(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # an L2 hint: no effect on results


@semantics("cp.async.bulk.commit_group", "cp.async.bulk.wait_group")
def _bulk_group(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # every bulk copy is complete when issued (module docstring)


@semantics("tensormap.cp_fenceproxy")
def _cp_fenceproxy(ctx: Ctx, ins: ast.Instruction) -> None:
    """Copy a tensor map from shared to global memory (the fence part orders nothing here)."""
    dst, dspace = ctx.address(ins.operands[0], "global")
    src, sspace = ctx.address(ins.operands[1], "shared")
    size = ins.operands[2]
    if not (isinstance(size, ast.Imm) and size.value == 128):
        raise LoweringError("tensormap.cp_fenceproxy copies a 128-byte tensor map: size must be 128")
    ctx.emit("bulk_copy", None, dst, src, i32(128), dst_space=dspace, src_space=sspace)


# tensormap.replace: field -> (byte offset in CuMetal's map, bytes per entry, IR type, value adjustment).
# Encodings as Triton's sm_90 device-side descriptors use them (tests/corpus/ptx/triton/sm90/tma_scale.ptx):
# rank is written as rank - 1; dims, box dims, element strides as themselves; global_stride[ord] is
# the byte stride of dimension ord + 1; swizzle_mode uses CUDA's enum values 0-3; elemtype uses PTX's
# numbering, which differs from CUtensorMapDataType at 8-10 (PTX .f32.ftz .f64 .bf16 = CUDA 10 8 9):
# measured on an H100 (sweep cases tmap_replace_elemtype*: code 8 loads 4-byte elements, 9 8-byte ones),
# so the code is translated into CuMetal's map, which keeps CUDA's enum.
_PTX_ELEMTYPE = {8: 10, 9: 8, 10: 9}
_MAP_FIELDS = {
    "global_address": (0, 8, "i64", 0), "rank": (12, 1, "i8", 1), "elemtype": (13, 1, "i8", 0),
    "interleave_layout": (14, 1, "i8", 0), "swizzle_mode": (15, 1, "i8", 0), "global_dim": (16, 4, "i32", -1),
    "global_stride": (40, 8, "i64", 0), "box_dim": (72, 2, "i16", 0), "element_stride": (82, 1, "i8", 0),
    "fill_mode": (88, 1, "i8", 0),
}
_MAGIC = 0x4D544D43  # backends/cpu/tensorcopy.MAGIC: a map built field by field is a CuMetal map too


@semantics("tensormap.replace")
def _tensormap_replace(ctx: Ctx, ins: ast.Instruction) -> None:
    """Edit one field of a tensor map in global or shared memory (CuMetal's 128-byte format,
    backends/cpu/tensorcopy.py), and mark the map as CuMetal's."""
    field = ins.fields["field"]
    if field == "swizzle_atomicity":
        ctx.emit("nop", None)  # a performance property of the swizzle: no effect on the copied bytes
        return
    if field not in _MAP_FIELDS:
        raise LoweringError(f"tensormap.replace .{field} is not supported")
    ss = ins.fields.get("ss")
    addr, space = ctx.address(ins.operands[0], "shared" if ss == "shared::cta" else "global" if ss else "generic")
    off, size, it, adjust = _MAP_FIELDS[field]
    value_op = ins.operands[-1]
    where = ctx.add_offset(addr, off)
    if len(ins.operands) == 3:  # [addr], ord, new_val
        ordinal = ctx.as_i64(ctx.read(ins.operands[1], "u32"))
        where = ctx.emit("add", "i64", where, ctx.emit("mul", "i64", ordinal, Const.int("i64", size)))
    value = ctx.read(value_op, "b64" if it == "i64" else "b32")
    if adjust:
        value = ctx.emit("add", value.type, value, Const.int(value.type, adjust))
    if field == "elemtype":
        code = value
        for ptx_code, cuda_code in _PTX_ELEMTYPE.items():
            hit = ctx.emit("icmp", "i1", code, Const.int(code.type, ptx_code), cond="eq")
            value = ctx.emit("select", code.type, hit, Const.int(code.type, cuda_code), value)
    if value.type != it:
        value = ctx.emit("trunc", it, value)
    ctx.emit("store", None, where, value, space=space, align=size)
    ctx.emit("store", None, ctx.add_offset(addr, 8), Const.int("i32", _MAGIC), space=space, align=4)
