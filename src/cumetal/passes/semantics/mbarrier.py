"""mbarrier objects (PTX ISA §9.7.13.15): init, inval, arrive (count, .expect_tx, .noComplete,
arrive_drop), expect_tx, complete_tx, test_wait / try_wait (state token and .parity forms),
pending_count, and cp.async.mbarrier.arrive.

Every operation on the barrier word is one ``mbarrier`` IR op (an atomic update of the 64-bit word
in shared memory); waits are ``mbarrier_wait``, a scheduling point. The word's encoding and the
phase rule are written down once, in ``cumetal.ir.ops``; ``pending_count`` reads it from a token
with plain integer ops.
"""

from __future__ import annotations

from cumetal.ir.nodes import Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32
from cumetal.ptx import ast

PENDING_BITS = 21  # the token's (and the word's) pending-arrival field: bits 0-20

# .shared::cluster addresses of the executing CTA are its own .shared::cta addresses (a CTA is a
# cluster of one until clusters are co-scheduled); the CLUSTER work maps other ranks.
_SPACES = {"shared": "shared", "shared::cta": "shared", "shared::cluster": "shared", None: "generic"}


def mbar_address(ctx: Ctx, op: ast.Operand, ss: str | None) -> tuple[Value, str]:
    """The (i64 address, space) of an mbarrier operand ``[addr]``."""
    if ss not in _SPACES:
        raise LoweringError(f"an mbarrier object cannot live in .{ss} memory")
    return ctx.address(op, _SPACES[ss])


@semantics("mbarrier.init")
def _init(ctx: Ctx, ins: ast.Instruction) -> None:
    addr, space = mbar_address(ctx, ins.operands[0], ins.fields.get("ss"))
    ctx.emit("mbarrier", None, addr, ctx.read(ins.operands[1], "u32"), mop="init", space=space)


@semantics("mbarrier.inval")
def _inval(ctx: Ctx, ins: ast.Instruction) -> None:
    addr, space = mbar_address(ctx, ins.operands[0], ins.fields.get("ss"))
    ctx.emit("mbarrier", None, addr, mop="inval", space=space)


@semantics("mbarrier.expect_tx", "mbarrier.complete_tx")
def _tx(ctx: Ctx, ins: ast.Instruction) -> None:
    addr, space = mbar_address(ctx, ins.operands[0], ins.fields.get("ss"))
    mop = ins.opcode.split(".")[1]
    ctx.emit("mbarrier", None, addr, ctx.read(ins.operands[1], "u32"), mop=mop, space=space)


@semantics("mbarrier.arrive", "mbarrier.arrive_drop")
def _arrive(ctx: Ctx, ins: ast.Instruction) -> None:
    state, addr_op = ins.operands[0], ins.operands[1]
    addr, space = mbar_address(ctx, addr_op, ins.fields.get("ss"))
    extra = ins.operands[2] if len(ins.operands) > 2 else None
    count: Value = i32(1)
    tx: Value = i32(0)
    if "expect_tx" in ins.fields:
        if extra is None:
            raise LoweringError("mbarrier.arrive.expect_tx needs a tx-count operand")
        tx = ctx.read(extra, "u32")
    elif extra is not None:
        count = ctx.read(extra, "u32")
    elif "noComplete" in ins.fields:
        raise LoweringError("mbarrier.arrive.noComplete needs a count operand")
    attrs = {"mop": "arrive", "space": space, "drop": ins.opcode.endswith("_drop"),
             "nocomplete": "noComplete" in ins.fields}
    if isinstance(state, ast.Sink):
        ctx.emit("mbarrier", None, addr, count, tx, **attrs)
        return
    if ins.fields.get("ss") == "shared::cluster":
        raise LoweringError("mbarrier.arrive on a .shared::cluster address returns no state: write '_'")
    ctx.write(state, ctx.emit("mbarrier", "i64", addr, count, tx, **attrs), "b64")


@semantics("mbarrier.test_wait", "mbarrier.try_wait")
def _wait(ctx: Ctx, ins: ast.Instruction) -> None:
    addr, space = mbar_address(ctx, ins.operands[1], ins.fields.get("ss"))
    parity = "parity" in ins.fields
    phase = ctx.read(ins.operands[2], "u32" if parity else "b64")
    # operands[3], try_wait's suspend-time hint, only bounds how long the hardware may suspend
    done = ctx.emit("mbarrier_wait", "i1", addr, phase, parity=parity, space=space,
                    block=ins.opcode.endswith("try_wait"))
    ctx.write(ins.operands[0], done, "pred")


@semantics("mbarrier.pending_count")
def _pending_count(ctx: Ctx, ins: ast.Instruction) -> None:
    state = ctx.read(ins.operands[1], "b64")
    low = ctx.emit("trunc", "i32", state)
    ctx.write(ins.operands[0], ctx.emit("and", "i32", low, i32((1 << PENDING_BITS) - 1)), "u32")


@semantics("cp.async.mbarrier.arrive")
def _cp_async_arrive(ctx: Ctx, ins: ast.Instruction) -> None:
    """The arrive-on that fires when the thread's earlier cp.async copies complete. CuMetal's
    cp.async copies are complete when issued, so it fires now. Without .noinc the pending count is
    first raised by one, so the net effect on the barrier is none; with .noinc it is one arrival."""
    if "noinc" not in ins.fields:
        ctx.emit("nop", None)
        return
    addr, space = mbar_address(ctx, ins.operands[0], ins.fields.get("ss"))
    ctx.emit("mbarrier", None, addr, i32(1), i32(0), mop="arrive", space=space)
