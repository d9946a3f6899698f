"""The MSL checker (cumetal.tools.msl_check): clang compiles every emitted MSL module against our
checking header (reserved words poisoned, device/constant/threadgroup/thread as distinct address
spaces, only the features of the MSL version checked), so Linux sees what Apple's compiler would
reject. Every functional-test module and every corpus module that emits is checked (issue 11)."""

from __future__ import annotations

import dataclasses
import re
from functools import cache
from pathlib import Path

import pytest

from cumetal.backends.msl import EmitError, emit_module
from cumetal.backends.msl.prelude import prelude
from cumetal.devices.metal.library import emit_refusals
from cumetal.passes import compile_ptx
from cumetal.tools.msl_check import check_many, check_msl, main

TESTS = Path(__file__).resolve().parents[1]
FUNCTIONAL = sorted((TESTS / "functional" / "kernels").glob("*.ptx"))
CORPUS = sorted((TESTS / "corpus" / "ptx").rglob("*.ptx"))
SMALL = """#include <metal_stdlib>
using namespace metal;
BODY
"""


def _check(body: str, **kw) -> str:
    return check_msl(SMALL.replace("BODY", body), **kw)


@cache
def _emitted(path: Path, fp64: str) -> str | None:
    """The MSL the Metal runtime would compile for the file: a kernel the back end refuses
    (recursion) is left out, as devices/metal/library.py does."""
    try:
        module = compile_ptx(path.read_text(), str(path))
    except Exception:  # not lowered: other tests say why
        return None
    if not module.kernels:
        return None
    try:
        return emit_module(module, fp64=fp64).source
    except EmitError:
        refused = emit_refusals(module, {})
    kept = {k: v for k, v in module.kernels.items() if k not in refused}
    if not kept:
        return None
    return emit_module(dataclasses.replace(module, kernels=kept), fp64=fp64).source


# ---- the checker sees what Apple's compiler rejects
def test_half_as_a_variable_name_is_rejected():
    assert "poisoned identifier" in _check("inline uint f(uint a) { uint kept, half, rest; return a; }")


def test_kernel_named_after_an_msl_macro_is_rejected():
    assert "error" in _check("kernel void NAN(device uint* p [[buffer(0)]]) { p[0] = 1; }")
    assert _check("kernel void cmk_NAN(device uint* p [[buffer(0)]]) { p[0] = 1; }") == ""


def test_a_pointer_in_the_wrong_address_space_is_rejected():
    body = ("inline uint get(device uint* p) { return p[0]; }\n"
            "kernel void k(device uint* out [[buffer(0)]], threadgroup uchar* s [[threadgroup(0)]]) {\n"
            "  out[0] = get(ARG);\n}")
    assert _check(body.replace("ARG", "out")) == ""
    assert "no matching function" in _check(body.replace("ARG", "(threadgroup uint*)s"))
    thread_local = body.replace("ARG", "&x").replace("{\n  out", "{\n  uint x = 1;\n  out")
    assert "no matching function" in _check(thread_local)


def test_an_explicit_cast_between_address_spaces_is_rejected():
    body = ("kernel void k(device uint* out [[buffer(0)]], threadgroup uchar* s [[threadgroup(0)]]) {\n"
            "  uint x = 1;\n  out[0] = *(CAST)ARG;\n}")
    legal = [("device uint*", "(out + 1)"), ("device uint*", "(ulong(x) + 16)"), ("threadgroup uint*", "s"),
             ("device uint*", "(device uchar*)out"), ("thread uint*", "&x")]
    for cast, arg in legal:
        assert _check(body.replace("CAST", cast).replace("ARG", arg)) == "", (cast, arg)
    for cast, arg in [("device uint*", "s"), ("threadgroup uint*", "out"), ("device uint*", "&x"),
                      ("device uint*", "(threadgroup uchar*)(s + 4)"), ("thread uint*", "out")]:
        assert "reinterpret_cast from" in _check(body.replace("CAST", cast).replace("ARG", arg)), (cast, arg)


def test_atomics_on_the_thread_space_are_rejected():
    body = ("kernel void k(device atomic_uint* a [[buffer(0)]]) {\n"
            "  atomic_uint local;\n  atomic_fetch_add_explicit(PTR, 1u, memory_order_relaxed);\n}")
    assert _check(body.replace("PTR", "a")) == ""
    assert "no matching function" in _check(body.replace("PTR", "&local"))


def test_fences_need_msl_3_2_and_double_is_refused():
    fence = ("kernel void k(device uint* p [[buffer(0)]]) {\n  p[0] = 1;\n  atomic_thread_fence(mem_flags::mem_device, "
             "memory_order_seq_cst, thread_scope_device);\n}")
    assert _check(fence) == ""
    assert "undeclared identifier" in _check(fence, msl_version="3.1")
    assert "poisoned identifier" in _check("kernel void k(device float* p [[buffer(0)]]) { double d = p[0]; }")


