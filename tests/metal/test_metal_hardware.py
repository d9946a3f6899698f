"""Facts about the Metal backend that only real Apple hardware can confirm (docs/metal-backend.md)."""

from __future__ import annotations

import ctypes
from pathlib import Path

import numpy as np
import pytest

from cumetal import driver as cu

R = cu.CUresult
PTX = (Path(__file__).resolve().parents[1] / "driver" / "data" / "kernels.ptx").read_text()


def ok(result):
    err, *rest = result
    assert err == R.CUDA_SUCCESS, f"{R(err).name}: {cu.last_error_message()}"
    return rest[0] if len(rest) == 1 else tuple(rest) if rest else None


@pytest.fixture
def ctx(on_metal):
    c = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    yield c
    cu.cuCtxDestroy(c)


def test_probe_width_and_arena_addresses(on_metal):
    dev = on_metal
    assert dev.bridge.execution_width(dev.probe) == 32
    assert dev.arena.base == dev.bridge.contents_address(dev.arena.buffer, dev.arena.capacity)
    assert dev.arena.delta == dev.bridge.gpu_address(dev.arena.buffer) - dev.arena.base


@pytest.mark.parametrize("library", ["msl", "metallib"])
def test_vector_add_on_a_stream_with_timed_events(ctx, monkeypatch, library):
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", library)
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    n = 1 << 16
    a = np.random.default_rng(1).standard_normal(n).astype(np.float32)
    b = np.random.default_rng(2).standard_normal(n).astype(np.float32)
    da, db, dc = (ok(cu.cuMemAlloc(a.nbytes)) for _ in range(3))
    s = ok(cu.cuStreamCreate(0))
    start, end = ok(cu.cuEventCreate(0)), ok(cu.cuEventCreate(0))
    ok(cu.cuMemcpyHtoDAsync(da, a, a.nbytes, s))
    ok(cu.cuMemcpyHtoDAsync(db, b, b.nbytes, s))
    ok(cu.cuEventRecord(start, s))
    ok(cu.cuLaunchKernel(fn, n // 256, 1, 1, 256, 1, 1, 0, s, ((da, db, dc, n), (None, None, None, ctypes.c_int)), None))
    ok(cu.cuEventRecord(end, s))
    ok(cu.cuEventSynchronize(end))
    ms = ok(cu.cuEventElapsedTime(start, end))
    assert 0 < ms < 10_000
    out = np.empty_like(a)
    ok(cu.cuMemcpyDtoH(out, dc, out.nbytes))
    np.testing.assert_array_equal(out, a + b)
    ok(cu.cuStreamDestroy(s))


def test_blit_copy_and_fill_on_a_stream(ctx):
    s = ok(cu.cuStreamCreate(0))
    src = np.arange(4096, dtype=np.uint8)
    a, b = ok(cu.cuMemAlloc(4096)), ok(cu.cuMemAlloc(4096))
    ok(cu.cuMemcpyHtoD(a, src, 4096))
    ok(cu.cuMemcpyDtoDAsync(b, a, 2048, s))
    ok(cu.cuMemsetD8Async(int(b) + 2048, 0x5A, 2048, s))
    ok(cu.cuStreamSynchronize(s))
    out = np.empty(4096, np.uint8)
    ok(cu.cuMemcpyDtoH(out, b, 4096))
    assert out[:2048].tolist() == src[:2048].tolist() and set(out[2048:].tolist()) == {0x5A}
    ok(cu.cuStreamDestroy(s))


def test_printf_reaches_stdout(ctx, capfd):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"hello"))
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 2, 1, 1, 0, 0, ((5,), (ctypes.c_uint,)), None))
    ok(cu.cuCtxSynchronize())
    lines = sorted(capfd.readouterr().out.splitlines())
    assert lines == ["hello from thread 0 block 0 tag 5", "hello from thread 1 block 0 tag 5"]


def test_dynamic_shared_memory(ctx):
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"scale_dynamic_shared"))
    x = np.arange(512, dtype=np.float32)
    d = ok(cu.cuMemAlloc(x.nbytes))
    ok(cu.cuMemcpyHtoD(d, x, x.nbytes))
    ok(cu.cuLaunchKernel(fn, 2, 1, 1, 256, 1, 1, 256 * 4, 0, ((d, 3.0), (None, ctypes.c_float)), None))
    out = np.empty_like(x)
    ok(cu.cuMemcpyDtoH(out, d, out.nbytes))
    # each block reverses its 256 values through threadgroup memory and scales them
    assert out.tolist() == (x.reshape(2, 256)[:, ::-1] * 3.0).ravel().tolist()


def test_compile_options_pin_the_language_version(on_metal):
    f = on_metal.bridge.factory
    opts = f.compile_options()
    assert int(opts.languageVersion()) == f.language_version
    assert not bool(opts.fastMathEnabled())


@pytest.mark.parametrize("fp64", ["emulate"])
def test_the_msl_checker_agrees_with_metal(on_metal, fp64):
    """Where the clang MSL checker (tools/msl_check) and Metal disagree, the checker's model is wrong."""
    import dataclasses

    from cumetal.backends.msl import emit_module
    from cumetal.devices.metal import bridge as B
    from cumetal.devices.metal.library import emit_refusals
    from cumetal.passes import compile_ptx
    from cumetal.tools.msl_check import check_msl

    f = on_metal.bridge.factory
    kernels = Path(__file__).resolve().parents[1] / "functional" / "kernels"
    constructs = Path(B.__file__).resolve().parents[2] / "backends" / "msl" / "check" / "constructs"
    # constructs the checker refuses by policy (64-bit atomics: "expect: either") are not compared
    sources = {p.name: p.read_text() for p in sorted(constructs.glob("*.metal"))
               if "// expect: either" not in p.read_text()}
    for p in sorted(kernels.glob("*.ptx")):
        m = compile_ptx(p.read_text(), str(p))
        refused = emit_refusals(m, {}) if p.stem == "misc" else {}
        m = dataclasses.replace(m, kernels={k: v for k, v in m.kernels.items() if k not in refused})
        sources[p.name] = emit_module(m, fp64=fp64).source
    disagree = {}
    for name, src in sources.items():
        lib, err = on_metal.bridge.library_from_source(on_metal.device, src)
        checker = check_msl(src, msl_version=f.language_version)
        if (lib is not None) != (not checker):
            disagree[name] = {"metal": err or "compiles", "checker": checker[:500] or "clean"}
    assert disagree == {}, disagree
