"""msl-sim's batch libraries are found again by the driver's loads: a module prebuilt from a PTX file
and the same PTX loaded through ``cuModuleLoadData`` (whose emitted MSL names ``<cuModuleLoadData>``
instead of the file) run from the prebuilt library, with no g++ run of their own. Before this held,
the CI's msl-sim sweep compiled every module twice (a batch, then alone)."""

from __future__ import annotations

import numpy as np

import cumetal.backends.msl.sim.launcher as launcher
from cumetal.passes import compile_ptx

PTX = """
.version 7.0
.target sm_70
.address_size 64
.visible .entry twice(.param .u64 p)
{
    .reg .b32 %r<3>;
    .reg .b64 %rd<4>;
    ld.param.u64 %rd1, [p];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    ld.global.u32 %r2, [%rd3];
    shl.b32 %r2, %r2, 1;
    st.global.u32 [%rd3], %r2;
    ret;
}
"""


def test_a_prebuilt_module_is_not_compiled_again_when_loaded_under_another_name(tmp_path, monkeypatch):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    assert launcher.prebuild([compile_ptx(PTX, "twice.ptx")]) == 1
    compiles: list[str] = []
    real = launcher._compile
    monkeypatch.setattr(launcher, "_compile", lambda tu: compiles.append(tu) or real(tu))
    program = launcher.build_program(compile_ptx(PTX, "<cuModuleLoadData>"))
    data = np.arange(32, dtype=np.uint32)
    base = data.ctypes.data
    res = program.run("twice", (1, 1, 1), (32, 1, 1), base.to_bytes(8, "little"),
                      allocations=[(base, data.nbytes)])
    assert res.fault is None
    assert np.array_equal(data, np.arange(32, dtype=np.uint32) * 2)
    assert compiles == []  # found in the prebuilt library's index


def test_the_index_key_still_depends_on_the_kernel_code(tmp_path, monkeypatch):
    monkeypatch.setenv("CUMETAL_CACHE_DIR", str(tmp_path))
    a = compile_ptx(PTX, "twice.ptx")
    b = compile_ptx(PTX.replace("shl.b32 %r2, %r2, 1", "shl.b32 %r2, %r2, 2"), "twice.ptx")
    assert launcher._index_key(a, launcher.emit_module(a)) != launcher._index_key(b, launcher.emit_module(b))
