"""Differential tests: random straight-line programs over every per-lane IR op, each backend vs the
op table's reference definitions, bit for bit (``program.py`` says how programs are made).

Each backend is run through its launch function (``cumetal.backends.cpu.launch``, air-sim's
``launch_air``, msl-sim's device launch: the same entry points the devices use, legalization
included). A mismatch is reported where it is made: the op, its types and attributes, and the
operand bits of a few lanes. Mismatches already reported to the backend's owners are listed in
KNOWN with the reason; anything else fails.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import program as P  # noqa: E402

from cumetal.ir.ops import OPS  # noqa: E402

SEEDS = (11, 12)
STEPS = 400
BACKENDS = ("cpu", "air-sim", "msl-sim")


def _launch(backend: str):
    if backend == "cpu":
        from cumetal.backends.cpu import launch
        return launch
    if backend == "air-sim":
        from cumetal.backends.air.sim import launch_air
        return launch_air
    from cumetal.backends.msl.sim.device_launch import launch
    return launch


# (backend, regex over Step.key(), reason) — found by this tester and reported (issue #10)
KNOWN: list[tuple[str, str, str]] = []


def _known(backend: str, m: P.Mismatch) -> str | None:
    for b, pattern, reason in KNOWN:
        if re.fullmatch(b, backend) and re.search(pattern, m.step.key()):
            return reason
    return None


def _excluded(backend: str):
    patterns = [pattern for b, pattern, _ in KNOWN if re.fullmatch(b, backend)]
    return lambda key: any(re.search(p, key) for p in patterns)


@pytest.fixture(scope="module")
def programs():
    """Per backend: the seeded programs without the instructions KNOWN lists for it (those are
    checked by test_known_mismatch_still_reproduces), and their reference values."""
    out = {}
    for backend in BACKENDS:
        for seed in SEEDS:
            prog = P.generate(seed, STEPS, exclude=_excluded(backend))
            out[backend, seed] = (prog, P.reference(prog))
    return out


def _mismatches(backend: str, prog: P.Program, ref) -> list[str]:
    got = P.run(prog, _launch(backend))
    if isinstance(got, str):
        return [f"the launch failed: {got}"]
    return [str(m) for m in P.compare(prog, got, ref)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_backend_matches_the_reference(backend: str, programs) -> None:
    problems = [f"program {seed}: {m}" for seed in SEEDS for m in _mismatches(backend, *programs[backend, seed])]
    assert not problems, f"{backend} differs from the reference definitions:\n" + "\n".join(problems)


@pytest.mark.parametrize(("backend", "pattern", "reason"),
                         [pytest.param(b, p, r, marks=pytest.mark.xfail(strict=False, reason=r),
                                       id=f"{b}:{p}") for b, p, r in KNOWN])
def test_known_mismatch_still_reproduces(backend: str, pattern: str, reason: str) -> None:
    """Each KNOWN entry, alone: xfails while the bug is there; XPASS in the summary once a backend is
    fixed (then remove the entry; not strict, as backends and legalizer change under it)."""
    op = re.match(r"\^?(\w+)", pattern).group(1)
    ops = [o for o in P.candidate_ops() if re.fullmatch(op + r"(_ieee)?", o)]
    assert ops, f"no op of the table matches {pattern!r} any more"
    problems = []
    for be in BACKENDS:
        if not re.fullmatch(backend, be):
            continue
        for seed in SEEDS[:1]:
            prog = P.generate(seed, 60, ops=ops, exclude=lambda key: not re.search(pattern, key))
            problems += [f"{be}: {m}" for m in _mismatches(be, prog, P.reference(prog))]
    assert not problems, "\n".join(problems)


def test_the_programs_cover_the_op_table(programs) -> None:
    used = {st.op for prog, _ in programs.values() for st in prog.steps}
    assert used == set(P.candidate_ops()), set(P.candidate_ops()) - used
    # every per-lane op of the table is either generated or skipped for a stated reason
    skipped = {n for n, i in OPS.items() if i.ref is not None} - set(P.candidate_ops())
    assert skipped <= set(P.SKIP_OPS) | {n for n, i in OPS.items() if "domain" in i.doc and i.domain is None}


def test_the_comparison_catches_a_wrong_bit(programs) -> None:
    """The harness can fail: flipping one bit of one result on one lane is reported, once, at that op."""
    from cumetal.backends.cpu import launch

    prog, ref = programs["cpu", SEEDS[0]]
    got = P.run(prog, launch)
    assert P.compare(prog, got, ref) == []
    j = next(k for k, st in enumerate(prog.steps) if st.dst.type == "f32")
    got[j, 17] ^= np.uint64(1 << 22)
    found = P.compare(prog, got, ref)
    assert [(m.step.out_cell, m.lanes) for m in found] == [(j, [17])]


def test_operands_include_the_hard_values() -> None:
    prog = P.generate(3, 10)
    f32 = {int(x) for s, t in prog.loads.values() if t == "f32" for x in prog.inputs[s]}
    assert {0x80000000, 0x7F800000, 0x7FC12345, 1, 0x7F800001} <= f32  # -0, inf, NaN payload, subnormal, sNaN
    i32 = {int(x) for s, t in prog.loads.values() if t == "i32" for x in prog.inputs[s]}
    assert {0x80000000, 0xFFFFFFFF, 0} <= i32
