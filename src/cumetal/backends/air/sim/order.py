"""Program order of an LLVM function's blocks, for min-PC reconvergence in the air-sim runtime.

The numpy engine runs, among the lanes of a warp, the lowest-numbered segment first
(``backends/cpu/cfg.py``): blocks in a reverse postorder whose depth-first search visits loop exits
before loop bodies, so every join and every block after a loop comes after all paths into it. The
runtime resolves SIMD-group operations the same way: among the sites the blocked lanes of a warp
wait at, the earliest in this order first. ``instrument.py`` numbers each SIMD-group call by the
position of its block in this order (the same rule, applied to the LLVM blocks the AIR lowering
made from the kernel IR's blocks).
"""

from __future__ import annotations

from cumetal.ir.analysis import Cfg, immediate_dominators, reverse_postorder


def _cfg(entry: str, succ: dict[str, list[str]]) -> Cfg:
    order = reverse_postorder(entry, succ)
    pred: dict[str, list[str]] = {n: [] for n in order}
    for n in order:
        for s in succ.get(n, ()):
            if s in pred:
                pred[s].append(n)
    return Cfg([], {n: [s for s in succ.get(n, ()) if s in pred] for n in order}, pred,
               {n: i for i, n in enumerate(order)}, order, immediate_dominators(entry, order, pred))


def block_order(entry: str, succ: dict[str, list[str]]) -> list[str]:
    """Block names in scheduling order (entry first; blocks not reachable from it are left out)."""
    cfg = _cfg(entry, succ)
    loops = cfg.natural_loops()
    if not loops:
        return cfg.order
    depth = {b: sum(1 for lp in loops if b in lp) for b in cfg.order}

    def exit_first(src: str, dst: str) -> tuple[int, int]:
        leaves = sum(1 for lp in loops if src in lp and dst not in lp)  # leaving loops: visited first
        return (-leaves, depth.get(dst, 0))

    return reverse_postorder(entry, cfg.succ, key=exit_first)


def loop_latches(entry: str, succ: dict[str, list[str]]) -> list[tuple[str, set[str]]]:
    """(latch, loop body) of every back edge (an edge to a block that dominates its source)."""
    cfg = _cfg(entry, succ)
    return [(latch, body) for (latch, _), body in zip(cfg.back_edges(), cfg.natural_loops(), strict=True)]
