"""Thread-block clusters and other sm_90 control instructions: barrier.cluster, mapa, getctarank,
elect.sync, griddepcontrol, setmaxnreg (PTX ISA §9.7.9.23, §9.7.13.4, §9.7.13.15, §9.7.19).

Distributed shared memory addresses: a ``.shared::cluster`` address (32-bit or generic) of another
CTA of the cluster carries ``(rank + 1) << DSMEM_RANK_SHIFT`` above the CTA-local offset; an address
without those bits is the executing CTA's own. ``mapa`` of the executing CTA's own rank leaves the
address as it is, so cluster-size-1 code (the Apple back ends) sees plain shared addresses. The
CPU engine decodes the rank bits on every shared access (``backends/cpu/cluster.py``).
"""

from __future__ import annotations

from cumetal.ir.nodes import Const, Value
from cumetal.passes.context import Ctx, LoweringError
from cumetal.passes.semantics import semantics
from cumetal.passes.semantics.common import i32, i64
from cumetal.ptx import ast

DSMEM_RANK_SHIFT = 24  # the CPU engine decodes the same layout (backends/cpu/cluster.py)
_RANK_MASK = 0xFF << DSMEM_RANK_SHIFT


@semantics("barrier.cluster")
def _barrier_cluster(ctx: Ctx, ins: ast.Instruction) -> None:
    # arrive{.release|.relaxed}{.aligned} / wait{.acquire}{.aligned}: the engine's cluster barrier
    # orders memory for every form (a stronger ordering than .relaxed asks for is a valid execution)
    kind = "cluster_arrive" if "arrive" in ins.mods else "cluster_wait"
    ctx.emit("barrier", None, Const.int("i32", 0), kind=kind)


def _own_rank(ctx: Ctx) -> Value:
    return ctx.emit("sreg", "i32", name="cluster_ctarank")


@semantics("mapa")
def _mapa(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ins.fields["type"]
    it = "i64" if t == "u64" else "i32"
    a = ctx.read(ins.operands[1], t)
    rank = ctx.read(ins.operands[2], "u32")
    c = (lambda v: i64(v)) if it == "i64" else (lambda v: i32(v))  # noqa: E731
    plain = ctx.emit("and", it, a, c(~_RANK_MASK & ((1 << (64 if it == "i64" else 32)) - 1)))
    tag = ctx.emit("add", "i32", rank, i32(1))
    if it == "i64":
        tag = ctx.emit("zext", "i64", tag)
    tagged = ctx.emit("or", it, plain, ctx.emit("shl", it, tag, i32(DSMEM_RANK_SHIFT)))
    own = ctx.emit("icmp", "i1", rank, _own_rank(ctx), cond="eq")
    ctx.write(ins.operands[0], ctx.emit("select", it, own, plain, tagged), t)


@semantics("getctarank")
def _getctarank(ctx: Ctx, ins: ast.Instruction) -> None:
    t = ins.fields["type"]
    it = "i64" if t == "u64" else "i32"
    a = ctx.read(ins.operands[1], t)
    hi = ctx.emit("lshr", it, a, i32(DSMEM_RANK_SHIFT))
    if it == "i64":
        hi = ctx.emit("trunc", "i32", hi)
    hi = ctx.emit("and", "i32", hi, i32(0xFF))
    none = ctx.emit("icmp", "i1", hi, i32(0), cond="eq")
    other = ctx.emit("sub", "i32", hi, i32(1))
    ctx.write(ins.operands[0], ctx.emit("select", "i32", none, _own_rank(ctx), other), "u32")


@semantics("elect")
def _elect(ctx: Ctx, ins: ast.Instruction) -> None:
    """The leader is the lowest-numbered lane among the lanes executing the instruction with the
    same membermask value as mine. An H100 elects that lane even when membermask leaves it out
    (sweep case cluster_elect_sync: all 32 lanes with mask 0xf0f0f0f0 elect lane 0), and groups
    that execute it together with different masks each elect their own lowest lane (randprog_warp:
    lanes 8-10 with mask 0x700 and lanes 16, 21, 22 with 0x610000 elect lanes 8 and 16)."""
    dst = ins.operands[0]
    d_op, p_op = (dst.first, dst.second) if isinstance(dst, ast.Pair) else (dst, None)
    mask = ctx.read(ins.operands[1], "b32")
    members, _ = ctx.emit_multi("match", ("i32", "i1"), mask, ctx.emit("activemask", "i32"), mode="any")
    leader = ctx.emit("clz", "i32", ctx.emit("brev", "i32", members))  # count trailing zeros
    ctx.write(d_op, leader, "b32")
    if p_op is not None:
        lane = ctx.emit("sreg", "i32", name="laneid")
        ctx.write(p_op, ctx.emit("icmp", "i1", lane, leader, cond="eq"), "pred")


@semantics("griddepcontrol")
def _griddepcontrol(ctx: Ctx, ins: ast.Instruction) -> None:
    # programmatic dependent launch: CuMetal runs a stream's kernels one after another, so the
    # dependent grid starts after this one has finished (launch_dependents has nothing to
    # release early; wait finds its prerequisite grids complete)
    ctx.emit("nop", None)


@semantics("setmaxnreg")
def _setmaxnreg(ctx: Ctx, ins: ast.Instruction) -> None:
    n = ins.operands[0]
    if isinstance(n, ast.Imm) and not (24 <= int(n.value) <= 256 and int(n.value) % 8 == 0):
        raise LoweringError(f"setmaxnreg count {n.value} must be a multiple of 8 in 24..256")
    ctx.emit("nop", None)  # a register-allocation hint: no register file to resize here


def cluster_dims(directives: dict) -> tuple[int, int, int] | None:
    """The compile-time cluster shape of a kernel (``.reqnctapercluster``), padded to 3 axes."""
    d = directives.get("reqnctapercluster")
    if not d:
        return None
    dims = tuple(int(x) for x in d) + (1,) * (3 - len(d))
    if len(dims) != 3 or min(dims) < 1:
        raise LoweringError(f".reqnctapercluster {d} must be one to three positive integers")
    return dims  # type: ignore[return-value]
