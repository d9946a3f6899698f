"""The real-Metal suite (tests/metal) as pytest runs it off a Mac (issue 11): every test is skipped
with the reason, the tests that make the GPU fault are not in the shared-process run and come
last, each in a process of its own (after a GPU fault macOS may ignore the process's later
command buffers, so a fault in the middle would fail every later test)."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

METAL = Path(__file__).resolve().parents[1] / "metal"
FILES = ["test_metal_faults_isolated.py", "test_functional_on_metal.py", "test_metal_hardware.py"]


@pytest.fixture(scope="module")
def run():
    if sys.platform == "darwin":
        pytest.skip("on a Mac tests/metal runs for real")
    proc = subprocess.run([sys.executable, "-m", "pytest", "-v", "-rs", "-p", "no:cacheprovider",
                           *(str(METAL / f) for f in FILES)], capture_output=True, text=True, timeout=300,
                          cwd=METAL.parents[1])
    return proc


def test_everything_is_skipped_with_the_reason(run):
    assert run.returncode == 0, run.stdout[-3000:]
    tail = run.stdout.strip().splitlines()[-1]
    assert re.fullmatch(r"=* \d+ skipped in [\d.]+s( \([\d:]+\))? =*", tail), tail
    reasons = re.findall(r"^SKIPPED \[\d+\] [^:]+(?::\d+)?: (.*)$", run.stdout, re.M)
    assert reasons and set(reasons) == {f"needs macOS with a Metal GPU; this is {sys.platform}"}


def _fault_tests() -> set[str]:
    """FAULT_TESTS of tests/metal/test_functional_on_metal.py (read, not imported: importing it
    loads every functional test module)."""
    tree = ast.parse((METAL / "test_functional_on_metal.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "FAULT_TESTS" for t in node.targets):
            return set(ast.literal_eval(node.value))
    raise AssertionError("FAULT_TESTS not found")


def test_fault_tests_run_last_and_alone(run):
    FAULT_TESTS = _fault_tests()  # noqa: N806
    order = re.findall(r"^tests/metal/(\w+)\.py::\S+\[(\S+)\] SKIPPED", run.stdout, re.M)
    files = [f for f, _ in order]
    faults = [case for f, case in order if f == "test_metal_faults_isolated"]
    assert sorted(faults) == sorted(FAULT_TESTS)
    first_fault = files.index("test_metal_faults_isolated")
    assert set(files[first_fault:]) == {"test_metal_faults_isolated"}  # nothing after them
    shared = [case.split("::")[-1] for f, case in order if f == "test_functional_on_metal"]
    assert len(shared) >= 25 and not set(shared) & FAULT_TESTS  # never in the shared process


def test_every_functional_test_gets_its_arguments_in_the_metal_wrapper():
    """tests/metal calls the functional tests itself (one MetalDevice for the session): each one's
    fixtures must be ones it can make, or a Mac run fails for the harness's sake (test_device_heap's
    module fixture ``ptx`` did)."""
    import contextlib
    import importlib.util

    spec = importlib.util.spec_from_file_location("metal_wrapper_on_linux", METAL / "test_functional_on_metal.py")
    wrapper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(wrapper)
    available = {"gpu": object(), "monkeypatch": object(), "capfd": object()}
    extra = {}
    for param in wrapper.CASES:
        (case,) = param.values
        with contextlib.ExitStack() as stack:
            args = wrapper.case_arguments(case, available, stack)
        extra.update({k: v for k, v in args.items() if k not in available})
    assert len(wrapper.CASES) >= 30
    assert ".entry" in extra["ptx"]  # test_device_heap's module fixture, compiled by the wrapper

    def needs_tmp(tmp_path):  # a fixture the wrapper cannot make is named, not a KeyError
        pass

    with pytest.raises(LookupError, match="needs fixture 'tmp_path'"), contextlib.ExitStack() as stack:
        wrapper.case_arguments(needs_tmp, available, stack)
