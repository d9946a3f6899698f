"""What would have failed on the first run on a Mac (issue 11), checked through cumetal.driver on
the RecordingMetal stand-in: cuInit's fallback on any Metal failure, the fp64 fallback, one
recursive kernel not failing its module, fences on a macOS without MSL 3.2, kernels named after MSL
reserved words, autorelease pools, and the message after a GPU fault."""

from __future__ import annotations

import ctypes
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_metal_driver_calls import PTX, ctx, metal, ok  # noqa: F401 - fixtures
from test_metal_standin import RecordingMetal

from cumetal import driver as cu
from cumetal.backends.air.metallib import read_metallib
from cumetal.devices import backends
from cumetal.devices.cpu_device import CpuDevice
from cumetal.devices.metal import bridge
from cumetal.devices.metal.device import MetalInitError, open_metal_device
from cumetal.passes import compile_ptx

R = cu.CUresult
# bounce -> ping -> pong -> ping, ping reaching pong through a function pointer
MUTUAL = Path(__file__).parent / "data" / "indirect_recursion.ptx"
FENCE_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry publish(.param .u64 p)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], 1;
    membar.gl;
    st.global.u32 [%rd2+4], 2;
    ret;
}
.visible .entry plain(.param .u64 p)
{
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], 3;
    ret;
}
"""


class _Broken(RecordingMetal):
    """A stand-in whose buffers lack gpuAddress (macOS 12) or whose device raises something unexpected."""

    def __init__(self, how: str) -> None:
        super().__init__()
        self.how = how

    def system_default_device(self):
        if self.how == "objc":
            raise RuntimeError("objc.error: NSInvalidArgumentException")
        dev = super().system_default_device()
        if self.how == "gpuAddress":
            make = dev.newBufferWithLength_options_

            class NoGpuAddress:
                def __init__(self, b):
                    self._b = b

                def __getattr__(self, name):
                    if name == "gpuAddress":
                        raise AttributeError(name)
                    return getattr(self._b, name)

            dev.newBufferWithLength_options_ = lambda n, o: NoGpuAddress(make(n, o))
        return dev

    def contents_address(self, buffer, length):
        return super().contents_address(getattr(buffer, "_b", buffer), length)


@pytest.mark.parametrize("how, said", [("gpuAddress", "needs macOS 13 or later"),
                                       ("objc", "Metal initialization failed: RuntimeError")])
def test_any_metal_init_failure_is_a_message(how, said):
    with pytest.raises((bridge.MetalUnavailable, MetalInitError), match=said):
        open_metal_device(_Broken(how))


def test_macos_default_falls_back_to_the_cpu_on_any_failure(monkeypatch, capfd):
    monkeypatch.delenv("CUMETAL_BACKEND", raising=False)
    monkeypatch.setattr(backends.sys, "platform", "darwin")
    monkeypatch.setattr(bridge, "PyObjCFactory", lambda: _Broken("objc"))
    dev = backends.open_device()
    assert isinstance(dev, CpuDevice)  # the numpy engine's or the compiled one's (CUMETAL_CPU_ENGINE)
    assert "Metal initialization failed: RuntimeError" in capfd.readouterr().err


def test_forced_metal_with_an_unexpected_failure_is_no_device_without_traceback():
    code = ("from cumetal.devices.metal import bridge\n"
            "class F(bridge.MetalFactory):\n"
            "    def system_default_device(self): raise KeyError('selector missing')\n"
            "bridge.PyObjCFactory = F\n"
            "from cumetal import driver as cu\n"
            "print(int(cu.cuInit(0)[0]))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**__import__("os").environ, "CUMETAL_BACKEND": "metal"})
    assert out.stdout.split() == [str(int(R.CUDA_ERROR_NO_DEVICE))]
    assert "Metal initialization failed: KeyError" in out.stderr and "Traceback" not in out.stderr


def test_rejected_msl_names_the_fp64_mode(ctx, metal):  # noqa: F811
    metal.reject_source = lambda src: "float2 is broken" if "cumetal_probe" not in src else None
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    msg = cu.last_error_message()
    assert "Metal rejected the generated MSL (CUMETAL_FP64=emulate):\nfloat2 is broken" in msg


def test_rejected_source_is_not_compiled_again(ctx, metal, monkeypatch):  # noqa: F811
    monkeypatch.setenv("CUMETAL_FP64", "native")
    metal.reject_source = lambda src: "double is not supported" if re.search(r"\bdouble\b", src) else None
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert len(metal.sources) == 2  # probe, native (rejected)
    assert cu.cuModuleLoadData(PTX + "\n// another module\n")[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert len(metal.sources) == 2  # the same source: Metal's answer is remembered
    monkeypatch.delenv("CUMETAL_FP64")
    ok(cu.cuModuleLoadData(PTX))  # the default emulates: no double reaches Metal
    assert len(metal.sources) == 3 and not re.search(r"\bdouble\b", metal.sources[-1])

def test_recursion_through_a_function_pointer_is_emitted_for_metal(ctx, metal, capfd):  # noqa: F811
    """Metal has no call stack: bounce -> ping -> pong -> ping (ping reaching pong through a function
    pointer) is made direct, merged and run over an explicit stack (backends/apple/recursion.py), so
    the kernel is emitted with the others instead of being left out."""
    metal.check_msl = True
    mod = ok(cu.cuModuleLoadData(MUTUAL.read_text()))
    assert "cannot run on Metal" not in capfd.readouterr().err
    assert re.search(r"kernel void (cmk_)?bounce\(", metal.sources[-1])
    assert "kernel void plain(" in metal.sources[-1]
    d = ok(cu.cuMemAlloc(64))
    ok(cu.cuLaunchKernel(ok(cu.cuModuleGetFunction(mod, b"plain")), 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None))
    ok(cu.cuLaunchKernel(ok(cu.cuModuleGetFunction(mod, b"bounce")), 1, 1, 1, 1, 1, 1, 0, 0,
                         ((d, 5), (None, ctypes.c_uint)), None))


def test_fences_need_macos_15(metal, capfd):  # noqa: F811
    metal.macos = 14
    metal.check_msl = True  # clang checks each source against MSL 3.1, as the options pin it
    ok(cu.cuInit(0))
    c = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    mod = ok(cu.cuModuleLoadData(FENCE_PTX))
    assert "kernel 'publish' cannot run on Metal: it uses a memory fence" in capfd.readouterr().err
    assert "atomic_thread_fence" not in metal.sources[-1] and "kernel void plain(" in metal.sources[-1]
    d = ok(cu.cuMemAlloc(64))
    ok(cu.cuLaunchKernel(ok(cu.cuModuleGetFunction(mod, b"plain")), 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None))
    publish = ok(cu.cuModuleGetFunction(mod, b"publish"))
    assert cu.cuLaunchKernel(publish, 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None)[0] == R.CUDA_ERROR_LAUNCH_FAILED
    assert "needs MSL 3.2 (macOS 15 or later); this Mac has MSL 3.1" in capfd.readouterr().err
    ok(cu.cuCtxDestroy(c))


def test_fences_compile_with_msl_3_2(ctx, metal):  # noqa: F811
    metal.check_msl = True
    ok(cu.cuModuleLoadData(FENCE_PTX))
    assert "atomic_thread_fence" in metal.sources[-1]


def test_kernel_named_after_an_msl_macro_is_renamed_and_found(ctx, metal):  # noqa: F811
    text = FENCE_PTX.replace("plain", "assert").replace("publish", "NAN")
    mod = ok(cu.cuModuleLoadData(text))
    src = metal.sources[-1]
    assert "kernel void cmk_assert(" in src and "kernel void cmk_NAN(" in src
    names = [e[2] for e in metal.log if e[1] == "newFunctionWithName:"]
    assert {"cmk_assert", "cmk_NAN"} <= set(names)
    d = ok(cu.cuMemAlloc(64))
    ok(cu.cuLaunchKernel(ok(cu.cuModuleGetFunction(mod, b"assert")), 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None))


def test_command_buffers_are_made_in_drained_pools(ctx, metal):  # noqa: F811
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    before = metal.pools_drained
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, 0, ((d, d, d, 16), (None, None, None, ctypes.c_int)), None))
    assert metal.pools_drained > before and metal.pool_depth == 0


def test_after_a_gpu_fault_later_failures_say_why(ctx, metal, capfd):  # noqa: F811
    mod = ok(cu.cuModuleLoadData(PTX))
    fn = ok(cu.cuModuleGetFunction(mod, b"vector_add"))
    d = ok(cu.cuMemAlloc(64))
    args = ((d, d, d, 16), (None, None, None, ctypes.c_int))
    metal.fail_next = (bridge.CB_ERROR_PAGE_FAULT, "page fault")
    assert cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, 0, args, None)[0] == R.CUDA_ERROR_ILLEGAL_ADDRESS
    assert "macOS may ignore this process's later command buffers" in capfd.readouterr().err
    metal.fail_next = (bridge.CB_ERROR_NOT_PERMITTED, "Ignored (for causing prior/excessive GPU errors)")
    assert cu.cuLaunchKernel(fn, 1, 1, 1, 16, 1, 1, 0, 0, args, None)[0] == R.CUDA_ERROR_LAUNCH_FAILED
    err = capfd.readouterr().err
    assert "an earlier GPU fault of this process (vector_add" in err and "restart the process" in err


def test_the_stand_in_rejects_msl_the_checker_rejects(ctx, metal):  # noqa: F811
    metal.check_msl = True
    metal.reject_source = None
    from cumetal.backends.msl import prelude as P

    original = P.PRELUDE_FLOAT
    try:
        P.PRELUDE_FLOAT = original.replace("ulong kept, rbit, rest;", "ulong kept, half, rest;")
        assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    finally:
        P.PRELUDE_FLOAT = original
    assert "poisoned identifier" in cu.last_error_message()


FUNCTIONAL = sorted((Path(__file__).parents[1] / "functional" / "kernels").glob("*.ptx"))


def test_metallib_path_hands_metal_verified_air(ctx, metal, monkeypatch):  # noqa: F811
    """Every functional module on the .metallib path: the stand-in's newLibraryWithURL runs our
    validator and LLVM 14's verifier on each AIR module it is given, as Metal would read them."""
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    metal.check_air = True
    for path in FUNCTIONAL:
        ok(cu.cuModuleLoadData(path.read_text()))
    assert len(metal.metallibs) == len(FUNCTIONAL)
    modules = sum(len(read_metallib(data).functions) for data in metal.metallibs)
    kernels = sum(len(compile_ptx(p.read_text(), p.name).kernels) for p in FUNCTIONAL)
    assert modules == kernels >= 25  # no kernel left out (f64 ones emulated)


