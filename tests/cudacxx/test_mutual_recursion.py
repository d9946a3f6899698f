"""Mutually recursive device functions where Metal has no call stack: each recursive set (a
three-function recursive-descent evaluator, Hofstadter's female/male sequences with int, float and
double arguments, an expression tree evaluated through virtual functions: recursion through function
pointers, made direct first) is merged into one self-recursive function that then runs over an
explicit stack (backends/apple/recursion.py). Checked against Python on the cpu engine (original and rewritten IR),
msl-sim (the emitted MSL) and air-sim (the AIR lowering); running out of stack is a fault; the AIR
holds no recursive call."""

from __future__ import annotations

import pathlib
import re
import shutil
import struct
import subprocess

import numpy as np
import pytest
from tests.cudacxx.test_recursion_without_call_stack import ENGINES, Runner

from cumetal.backends.apple.recursion import is_self_recursive, recursive_sets, without_self_recursion
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = pathlib.Path(__file__).with_name("kernels") / "mutual_recursion.cu"
EXPRESSIONS = ["1+2*3", "(1+2)*3", "-(4-9)*(2+2*-3)", "((((((((1))))))))+((2*(3+(4*(5-(6+(7*(8-9))))))))",
               "9", "2*2*2*2*2*2*2*2*2*2-1", "--(-(3))*-(2-(1-(5*5)))"]


@pytest.fixture(scope="module")
def module():
    return compile_ptx(compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx, SOURCE.name)


def test_recursive_sets_become_one_self_recursive_function_each(module):
    sets = recursive_sets(module)
    assert sorted(len(s) for s in sets) == [2, 3]
    merged = without_self_recursion(module)
    assert not any(is_self_recursive(f) for f in merged.functions.values())
    assert sum(n.startswith("__cm_scc") for n in merged.functions) == 3  # + Add::eval/Mul::eval (virtual)
    assert not recursive_sets(merged)  # each member now only calls its merged function
    assert without_self_recursion(merged) is merged


def _evaluate(r: Runner, expressions: list[str]) -> tuple[object, list[int], list[int]]:
    text = np.frombuffer(("\0".join(expressions) + "\0").encode(), np.uint8)
    starts = np.array([0, *np.cumsum([len(e) + 1 for e in expressions])[:-1]], np.int32)
    n = len(expressions)
    out, ends = r.dev.allocate(8 * n), r.dev.allocate(4 * n)
    fault = r.run("evaluate", 1, 32, struct.pack("<QQQQi", r.put(text), r.put(starts), out, ends, n))
    return fault, r.get(out, n, np.int64).tolist(), r.get(ends, n, np.int32).tolist()


@pytest.mark.parametrize("engine", ENGINES)
def test_recursive_descent_evaluator(engine, module):
    fault, values, ends = _evaluate(Runner(engine, module), EXPRESSIONS)
    assert fault is None
    assert values == [eval(e) for e in EXPRESSIONS]  # noqa: S307 - our own constant expressions
    starts = np.cumsum([0] + [len(e) + 1 for e in EXPRESSIONS])[:-1]
    assert ends == [int(a) + len(e) for a, e in zip(starts, EXPRESSIONS, strict=True)]  # each read to its end


def _female(n: int) -> int:
    return 1 if n == 0 else n - _male(_female(n - 1))


def _male(n: int) -> int:
    return 0 if n == 0 else n - _female(_male(n - 1))


@pytest.mark.parametrize("engine", ENGINES)
def test_hofstadter_sequences(engine, module):
    r = Runner(engine, module)
    n = 18
    f, m = r.dev.allocate(4 * n), r.dev.allocate(4 * n)
    assert r.run("hofstadter", 1, 32, struct.pack("<QQi", f, m, n)) is None
    assert r.get(f, n, np.int32).tolist() == [_female(i) for i in range(n)]
    assert r.get(m, n, np.int32).tolist() == [_male(i) for i in range(n)]


def _tree(v: list[int], depth: int) -> int:
    top = (v[0] + v[1]) * (v[1] + v[2]) - 1
    for d in range(1, min(depth, 8)):
        top = (top + v[d % 3]) * v[(d + 1) % 3] - 1
    return top


@pytest.mark.parametrize("engine", ENGINES)
def test_recursion_through_virtual_functions(engine, module):
    r = Runner(engine, module)
    values = np.random.default_rng(5).integers(-9, 9, 3 * 32).astype(np.int64)
    out = r.dev.allocate(8 * 32)
    assert r.run("virtual_tree", 1, 32, struct.pack("<QQi", r.put(values), out, 6)) is None
    assert r.get(out, 32, np.int64).tolist() == [_tree(values[3 * t:3 * t + 3].tolist(), 6) for t in range(32)]


@pytest.mark.parametrize("engine", ENGINES[2:])
def test_running_out_of_stack_is_a_fault(engine, module):
    fault, _, _ = _evaluate(Runner(engine, module), ["(" * 3000 + "1" + ")" * 3000])
    assert fault is not None and fault.code in ("illegal_instruction", "trap"), fault


def test_the_air_has_no_recursive_call(module):
    from cumetal.backends.air.lower import kernel_bitcode

    dis = shutil.which("llvm-dis-14")
    if dis is None:
        pytest.skip("llvm-dis-14 is not installed")
    for kernel in ("evaluate", "hofstadter", "virtual_tree"):
        text = subprocess.run([dis, "-o", "-"], input=kernel_bitcode(module, kernel), capture_output=True,
                              check=True, timeout=120).stdout.decode()
        functions = {m.group(1): m.group(0) for m in re.finditer(r"^define [^@]*@([\w.$]+)\(.*?^}", text, re.M | re.S)}
        assert len(functions) >= 2, kernel
        calls = {name: set(re.findall(r"call [^@\n]*@([\w.$]+)\(", body)) & set(functions)
                 for name, body in functions.items()}
        for name in functions:  # no cycle in the call graph of what Metal gets
            seen, todo = set(), [name]
            while todo:
                for c in calls[todo.pop()]:
                    assert c != name, (kernel, name)
                    if c not in seen:
                        seen.add(c)
                        todo.append(c)
