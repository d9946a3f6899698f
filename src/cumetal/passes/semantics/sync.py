"""Barriers and memory ordering: bar/barrier (sync, arrive, red), bar.warp.sync, membar, fence."""

from __future__ import annotations

from cumetal.ir.nodes import Const
from cumetal.passes.context import Ctx
from cumetal.passes.semantics import semantics
from cumetal.ptx import ast


def _barrier(ctx: Ctx, ins: ast.Instruction) -> None:
    mode = next((m for m in ("sync", "arrive", "red") if m in ins.mods), "sync")
    if mode == "red":
        rop = "popc" if "popc" in ins.fields else ins.fields["op"]
        bid = ctx.read(ins.operands[1], "u32")
        # d, a, b, c: the reduction over the first b threads to arrive at barrier a
        count = [ctx.read(ins.operands[2], "u32")] if len(ins.operands) == 4 else []
        pred = ctx.read(ins.operands[-1], "pred")
        rt = "i32" if rop == "popc" else "i1"
        r = ctx.emit("barrier_red", rt, bid, *count, pred, rop=rop)
        ctx.write(ins.operands[0], r, "u32" if rop == "popc" else "pred")
        return
    # bar.arrive a, b and bar.sync a, b are producer/consumer (named) barriers with a thread count:
    # the CPU engine runs them exactly; the Apple backends diagnose the forms Metal cannot run.
    # bar.sync a without a count waits for the whole block, whatever its id.
    args = [ctx.read(o, "u32") for o in ins.operands] or [Const.int("i32", 0)]
    ctx.emit("barrier", None, *args, kind=mode)


semantics("bar", "barrier")(_barrier)


@semantics("bar.warp.sync")
def _syncwarp(ctx: Ctx, ins: ast.Instruction) -> None:
    ctx.emit("barrier", None, ctx.read(ins.operands[0], "b32"), kind="warp")


_SCOPE = {"cta": "cta", "gl": "gpu", "gpu": "gpu", "sys": "sys", "cluster": "gpu"}


@semantics("membar")
def _membar(ctx: Ctx, ins: ast.Instruction) -> None:
    level = ins.fields.get("level", "proxy")
    if level == "proxy":
        ctx.emit("nop", None)
        return
    ctx.emit("membar", None, scope=_SCOPE.get(level, "gpu"))


@semantics("fence")
def _fence(ctx: Ctx, ins: ast.Instruction) -> None:
    if any(m.startswith("proxy") for m in ins.mods) or "mbarrier_init" in ins.mods:
        # proxy fences order the async (TMA) proxy, which CuMetal never uses
        ctx.emit("nop", None)
        return
    scope = ins.fields.get("scope") or next((m for m in ins.mods if m in _SCOPE), "gpu")
    ctx.emit("membar", None, scope=_SCOPE.get(scope, "gpu"))