# ---- everything the back end emits is clean
@pytest.mark.parametrize("fp64", ["none", "emulate"])
@pytest.mark.parametrize("msl", ["3.0", "3.2"])
def test_prelude_is_clean(fp64, msl):
    assert check_msl(prelude(fp64) + "\n", msl_version=msl) == ""


def test_native_fp64_prelude_is_clean_where_double_is_allowed():
    assert check_msl(prelude("native"), allow_double=True) == ""
    assert "poisoned identifier" in check_msl(prelude("native"))  # what a Mac does with double


@pytest.mark.parametrize("fp64", ["emulate", "native"])
def test_every_functional_module(fp64):
    sources = {p.name: _emitted(p, fp64) for p in FUNCTIONAL}
    assert all(sources.values()), [n for n, s in sources.items() if not s]
    names = list(sources)
    results = check_many([sources[n] for n in names], allow_double=(fp64 == "native"))
    assert {n: r for n, r in zip(names, results, strict=True) if r} == {}
    # the modules without fences are MSL 3.0 (macOS 13); the ones with fences need 3.2
    results30 = check_many([sources[n] for n in names], msl_version="3.0", allow_double=(fp64 == "native"))
    for name, res in zip(names, results30, strict=True):
        has_fence = "atomic_thread_fence" in sources[name]
        assert bool(res) == has_fence, (name, res[:500])
        if has_fence:
            assert set(re.findall(r"error: (.*)", res)) <= {
                "use of undeclared identifier 'memory_order_seq_cst'; did you mean 'memory_order_relaxed'?",
                "use of undeclared identifier 'thread_scope_threadgroup'",
                "use of undeclared identifier 'thread_scope_device'"}


def test_every_corpus_module():
    """All 312 corpus modules the back end emits (fp64 emulate: what the Metal runtime compiles),
    about 37 MB of MSL; ~25 s on this 2-core machine."""
    emitted = [(p, _emitted(p, "emulate")) for p in CORPUS]
    emitted = [(p, s) for p, s in emitted if s]
    assert len(emitted) >= 312  # 320 lower; 8 hold only a recursive kernel
    results = check_many([s for _, s in emitted])
    bad = {str(p.relative_to(TESTS)): r[:800] for (p, _), r in zip(emitted, results, strict=True) if r}
    assert bad == {}


def test_what_metal_gets_on_macos_13_compiles_at_msl_3_0():
    """On macOS 13 (MSL 3.0) the Metal device leaves out the kernels fence_refusals names; what it
    sends must then hold no fence and compile at MSL 3.0. Every functional and corpus module whose
    MSL has a fence is checked (the legalizer makes fences of mbarrier waits and async copies, which
    the PTX does not show as membar)."""
    from cumetal.devices.metal.bridge import MSL_3_0
    from cumetal.devices.metal.library import fence_refusals

    sent: dict[str, str] = {}
    for path in FUNCTIONAL + CORPUS:
        source = _emitted(path, "emulate")
        if not source or "atomic_thread_fence" not in source:
            continue
        module = compile_ptx(path.read_text(errors="replace"), str(path))
        refused = {*fence_refusals(module, MSL_3_0), *emit_refusals(module, {})}
        kept = {k: v for k, v in module.kernels.items() if k not in refused}
        assert len(kept) < len(module.kernels), f"{path.name}: a fence, but no kernel refused"
        if kept:
            sent[str(path.relative_to(TESTS))] = emit_module(dataclasses.replace(module, kernels=kept),
                                                             fp64="emulate").source
    assert len(sent) >= 5
    assert {n: s for n, s in sent.items() if "atomic_thread_fence" in s} == {}
    results = check_many(list(sent.values()), msl_version="3.0")
    assert {n: r[:800] for n, r in zip(sent, results, strict=True) if r} == {}


def test_command_line(tmp_path, capsys):
    good = tmp_path / "good.metal"
    good.write_text(SMALL.replace("BODY", "kernel void k(device uint* p [[buffer(0)]]) { p[0] = 1; }"))
    bad = tmp_path / "bad.metal"
    bad.write_text(SMALL.replace("BODY", "kernel void k(device uint* p [[buffer(0)]]) { half h; }"))
    assert main([str(good)]) == 0 and "OK (MSL 3.2)" in capsys.readouterr().out
    assert main([str(bad), "--msl", "3.0"]) == 1
    assert f"{bad}:" in capsys.readouterr().err
    assert main([str(tmp_path / "missing.metal")]) == 2
