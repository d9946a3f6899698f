"""Random control-flow graphs (reducible and irreducible) emitted as MSL and run under msl-sim,
against a direct Python interpretation of the same graph: the structurizer's and the dispatch
loop's output must follow exactly the same paths. In reducible graphs the structured code must
also reconverge: every lane reaches the exit block (which post-dominates everything) together, so a
full-mask shuffle there reads the neighbour's final value (msl-sim runs SIMD-groups in lockstep,
as Apple GPUs do). The dispatch loop gives no such guarantee (lanes reach the exit in different
trips of its one loop), which is why it is only the fallback for irreducible graphs."""

from __future__ import annotations

import random

import numpy as np
import pytest
from msl_irbuild import FnBuilder, c32, module
from msl_testing import launch

from cumetal.backends.msl.sim import build_program
from cumetal.backends.msl.structurize import build_cfg, is_reducible
from cumetal.ir import nodes as N

N_GRAPHS = 60
MAX_STEPS = 40


def random_graph(rng: random.Random, n: int) -> list[tuple[int, int, int, int, int]]:
    """Per block: (mul, add, shift, target_if_bit, target_else); target n = exit."""
    out = []
    for i in range(n):
        # any block (back edges included) or a forward edge (or the exit)
        t1 = rng.randint(0, n) if rng.random() < 0.35 else rng.randint(i + 1, n)
        t2 = rng.randint(0, n) if rng.random() < 0.35 else rng.randint(i + 1, n)
        out.append((rng.randrange(1, 2**32, 2), rng.randrange(2**32), rng.randrange(32), t1, t2))
    return out


def build_kernel(name: str, graph) -> object:
    """The graph inside an outer loop of (tid % 3) + 1 trips: its exit goes to the outer loop's latch,
    so the final block is a loop exit with one predecessor (the structurizer must put it after the
    loop for the lanes to reconverge there)."""
    n = len(graph)
    b = FnBuilder(name, [("out", 8), ("nb", 8)])
    x = b.var("i32", "x")
    steps = b.var("i32", "steps")
    total = b.var("i32", "total")
    trip = b.var("i32", "trip")
    b.block("entry")
    tid = b.op("sreg", "i32", name="tid.x")
    trips = b.op("add", "i32", b.op("rem_nz", "i32", tid, c32(3), signed=False), c32(1))
    b.set(x, "mul", tid, c32(2654435761))
    b.set(total, "mov", c32(0))
    b.set(trip, "mov", c32(0))
    b.term("br", target="H")
    b.block("H")
    b.set(trip, "add", trip, c32(1))
    b.set(steps, "mov", c32(0))
    b.term("br", target="B0")
    for i, (mul, add, shift, t1, t2) in enumerate(graph):
        b.block(f"B{i}")
        b.set(steps, "add", steps, c32(1))
        b.set(x, "mul", x, c32(mul))
        b.set(x, "add", x, c32(add))
        stop = b.op("icmp", "i1", steps, c32(MAX_STEPS), cond="ugt")
        b.term("cbr", stop, target="LATCH", **{"else": f"D{i}"})
        b.block(f"D{i}")
        bit = b.op("lshr", "i32", x, c32(shift))
        p = b.op("trunc", "i1", bit)
        lab = lambda t: "LATCH" if t == n else f"B{t}"  # noqa: E731
        b.term("cbr", p, target=lab(t1), **{"else": lab(t2)})
    b.block("LATCH")
    b.set(total, "add", total, steps)
    again = b.op("icmp", "i1", trip, trips, cond="ult")
    b.term("cbr", again, target="H", **{"else": "EXIT"})
    b.block("EXIT")
    a = b.elem_addr(b.param_ptr("out"), tid, 8)
    packed = b.op("or", "i64", b.op("shl", "i64", b.op("zext", "i64", total), c32(32)), b.op("zext", "i64", x))
    b.op("store", None, a, packed, space="global", align=8)
    lane = b.op("sreg", "i32", name="laneid")
    nb_x = b.var("i32")
    in_range = b.var("i1")
    b.cur.insts.append(N.Inst("shfl", (nb_x, in_range), (x, b.op("xor", "i32", lane, c32(1)), c32(31),
                                                          c32(0xFFFFFFFF)), {"mode": "idx"}))
    b.op("store", None, b.elem_addr(b.param_ptr("nb"), tid, 4), nb_x, space="global", align=4)
    b.term("ret")
    return b.fn


def interpret(graph, tid: int) -> int:
    m = 0xFFFFFFFF
    n = len(graph)
    x, total = (tid * 2654435761) & m, 0
    for _trip in range(tid % 3 + 1):
        steps, blk = 0, 0
        while blk != n:
            mul, add, shift, t1, t2 = graph[blk]
            steps += 1
            x = (x * mul + add) & m
            if steps > MAX_STEPS:
                break
            blk = t1 if (x >> shift) & 1 else t2
        total += steps
    return (total << 32) | x


@pytest.fixture(scope="module")
def graphs():
    rng = random.Random(5)
    gs = [random_graph(rng, rng.randint(3, 9)) for _ in range(N_GRAPHS)]
    fns = [build_kernel(f"g{i}", g) for i, g in enumerate(gs)]
    return gs, fns, build_program(module(*fns, name="random_cfgs.ir"))


def test_random_cfgs_follow_the_same_paths(graphs):
    gs, fns, prog = graphs
    kinds = {"reducible": 0, "irreducible": 0}
    for g, fn in zip(gs, fns, strict=True):
        kinds["reducible" if is_reducible(build_cfg(fn)) else "irreducible"] += 1
        out = np.zeros(64, np.uint64)
        nb = np.zeros(64, np.uint32)
        launch(prog, fn.name, 1, 64, out, nb)
        want = [interpret(g, t) for t in range(64)]
        assert out.tolist() == want, fn.name
        if is_reducible(build_cfg(fn)):
            assert nb.tolist() == [want[t ^ 1] & 0xFFFFFFFF for t in range(64)], f"{fn.name}: not reconverged"
    assert kinds["reducible"] >= 5 and kinds["irreducible"] >= 5, kinds