def test_a_metallib_metal_cannot_read_is_invalid_image(ctx, metal, monkeypatch):  # noqa: F811
    from cumetal.backends.air import lower

    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    real = lower.compile_metallib
    monkeypatch.setattr(lower, "compile_metallib", lambda module, **kw: real(module, **kw)[:-64])
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    assert "Metal rejected the .metallib" in cu.last_error_message()
    assert "header says" in cu.last_error_message()  # the validator's finding, as Metal's error text


MBARRIER_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry waits(.param .u64 p)
{
    .shared .align 8 .b64 bar;
    .reg .pred %p1;
    .reg .b64 %rd<4>;
    mov.u64 %rd3, bar;
    mbarrier.init.shared.b64 [%rd3], 1;
    mbarrier.arrive.shared.b64 %rd2, [%rd3];
WAIT:
    mbarrier.test_wait.shared.b64 %p1, [%rd3], %rd2;
    @!%p1 bra WAIT;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], 1;
    ret;
}
.visible .entry plain(.param .u64 p)
{
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    cvta.to.global.u64 %rd1, %rd1;
    st.global.u32 [%rd1], 3;
    ret;
}
"""


@pytest.mark.parametrize("macos", [13, 14])
def test_legalizer_made_fences_are_refused_below_macos_15(metal, capfd, macos):  # noqa: F811
    """An mbarrier wait has no membar in the PTX, but the legalizer makes it a fence: the kernel
    needs MSL 3.2 too. Judged on the IR the emitter receives, the module's other kernel runs."""
    metal.macos = macos
    metal.check_msl = True  # what the options pin (3.0 / 3.1): a fence would fail the whole library
    ok(cu.cuInit(0))
    c = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    mod = ok(cu.cuModuleLoadData(MBARRIER_PTX))
    assert "kernel 'waits' cannot run on Metal: it uses a memory fence" in capfd.readouterr().err
    assert "atomic_thread_fence" not in metal.sources[-1] and "kernel void plain(" in metal.sources[-1]
    d = ok(cu.cuMemAlloc(64))
    ok(cu.cuLaunchKernel(ok(cu.cuModuleGetFunction(mod, b"plain")), 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None))
    waits = ok(cu.cuModuleGetFunction(mod, b"waits"))
    assert cu.cuLaunchKernel(waits, 1, 1, 1, 1, 1, 1, 0, 0, ((d,), (None,)), None)[0] == R.CUDA_ERROR_LAUNCH_FAILED
    ok(cu.cuCtxDestroy(c))


