"""Recursive device functions where Metal has no call stack: a function that calls itself becomes a
loop over an explicit stack in its local memory (backends/apple/recursion.py), applied by the MSL
and AIR back ends. Checked four ways against numpy / exact Python: the rewritten IR on the cpu
engine (the transformation alone), msl-sim (the emitted MSL), air-sim (the AIR lowering) and the
cpu engine on the original IR; the AIR of the recursive kernels holds no recursive call."""

from __future__ import annotations

import pathlib
import struct

import numpy as np
import pytest

from cumetal.backends.apple.recursion import MIN_DEPTH, is_self_recursive, without_self_recursion
from cumetal.cudacxx.compile import compile_to_ptx
from cumetal.cudacxx.options import CudaOptions
from cumetal.passes import compile_ptx

SOURCE = pathlib.Path(__file__).with_name("kernels") / "recursion.cu"
ENGINES = ("cpu", "cpu, rewritten IR", "msl-sim", "air-sim")


@pytest.fixture(scope="module")
def module():
    return compile_ptx(compile_to_ptx(SOURCE.read_text(), SOURCE.name, CudaOptions()).ptx, SOURCE.name)


class Runner:
    def __init__(self, engine: str, module) -> None:
        from cumetal.devices.air_sim_device import AirSimDevice
        from cumetal.devices.cpu_device import CpuDevice
        from cumetal.devices.msl_sim_device import MslSimDevice

        self.dev = {"msl-sim": MslSimDevice, "air-sim": AirSimDevice}.get(engine, CpuDevice)()
        self.image = self.dev.load_module(without_self_recursion(module) if "rewritten" in engine else module)
        self.stream = self.dev.create_stream()

    def run(self, kernel: str, grid: int, block: int, params: bytes):
        fault = self.dev.enqueue_launch(self.stream, self.image, kernel, (grid, 1, 1), (block, 1, 1), 0, params)
        faults = self.dev.synchronize(self.stream)
        return fault or (faults[0] if faults else None)

    def put(self, a: np.ndarray) -> int:
        addr = self.dev.allocate(a.nbytes)
        self.dev.memory.write(addr, a.tobytes())
        return addr

    def get(self, addr: int, n: int, dtype) -> np.ndarray:
        return np.frombuffer(self.dev.memory.read(addr, n * np.dtype(dtype).itemsize), dtype).copy()


def test_the_recursive_functions_are_rewritten_into_loops(module):
    rewritten = without_self_recursion(module)
    recursive = sorted(n for n, f in module.functions.items() if is_self_recursive(f))
    assert len(recursive) == 3
    assert not any(is_self_recursive(f) for f in rewritten.functions.values())
    for name in recursive:
        assert rewritten.functions[name].local_size >= MIN_DEPTH * 16
    assert without_self_recursion(rewritten) is rewritten


@pytest.mark.parametrize("engine", ENGINES)
def test_per_thread_quicksort(engine, module):
    r = Runner(engine, module)
    threads, length = 64, 37
    data = np.random.default_rng(3).integers(-1000, 1000, threads * length).astype(np.int32)
    data[:length] = np.arange(length)[::-1]  # one reversed segment
    addr = r.put(data)
    assert r.run("sort_segments", 2, 32, struct.pack("<Qi", addr, length)) is None
    got = r.get(addr, threads * length, np.int32).reshape(threads, length)
    np.testing.assert_array_equal(got, np.sort(data.reshape(threads, length), axis=1))


def _walk(tree: list[int], i: int, n: int, depth: int) -> int:
    if i >= n:
        return depth
    left, right = _walk(tree, 2 * i + 1, n, depth + 1), _walk(tree, 2 * i + 2, n, depth + 1)
    return tree[i] * (((depth + i) & 7) + 1) + depth + 3 * left - right


@pytest.mark.parametrize("engine", ENGINES)
def test_tree_walk_with_a_local_array_per_level(engine, module):
    r = Runner(engine, module)
    tree = np.random.default_rng(4).integers(-50, 50, 200).astype(np.int32)
    out = r.dev.allocate(8 * 32)
    assert r.run("tree_walk", 1, 32, struct.pack("<Qi4xQ", r.put(tree), len(tree), out)) is None
    want = [_walk(tree.tolist(), t % 5, len(tree), t % 3) for t in range(32)]
    assert r.get(out, 32, np.int64).tolist() == want


def _deep(n: int, acc: int) -> int:
    for k in range(n, 0, -1):  # the recursion unrolled: acc on the way down, the mix on the way up
        acc = (acc * 31 + k) & 0xFFFFFFFF
    for k in range(1, n + 1):
        acc = ((acc >> 1) ^ (acc << 3) ^ k) & 0xFFFFFFFF
    return acc


@pytest.mark.parametrize("engine", ENGINES)
def test_deep_recursion_and_running_out_of_stack(engine, module):
    r = Runner(engine, module)
    out = r.dev.allocate(4 * 32)
    assert r.run("go_deep", 1, 32, struct.pack("<I4xQ", 40, out)) is None  # 40..71 levels
    assert r.get(out, 32, np.uint32).tolist() == [_deep(40 + t, t) for t in range(32)]
    if engine != "cpu":  # the explicit stack has a bottom: a clear fault, never a crash or a hang
        fault = r.run("go_deep", 1, 1, struct.pack("<I4xQ", 1 << 20, out))
        assert fault is not None and fault.code in ("illegal_instruction", "trap"), fault


def test_the_air_of_recursive_kernels_has_no_recursive_call(module):
    """Metal has no call stack: what the AIR back end writes must not call a function from itself."""
    import re
    import shutil
    import subprocess

    from cumetal.backends.air.lower import kernel_bitcode

    dis = shutil.which("llvm-dis-14")
    if dis is None:
        pytest.skip("llvm-dis-14 is not installed")
    for kernel in ("sort_segments", "tree_walk", "go_deep"):
        text = subprocess.run([dis, "-o", "-"], input=kernel_bitcode(module, kernel), capture_output=True,
                              check=True).stdout.decode()
        for m in re.finditer(r"^define [^@]*@([\w.$]+)\(.*?^}", text, re.M | re.S):
            assert not re.search(rf"call [^@]*@{re.escape(m.group(1))}\(", m.group(0)), (kernel, m.group(1))
