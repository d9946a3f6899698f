"""Block ordering for min-PC scheduling.

The engine always runs the lanes parked at the lowest-numbered block, so the numbering decides
where diverged lanes meet again. A reverse postorder puts every join after the paths into it; the
depth-first search additionally visits loop exits before loop bodies, so that every block after a
loop is numbered after the whole loop and lanes that leave a loop early wait there for the lanes
still iterating (reconvergence after loops with per-lane trip counts).
"""

from __future__ import annotations

from cumetal.ir.analysis import build_cfg, reverse_postorder
from cumetal.ir.nodes import Function


def block_order(fn: Function) -> list[str]:
    """Labels of ``fn`` in scheduling order (entry first; unreachable blocks last)."""
    if not fn.blocks:
        return []
    cfg = build_cfg(fn)  # the CFG analyses live once in cumetal.ir.analysis
    order = cfg.order
    loops = cfg.natural_loops()
    if loops:
        depth = {b: sum(1 for lp in loops if b in lp) for b in cfg.succ}

        def exit_first(src: str, dst: str) -> tuple[int, int]:
            # successors leaving loops that contain src come first (lower = visited first)
            leaves = sum(1 for lp in loops if src in lp and dst not in lp)
            return (-leaves, depth[dst])

        order = reverse_postorder(cfg.entry, cfg.succ, key=exit_first)
    reached = set(order)
    return order + [b.label for b in fn.blocks if b.label not in reached]
