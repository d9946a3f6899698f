"""L2 cache-policy instructions of the PTX ISA: createpolicy, applypriority, discard.

They are hints: a cache policy only steers eviction, `applypriority` only changes a line's priority,
and `discard` makes the data indeterminate (keeping it is one of the allowed outcomes). So the
loads/stores that take a policy ignore it and the last two lower to nothing. `createpolicy`
still returns NVIDIA's bits where they were recorded (scripts/make_createpolicy_goldens.cu on an
H100), so a program that stores a policy sees the same value:
  fractional: bits 56-63 = 0x10 | primary (evict_last 4, evict_normal 6, evict_first 2,
  evict_unchanged 0) | 1 when the secondary is evict_first; bits 52-55 = ceil(fraction * 16) - 1
  (fraction 1.0 when omitted); the other bits 0.
  cvt.L2: the value unchanged.
  range: the primary/secondary byte with bit 59 set (block descriptor), then the blocks: with
  s = max(ceil(log2(total_size)) - 19, 0) in bits 52-55 the block size is 2^(12+s) bytes; bits 44-50
  hold the first block's number (address >> (12+s), its low 7 bits) and bits 37-43 the blocks that
  [address, address + primary_size) touches, clamped to 1..127 (the layout CCCL's host encoder
  writes; the 8 recorded range policies agree, as does libcu++'s annotated_ptr.createpolicy test).
"""

from __future__ import annotations

import math
import struct

from cumetal.ir.nodes import Const
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.ptx import ast

_PRIMARY = {"L2::evict_last": 4, "L2::evict_normal": 6, "L2::evict_first": 2, "L2::evict_unchanged": 0}
_RANGE_BIT = 0x08


def _policy_byte(ins: ast.Instruction) -> int:
    primary = _PRIMARY.get(ins.fields.get("primary", ""))
    if primary is None:
        raise LoweringError(f"createpolicy: unknown primary priority .{ins.fields.get('primary')}")
    return 0x10 | primary | (1 if ins.fields.get("secondary") == "L2::evict_first" else 0)


def _fraction_code(fraction: float) -> int:
    """ceil(f * 16) - 1 of the f32 fraction, kept in 0..15 (PTX allows 0 < f <= 1)."""
    f32 = struct.unpack("<f", struct.pack("<f", fraction))[0]
    return min(max(math.ceil(f32 * 16) - 1, 0), 15)


@semantics("createpolicy")
def _createpolicy(ctx: Ctx, ins: ast.Instruction) -> None:
    ops = ins.operands
    if "cvt" in ins.fields:
        ctx.write(ops[0], ctx.read(ops[1], "b64"), "b64")
        return
    top = _policy_byte(ins)
    if "range" in ins.fields:
        ctx.write(ops[0], _range_policy(ctx, ins, (top | _RANGE_BIT) << 56), "b64")
        return
    if len(ops) == 1 or isinstance(ops[1], ast.Imm):
        code = _fraction_code(float(ops[1].value) if len(ops) > 1 else 1.0)
        ctx.write(ops[0], Const.int("i64", (top << 56) | (code << 52)), "b64")
        return
    scaled = ctx.emit("fmul", "f32", ctx.read(ops[1], "f32"), Const.float("f32", 16.0), rnd="rn")
    code = ctx.emit("sub", "i32", ctx.emit("f2i", "i32", scaled, signed=True, rnd="rp"), Const.int("i32", 1))
    code = ctx.emit("max", "i32", ctx.emit("min", "i32", code, Const.int("i32", 15), signed=True),
                    Const.int("i32", 0), signed=True)
    low = ctx.emit("shl", "i64", ctx.emit("zext", "i64", code), Const.int("i32", 52))
    ctx.write(ops[0], ctx.emit("or", "i64", low, Const.int("i64", top << 56)), "b64")


def _range_policy(ctx: Ctx, ins: ast.Instruction, top: int):
    ops = ins.operands
    addr, _ = ctx.address(ops[1], "global" if "global" in ins.fields else "generic")
    primary = ctx.read(ops[2], "b32")
    total = ctx.read(ops[3], "b32")
    i32 = lambda v: Const.int("i32", v)  # noqa: E731
    i64 = lambda v: Const.int("i64", v)  # noqa: E731
    log2_total = ctx.emit("sub", "i32", i32(32), ctx.emit("clz", "i32", ctx.emit("sub", "i32", total, i32(1))))
    size_enum = ctx.emit("max", "i32", ctx.emit("sub", "i32", log2_total, i32(19)), i32(0), signed=True)
    log2_block = ctx.emit("add", "i32", size_enum, i32(12))
    first = ctx.emit("lshr", "i64", addr, log2_block)
    block_mask = ctx.emit("sub", "i64", ctx.emit("shl", "i64", i64(1), log2_block), i64(1))
    end = ctx.emit("add", "i64", ctx.emit("add", "i64", addr, ctx.emit("zext", "i64", primary)), block_mask)
    count = ctx.emit("sub", "i64", ctx.emit("lshr", "i64", end, log2_block), first)
    count = ctx.emit("max", "i64", ctx.emit("min", "i64", count, i64(127), signed=False), i64(1), signed=False)
    word = ctx.emit("or", "i64", ctx.emit("shl", "i64", ctx.emit("zext", "i64", size_enum), i32(52)), i64(top))
    word = ctx.emit("or", "i64", word, ctx.emit("shl", "i64", ctx.emit("and", "i64", first, i64(0x7F)), i32(44)))
    return ctx.emit("or", "i64", word, ctx.emit("shl", "i64", count, i32(37)))


@semantics("applypriority", "discard")
def _cache_hint(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("nop", None)  # a priority hint / data made indeterminate: keeping it is allowed