def test_mbarrier_kernels_load_with_msl_3_2(ctx, metal):  # noqa: F811
    metal.check_msl = True
    ok(cu.cuModuleLoadData(MBARRIER_PTX))
    assert "kernel void waits(" in metal.sources[-1] and "atomic_thread_fence" in metal.sources[-1]


def test_metallib_path_on_macos_13_says_it_needs_macos_14(metal, monkeypatch):  # noqa: F811
    """CuMetal's .metallib targets macOS 14.0 / MSL 3.1, which Metal refuses on macOS 13: a clear
    message before any library is made, and the MSL path still works there."""
    metal.macos = 13
    monkeypatch.setenv("CUMETAL_METAL_LIBRARY", "metallib")
    ok(cu.cuInit(0))
    c = ok(cu.cuCtxCreate(None, 0, ok(cu.cuDeviceGet(0))))
    assert cu.cuModuleLoadData(PTX)[0] == R.CUDA_ERROR_INVALID_IMAGE
    msg = cu.last_error_message()
    assert "CUMETAL_METAL_LIBRARY=metallib needs macOS 14 or later" in msg and "this Mac has MSL 3.0" in msg
    assert metal.metallibs == []
    monkeypatch.delenv("CUMETAL_METAL_LIBRARY")
    ok(cu.cuModuleLoadData(PTX))
    ok(cu.cuCtxDestroy(c))


