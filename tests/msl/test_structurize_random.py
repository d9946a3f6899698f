"""Random control-flow graphs (reducible and irreducible) emitted as MSL and run under msl-sim,
against a direct Python interpretation of the same graph: the structurizer's and the dispatch
loop's output must follow exactly the same paths."""

from __future__ import annotations

import random

import numpy as np
import pytest
from msl_irbuild import FnBuilder, c32, module
from msl_testing import launch

from cumetal.backends.msl.sim import build_program
from cumetal.backends.msl.structurize import build_cfg, is_reducible

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
    n = len(graph)
    b = FnBuilder(name, [("out", 8)])
    x = b.var("i32", "x")
    steps = b.var("i32", "steps")
    b.block("entry")
    out = b.param_ptr("out")
    tid = b.op("sreg", "i32", name="tid.x")
    b.set(x, "mul", tid, c32(2654435761))
    b.set(steps, "mov", c32(0))
    b.term("br", target="B0")
    for i, (mul, add, shift, t1, t2) in enumerate(graph):
        b.block(f"B{i}")
        b.set(steps, "add", steps, c32(1))
        b.set(x, "mul", x, c32(mul))
        b.set(x, "add", x, c32(add))
        stop = b.op("icmp", "i1", steps, c32(MAX_STEPS), cond="ugt")
        b.term("cbr", stop, target="EXIT", **{"else": f"D{i}"})
        b.block(f"D{i}")
        bit = b.op("lshr", "i32", x, c32(shift))
        p = b.op("trunc", "i1", bit)
        lab = lambda t: "EXIT" if t == n else f"B{t}"  # noqa: E731
        b.term("cbr", p, target=lab(t1), **{"else": lab(t2)})
    b.block("EXIT")
    a = b.elem_addr(out, tid, 8)
    packed = b.op("or", "i64", b.op("shl", "i64", b.op("zext", "i64", steps), c32(32)), b.op("zext", "i64", x))
    b.op("store", None, a, packed, space="global", align=8)
    b.term("ret")
    return b.fn


def interpret(graph, tid: int) -> int:
    m = 0xFFFFFFFF
    n = len(graph)
    x, steps, blk = (tid * 2654435761) & m, 0, 0
    while blk != n:
        mul, add, shift, t1, t2 = graph[blk]
        steps += 1
        x = (x * mul + add) & m
        if steps > MAX_STEPS:
            break
        blk = t1 if (x >> shift) & 1 else t2
    return (steps << 32) | x


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
        launch(prog, fn.name, 1, 64, out)
        want = [interpret(g, t) for t in range(64)]
        assert out.tolist() == want, fn.name
    assert kinds["reducible"] >= 5 and kinds["irreducible"] >= 5, kinds
