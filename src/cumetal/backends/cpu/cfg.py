"""Block ordering for min-PC scheduling.

The engine always runs the lanes parked at the lowest-numbered block, so the numbering decides
where diverged lanes meet again. A reverse postorder puts every join after the paths into it; the
depth-first search additionally visits loop exits before loop bodies, so that every block after a
loop is numbered after the whole loop and lanes that leave a loop early wait there for the lanes
still iterating (reconvergence after loops with per-lane trip counts).
"""

from __future__ import annotations

from cumetal.ir.nodes import Function


def successors(fn: Function) -> dict[str, list[str]]:
    succ: dict[str, list[str]] = {}
    for b in fn.blocks:
        t = b.terminator
        out: list[str] = []
        if t is not None:
            if t.op == "br":
                out = [t.attrs["target"]]
            elif t.op == "cbr":
                out = [t.attrs["target"], t.attrs["else"]]
            elif t.op == "brx":
                out = list(dict.fromkeys(t.attrs["targets"]))
        succ[b.label] = out
    return succ


def _dominators(entry: str, order: list[str], preds: dict[str, list[str]]) -> dict[str, str]:
    """Immediate dominators (Cooper, Harvey, Kennedy) over the reachable blocks in RPO ``order``."""
    index = {b: i for i, b in enumerate(order)}
    idom: dict[str, str] = {entry: entry}

    def intersect(a: str, b: str) -> str:
        while a != b:
            while index[a] > index[b]:
                a = idom[a]
            while index[b] > index[a]:
                b = idom[b]
        return a

    changed = True
    while changed:
        changed = False
        for b in order[1:]:
            ps = [p for p in preds[b] if p in idom]
            if not ps:
                continue
            new = ps[0]
            for p in ps[1:]:
                new = intersect(p, new)
            if idom.get(b) != new:
                idom[b] = new
                changed = True
    return idom


def _dfs_rpo(entry: str, succ: dict[str, list[str]], key=None) -> list[str]:
    def kids(n: str):
        return iter(sorted(succ[n], key=lambda s: key(n, s)) if key else succ[n])

    seen = {entry}
    post: list[str] = []
    stack = [(entry, kids(entry))]
    while stack:
        node, it = stack[-1]
        nxt = next((s for s in it if s not in seen), None)
        if nxt is None:
            post.append(node)
            stack.pop()
            continue
        seen.add(nxt)
        stack.append((nxt, kids(nxt)))
    return post[::-1]


def block_order(fn: Function) -> list[str]:
    """Labels of ``fn`` in scheduling order (entry first; unreachable blocks last)."""
    if not fn.blocks:
        return []
    succ = successors(fn)
    entry = fn.blocks[0].label
    order = _dfs_rpo(entry, succ)
    preds: dict[str, list[str]] = {b.label: [] for b in fn.blocks}
    for b, ss in succ.items():
        for s in ss:
            preds[s].append(b)
    idom = _dominators(entry, order, preds)

    def dominates(a: str, b: str) -> bool:
        while True:
            if a == b:
                return True
            if b == entry or b not in idom:
                return False
            b = idom[b]

    # natural loops: body of each back edge latch -> header (header dominates latch)
    loops: list[set[str]] = []
    for latch, ss in succ.items():
        for h in ss:
            if latch in idom and dominates(h, latch):
                body = {h, latch}
                work = [latch]
                while work:
                    x = work.pop()
                    for p in preds[x]:
                        if p not in body and p in idom:
                            body.add(p)
                            work.append(p)
                loops.append(body)
    if loops:
        depth = {b: sum(1 for lp in loops if b in lp) for b in succ}

        def exit_first(src: str, dst: str) -> tuple[int, int]:
            # successors leaving loops that contain src come first (lower = visited first)
            leaves = sum(1 for lp in loops if src in lp and dst not in lp)
            return (-leaves, depth[dst])

        order = _dfs_rpo(entry, succ, key=exit_first)
    rest = [b.label for b in fn.blocks if b.label not in set(order)]
    return order + rest