@pytest.mark.parametrize("macos", [14, 15, 26])
def test_the_stand_in_refuses_a_metallib_for_a_newer_macos(metal, monkeypatch, macos):  # noqa: F811
    """The stand-in answers as Metal does for a .metallib made for a newer macOS than its own."""
    from test_metal_standin import RecURL

    from cumetal.backends.air.lower import compile_metallib
    from cumetal.backends.air.metallib import AirVersions

    metal.macos = macos
    dev = metal.system_default_device()
    path = Path(os.environ["CUMETAL_CACHE_DIR"]) / "future.metallib"
    ir = compile_ptx(PTX, "future.ptx")
    path.write_bytes(compile_metallib(ir, AirVersions(macos=(macos + 1, 0))))
    lib, err = dev.newLibraryWithURL_error_(RecURL(str(path)), None)
    assert lib is None and "deployment target" in err.localizedDescription()
    path.write_bytes(compile_metallib(ir))  # the default: macOS 14.0
    lib, err = dev.newLibraryWithURL_error_(RecURL(str(path)), None)
    assert lib is not None and err is None


BIG_PARAM_PTX = """.version 7.8
.target sm_80
.address_size 64
.visible .entry big(.param .align 8 .b8 big_param_0[8192], .param .u64 big_param_1)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u32 %r1, [big_param_0+8000];
    ld.param.u64 %rd1, [big_param_1];
    cvta.to.global.u64 %rd2, %rd1;
    st.global.u32 [%rd2], %r1;
    ret;
}
"""


def test_parameters_over_4_kib_are_bound_from_the_arena_not_set_bytes(ctx, metal):  # noqa: F811
    """setBytes takes at most 4 KB (the stand-in enforces it): CUDA 12's 32 KB parameters are copied
    into the launch block in the arena and bound with setBuffer."""
    fn = ok(cu.cuModuleGetFunction(ok(cu.cuModuleLoadData(BIG_PARAM_PTX)), b"big"))
    d = ok(cu.cuMemAlloc(64))
    blob_type = ctypes.c_uint32 * 2048
    blob = blob_type(*range(2048))
    seen = []
    metal.on_dispatch = lambda enc: seen.append(ctypes.string_at(enc.buffers[0][0].address + enc.buffers[0][1], 8200))
    mark = metal.mark()
    ok(cu.cuLaunchKernel(fn, 1, 1, 1, 1, 1, 1, 0, 0, ((blob, d), (blob_type, None)), None))
    assert "setBytes:length:atIndex:" not in metal.selectors(mark)
    (params,) = seen
    assert params[:8192] == bytes(blob) and int.from_bytes(params[8192:8200], "little") == int(d)
